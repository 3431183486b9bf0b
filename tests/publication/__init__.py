"""Tests of `execugraph.publication`, mirroring the package (integration ones marked `integration`)."""
