"""Environment-derived settings, read in exactly one place.

Every environment variable the project honours is read here, so the rest of
the code takes explicit arguments and tests can point things at `tmp_path`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = PROJECT_ROOT / "data"
DEFAULT_DB_PATH = PROJECT_ROOT / "runs.db"
DEFAULT_OLLAMA_HOST = "http://localhost:11434"
EMBEDDED_MODEL = "llamacpp:default"  # the one place the embedded model's spec is written
DEFAULT_MODEL = EMBEDDED_MODEL  # what EXECUGRAPH_MODEL falls back to
DEFAULT_CHROMIUM = "/usr/bin/chromium"  # Debian's package; also drives the browser tests


@dataclass(frozen=True)
class Settings:
    """Process-wide settings. Build with `load_settings()`."""

    db_url: str
    ollama_host: str
    cache_dir: Path
    default_model: str
    llama_threads: int | None
    embed_backend: str  # "onnx" (ONNX Runtime, torch as fallback) or "torch"
    chromium_path: str = DEFAULT_CHROMIUM  # the browser kaleido renders static SVG/PDF figures with


def _db_url_from(value: str | None) -> str:
    """Turn a path or SQLAlchemy URL into a URL (plain paths mean SQLite)."""
    if not value:
        return f"sqlite:///{DEFAULT_DB_PATH}"
    if "://" in value:
        return value
    return f"sqlite:///{Path(value).expanduser().resolve()}"


def normalise_host(host: str) -> str:
    """Accept `host:port` as Ollama itself does and return a full base URL."""
    host = host.strip().rstrip("/")
    return host if "://" in host else f"http://{host}"


def load_settings(db: str | None = None) -> Settings:
    """Read settings from the environment; an explicit `db` wins over EXECUGRAPH_DB."""
    threads = os.environ.get("EXECUGRAPH_LLAMA_THREADS")
    return Settings(
        db_url=_db_url_from(db or os.environ.get("EXECUGRAPH_DB")),
        ollama_host=normalise_host(os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST),
        cache_dir=Path(os.environ.get("EXECUGRAPH_CACHE_DIR", PROJECT_ROOT / ".cache")),
        default_model=os.environ.get("EXECUGRAPH_MODEL", DEFAULT_MODEL),
        llama_threads=int(threads) if threads else None,
        embed_backend=os.environ.get("EXECUGRAPH_EMBED_BACKEND", "onnx"),
        chromium_path=os.environ.get("BROWSER_PATH") or DEFAULT_CHROMIUM,
    )


def default_model() -> str:
    """The model every picker and command starts from: EXECUGRAPH_MODEL, else the embedded model."""
    return load_settings().default_model
