"""`make run`: start the dashboard, refusing to listen beyond loopback without a credential.

`python -m ui.serve --host HOST --port PORT` checks the address against the tokens (see
`ui/access.py`), sets `server.allowedHosts` (the Host names a browser may use, so a DNS-rebinding
page cannot talk to the server: loopback names, this machine's names and EXECUGRAPH_DASHBOARD_HOSTS),
then replaces itself with `streamlit run app.py` and the flags `make run` always passed.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys

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


def streamlit_argv(host: str, port: int, hosts: list[str]) -> list[str]:
    argv = [sys.executable, "-m", "streamlit", "run", str(PROJECT_ROOT / "app.py"), "--server.headless", "true",
            "--server.port", str(port), "--server.address", host, "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none", "--server.runOnSave", "false",
            "--client.toolbarMode", "viewer", "--client.showSidebarNavigation", "false"]  # as .streamlit/config.toml
    for name in hosts:
        argv += ["--server.allowedHosts", name]
    return argv


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
    command = streamlit_argv(args.host, args.port, hosts)
    os.execv(command[0], command)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
