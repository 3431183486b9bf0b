"""Tests of `execugraph.workflow`, mirroring the package (integration ones marked `integration`)."""
