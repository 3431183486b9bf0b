"""Tests of `execugraph.batch`, mirroring the package (integration ones marked `integration`)."""
