"""Tests of `execugraph.providers`, mirroring the package (integration ones marked `integration`)."""
