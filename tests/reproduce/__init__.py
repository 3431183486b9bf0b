"""Tests of `execugraph.reproduce`, mirroring the package (integration ones marked `integration`)."""
