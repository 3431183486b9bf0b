"""Tests of `execugraph.stats`, mirroring the package (integration ones marked `integration`)."""
