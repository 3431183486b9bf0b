"""Run a command while a folder is on read-only storage, for real, even as root.

Root ignores file permissions, so `chmod` cannot make a folder read-only for
the test suite when it runs as root. A read-only bind mount can: `unshare`
gives the command its own mount namespace (with a user namespace when not
root, so this also works unprivileged where user namespaces are allowed),
with private mount propagation, the folder is bound
onto itself and remounted read-only, and every write there fails with EROFS,
exactly as on a read-only disk. Nothing outside that one command sees it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from functools import cache
from pathlib import Path

_SCRIPT = 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && exec "$@"'


def read_only_argv(folder: Path, argv: list[str]) -> list[str]:
    """`argv`, run with `folder` mounted read-only for it alone.

    Root needs only a mount namespace (and so keeps every privilege, which the
    sandbox's own isolation needs); anyone else also gets a user namespace.
    """
    namespaces = ["--mount"] if os.geteuid() == 0 else ["--user", "--map-root-user", "--mount"]
    return ["unshare", *namespaces, "sh", "-c", _SCRIPT, str(folder), *argv]


@cache
def unavailable_reason() -> str | None:
    """Why read-only mounts cannot be made here (None when they can)."""
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    probe = Path("/tmp")
    try:
        done = subprocess.run(
            read_only_argv(
                probe,
                ["sh", "-c", "touch /tmp/.ro-probe-$$ 2>/dev/null && rm -f /tmp/.ro-probe-$$ && exit 7 || exit 0"],
            ),
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unshare failed: {exc}"
    if done.returncode != 0:
        return f"cannot make a read-only bind mount here ({shlex.join(done.args[:4])}: {done.stderr.strip()[:200]})"
    return None
