"""Tests of `sandbox`, mirroring the package (integration ones marked `integration`)."""
