"""Tests of `execugraph.grading`, mirroring the package (integration ones marked `integration`)."""
