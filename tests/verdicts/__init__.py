"""Tests of `execugraph.verdicts`, mirroring the package (integration ones marked `integration`)."""
