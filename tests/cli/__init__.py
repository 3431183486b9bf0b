"""Tests of `execugraph.cli`, mirroring the package (integration ones marked `integration`)."""
