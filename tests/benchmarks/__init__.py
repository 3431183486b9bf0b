"""Tests of `execugraph.benchmarks`, mirroring the package (integration ones marked `integration`)."""
