"""Small source trees written into a test's temporary folder, for the layout checks' self-tests."""

from __future__ import annotations

from pathlib import Path


def write_tree(root: Path, files: dict[str, str]) -> None:
    """Write each `relative path -> text` under `root`, making folders as needed."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
