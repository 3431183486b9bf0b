"""Tests of `execugraph.sequential`, mirroring the package (integration ones marked `integration`)."""
