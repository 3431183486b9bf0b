"""Tests of `execugraph.parsing`, mirroring the package (integration ones marked `integration`)."""
