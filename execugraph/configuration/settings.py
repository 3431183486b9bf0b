"""Environment-derived settings, read in exactly one place.

Every environment variable the project honours is read here, so the rest of
the code takes explicit arguments and tests can point things at `tmp_path`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from execugraph.domain.vocabulary import EMBEDDED_MODEL as _EMBEDDED_MODEL
from execugraph.safety import redaction

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DB_ENV = "EXECUGRAPH_DB"  # the database; also how a worker is told it (never on its command line)
DATA_DIR = PROJECT_ROOT / "data"
DEFAULT_DB_PATH = PROJECT_ROOT / "runs.db"
DEFAULT_OLLAMA_HOST = "http://localhost:11434"
DEFAULT_OPENAI_BASE_URL = "http://localhost:8000/v1"
EMBEDDED_MODEL = _EMBEDDED_MODEL  # written once, in execugraph.domain.vocabulary (no pydantic here)
DEFAULT_MODEL = EMBEDDED_MODEL  # what EXECUGRAPH_MODEL falls back to
DEFAULT_CHROMIUM = "/usr/bin/chromium"  # Debian's package; also drives the browser tests
DEFAULT_IMPORT_MAX_BYTES = 1024**3  # what one import may unpack to
DEFAULT_MAX_TEST_TIMEOUT_S = 60.0  # a benchmark's own per-test timeout beyond this is capped (the backstop is 10x + 10 s)
DEFAULT_UPLOAD_MAX_BYTES = 200 * 1024**2  # one file uploaded to the dashboard (a suite, a zip to import)


@dataclass(frozen=True)
class Settings:
    """Process-wide settings. Build with `load_settings()`."""

    db_url: str
    ollama_host: str
    cache_dir: Path
    default_model: str
    llama_threads: int | None
    embed_backend: str  # "onnx" (ONNX Runtime, torch as fallback) or "torch"
    import_max_bytes: int = DEFAULT_IMPORT_MAX_BYTES  # EXECUGRAPH_IMPORT_MAX_BYTES, e.g. 2GiB
    upload_max_bytes: int = DEFAULT_UPLOAD_MAX_BYTES  # EXECUGRAPH_UPLOAD_MAX_BYTES, e.g. 50MiB
    openai_base_url: str = DEFAULT_OPENAI_BASE_URL  # an OpenAI-compatible server (vLLM, llama.cpp, LM Studio, ...)
    # Sent as the bearer token to that server; never stored, exported, logged or shown (hence repr=False).
    openai_api_key: str | None = field(default=None, repr=False)
    chromium_path: str = DEFAULT_CHROMIUM  # the browser kaleido renders static SVG/PDF figures with
    # The shared dashboard (ui/access.py): who may do everything, who may only look, and the host names a browser
    # may use to reach it (beyond loopback). Never shown; scrubbed from everything stored and logged.
    dashboard_token: str | None = field(default=None, repr=False)  # EXECUGRAPH_DASHBOARD_TOKEN
    viewer_token: str | None = field(default=None, repr=False)  # EXECUGRAPH_DASHBOARD_VIEWER_TOKEN
    dashboard_hosts: tuple[str, ...] = ()  # EXECUGRAPH_DASHBOARD_HOSTS, comma-separated
    # Where a batch may connect beyond loopback and the servers above (execugraph/batch/destinations.py)
    allowed_endpoints: tuple[str, ...] = ()  # EXECUGRAPH_ALLOWED_ENDPOINTS: hosts, IPs, CIDRs or *
    ray_address: str | None = None  # RAY_ADDRESS, as Ray itself reads it
    # The most CPU seconds per test a benchmark file may ask for (its `timeout_s`); above it, capped with a warning
    max_test_timeout_s: float = DEFAULT_MAX_TEST_TIMEOUT_S  # EXECUGRAPH_MAX_TEST_TIMEOUT_S


def _db_url_from(value: str | None) -> str:
    """Turn a path or SQLAlchemy URL into a URL (plain paths mean SQLite)."""
    if not value:
        return f"sqlite:///{DEFAULT_DB_PATH}"
    if "://" in value:
        return value
    return f"sqlite:///{Path(value).expanduser().resolve()}"


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?)(b?)\s*$", re.IGNORECASE)


def parse_size(text: str | int) -> int:
    """'2GiB', '512 MB', '1g', '1073741824' -> bytes (KiB/MiB/GiB and bare k/m/g are powers of 1024, kB/MB/GB of 1000)."""
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        match = _SIZE.match(str(text))
        if not match:
            raise ValueError(f"not a size: {text!r}; write e.g. 1073741824, 512MiB or 2GiB")
        number, prefix, binary, byte = float(match[1]), match[2].lower(), match[3], match[4]
        power = " kmgt".index(prefix) if prefix else 0
        base = 1000 if (byte and not binary) else 1024
        value = int(number * base**power)
    if value <= 0:
        raise ValueError(f"a size limit must be positive, got {text!r}")
    return value


def format_size(n: int) -> str:
    """1536 -> '1.5 KiB' (binary units, as the limits are given)."""
    value = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "bytes" else f"{value:.1f} {unit}".replace(".0 ", " ")
        value /= 1024
    return f"{n} bytes"  # pragma: no cover - the loop always returns


def _size_from_env(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        return parse_size(raw)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def normalise_host(host: str) -> str:
    """Accept `host:port` as Ollama itself does and return a full base URL."""
    host = host.strip().rstrip("/")
    return host if "://" in host else f"http://{host}"


def _positive_from_env(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r}: expected a number of seconds") from None
    if not 0 < value < float("inf"):
        raise ValueError(f"{name}={raw!r}: expected a positive, finite number of seconds")
    return value


def _listed(name: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in os.environ.get(name, "").split(",") if item.strip())


def load_settings(db: str | None = None) -> Settings:
    """Read settings from the environment; an explicit `db` wins over EXECUGRAPH_DB.

    The secrets read here (the API key, the database password) are remembered for `redaction.scrub`.
    """
    threads = os.environ.get("EXECUGRAPH_LLAMA_THREADS")
    settings = Settings(
        db_url=_db_url_from(db or os.environ.get(DB_ENV)),
        ollama_host=normalise_host(os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST),
        cache_dir=Path(os.environ.get("EXECUGRAPH_CACHE_DIR", PROJECT_ROOT / ".cache")),
        default_model=os.environ.get("EXECUGRAPH_MODEL", DEFAULT_MODEL),
        llama_threads=int(threads) if threads else None,
        embed_backend=os.environ.get("EXECUGRAPH_EMBED_BACKEND", "onnx"),
        import_max_bytes=_size_from_env("EXECUGRAPH_IMPORT_MAX_BYTES", DEFAULT_IMPORT_MAX_BYTES),
        upload_max_bytes=_size_from_env("EXECUGRAPH_UPLOAD_MAX_BYTES", DEFAULT_UPLOAD_MAX_BYTES),
        openai_base_url=normalise_host(os.environ.get("EXECUGRAPH_OPENAI_BASE_URL") or DEFAULT_OPENAI_BASE_URL),
        openai_api_key=os.environ.get("EXECUGRAPH_OPENAI_API_KEY") or None,
        chromium_path=os.environ.get("BROWSER_PATH") or DEFAULT_CHROMIUM,
        dashboard_token=os.environ.get("EXECUGRAPH_DASHBOARD_TOKEN") or None,
        viewer_token=os.environ.get("EXECUGRAPH_DASHBOARD_VIEWER_TOKEN") or None,
        dashboard_hosts=_listed("EXECUGRAPH_DASHBOARD_HOSTS"),
        allowed_endpoints=_listed("EXECUGRAPH_ALLOWED_ENDPOINTS"),
        ray_address=os.environ.get("RAY_ADDRESS") or None,
        max_test_timeout_s=_positive_from_env("EXECUGRAPH_MAX_TEST_TIMEOUT_S", DEFAULT_MAX_TEST_TIMEOUT_S),
    )
    redaction.remember(settings.openai_api_key, settings.dashboard_token, settings.viewer_token)
    redaction.remember_url(settings.db_url)
    redaction.remember_url(settings.openai_base_url)
    return settings


def default_model() -> str:
    """The model every picker and command starts from: EXECUGRAPH_MODEL, else the embedded model."""
    return load_settings().default_model
