"""Tests of `execugraph.retrieval`, mirroring the package (integration ones marked `integration`)."""
