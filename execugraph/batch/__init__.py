"""Batches: a grid of trials queued up front, run by whichever worker claims it, resumable.

Nothing here imports `execugraph.scaleout`: scale-out is built on this package.
"""
