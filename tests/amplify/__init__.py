"""Tests of `execugraph.amplify`, mirroring the package (integration ones marked `integration`)."""
