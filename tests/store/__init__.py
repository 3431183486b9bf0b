"""Tests of `execugraph.store`, mirroring the package (integration ones marked `integration`)."""
