"""Tests of `execugraph.scaleout`, mirroring the package (integration ones marked `integration`)."""
