"""Tests of `execugraph.safety`, mirroring the package (integration ones marked `integration`)."""
