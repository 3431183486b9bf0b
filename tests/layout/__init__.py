"""Checks over the whole tree: import cycles, the presentation boundary, file sizes and package docstrings."""
