"""`make run`: start the dashboard, refusing to listen beyond loopback without a credential.

`python -m ui.serve --host HOST --port PORT` checks the address against the tokens (see
`ui/access.py`), sets `server.allowedHosts` (the Host names a browser may use, so a DNS-rebinding
page cannot talk to the server: loopback names, this machine's names and EXECUGRAPH_DASHBOARD_HOSTS),
then serves app.py (Streamlit's `st.App`) with the options `make run` always passed.

A shared dashboard (a token set) also shows no error details to any browser (a traceback names paths and source
lines) and answers `/_stcore/metrics` with 403 (Streamlit serves it without sign-in). On Ctrl-C or SIGTERM, any
dashboard stops the batch worker it started, unless that worker is running a batch: then one line says so and
how to stop it (`ui/worker_exit.py`).
"""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from execugraph.configuration.settings import PROJECT_ROOT, load_settings
from ui.access import is_loopback, unprotected_exposure

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def allowed_hosts(host: str, extra: tuple[str, ...]) -> list[str]:
    """Host names a browser may reach the dashboard by: loopback, the address itself, this machine's, `extra`."""
    names = list(LOOPBACK_NAMES)
    if not is_loopback(host):
        if host not in ("", "0.0.0.0", "::"):
            names.append(host)
        names += [socket.gethostname(), socket.getfqdn()]
    names += list(extra)
    return list(dict.fromkeys(n for n in names if n))


def run_options(host: str, port: int, hosts: list[str], shared: bool = False) -> dict[str, Any]:
    """The options `make run` serves with, as `st.App.run(config=...)` takes them (the one place they are set)."""
    options: dict[str, Any] = {
        "server.headless": True, "server.port": port, "server.address": host, "browser.gatherUsageStats": False,
        "server.fileWatcherType": "none", "server.runOnSave": False,
        "client.toolbarMode": "viewer", "client.showSidebarNavigation": False,  # as .streamlit/config.toml
    }
    if shared:  # no traceback, path or source line reaches a browser, signed in or not
        options["client.showErrorDetails"] = "none"
    if hosts:
        options["server.allowedHosts"] = list(hosts)
    return options


def streamlit_argv(host: str, port: int, hosts: list[str], shared: bool = False) -> list[str]:
    """The same options as a `streamlit run app.py` command line (one `--server.allowedHosts` flag per name)."""
    argv = [sys.executable, "-m", "streamlit", "run", str(PROJECT_ROOT / "app.py")]
    for name, value in run_options(host, port, hosts, shared).items():
        for one in value if isinstance(value, list) else [value]:
            argv += [f"--{name}", str(one).lower() if isinstance(one, bool) else str(one)]
    return argv


class RefuseMetrics:
    """ASGI middleware: `/_stcore/metrics` (sessions, memory, cache sizes) answers 403, as no sign-in guards it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = str(scope.get("path", "")).rstrip("/")
        if scope["type"] == "http" and path.endswith("/_stcore/metrics"):
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
            await send({"type": "http.response.body", "body": b"metrics are not served by a shared dashboard\n"})
            return
        await self.app(scope, receive, send)


def serve(options: dict[str, Any], shared: bool) -> None:
    """Serve app.py with `options` (`run_options`) until Ctrl-C or SIGTERM (`streamlit run`'s server, here)."""
    import streamlit as st
    from starlette.middleware import Middleware
    from streamlit.web import bootstrap

    # st.App polls each config.toml every 200 ms on two threads (whatever fileWatcherType says): about 1% of a
    # core on an idle dashboard. `make run` watches no files; a changed config needs a restart, as code does.
    bootstrap._install_config_watchers = lambda _flag_options: None
    script = str(PROJECT_ROOT / "app.py")
    sys.argv = [script]  # st.App.run reads the script's folder (sys.path, .streamlit/) from argv[0], as `run` would
    app = st.App(script, middleware=[Middleware(RefuseMetrics)] if shared else [], lifespan=_stop_hook)
    app.run(config=options)


@asynccontextmanager
async def _stop_hook(_app: Any) -> AsyncIterator[None]:
    """On shutdown, deal with the batch worker this server started: uvicorn re-raises SIGTERM once it has shut
    down, so an exit handler (`atexit`) would never run."""
    from ui import worker_exit

    yield None
    worker_exit.on_stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8501)
    args = parser.parse_args(argv)
    settings = load_settings()
    refusal = unprotected_exposure(args.host, settings)
    if refusal is not None:
        print(f"make run: not started: {refusal}", file=sys.stderr)
        return 2
    hosts = allowed_hosts(args.host, settings.dashboard_hosts)
    if not is_loopback(args.host):
        print(f"make run: sign-in required; browsers may reach it as {', '.join(hosts)} "
              "(add names with EXECUGRAPH_DASHBOARD_HOSTS)", file=sys.stderr, flush=True)
    shared = bool(settings.dashboard_token or settings.viewer_token)
    serve(run_options(args.host, args.port, hosts, shared), shared)
    return 0


if __name__ == "__main__":
    sys.exit(main())
