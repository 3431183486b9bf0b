"""Tests of `execugraph.agents`, mirroring the package (integration ones marked `integration`)."""
