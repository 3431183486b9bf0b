"""Where a batch may connect: loopback, the operator's own servers, and the hosts the environment allows.

A batch names a Ray cluster (`ray_address`) and LLM servers (`endpoints`, `ollama_hosts`). Those
come from a form, a command line or a stored configuration, and a stored configuration can come
from a stranger's bundle: imported and resumed, it must not make this machine's worker connect to
the author's "cluster" (whose answers a Ray driver trusts) or send prompts to their server. So
every destination must be this machine (loopback, its own names and addresses), a server the operator configured (OLLAMA_HOST,
EXECUGRAPH_OPENAI_BASE_URL, RAY_ADDRESS) or listed in EXECUGRAPH_ALLOWED_ENDPOINTS (host names,
IP addresses or CIDR ranges, comma-separated; `*` allows any). It is checked when a batch is
queued and again when a worker starts it, from the configuration as stored.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from execugraph.configuration.settings import Settings

if TYPE_CHECKING:
    from execugraph.batch.spec import BatchSpec

LOCAL_RAY = ("", "auto", "local")
ALLOW_ENV = "EXECUGRAPH_ALLOWED_ENDPOINTS"


def host_of(address: str) -> str:
    """The host part of a URL or of `HOST:PORT` (`ray://h:10001`, `http://h:11434`, `h:6379`, `[::1]:80`)."""
    text = address.strip()
    parsed = urlsplit(text if "://" in text else f"tcp://{text}")
    return (parsed.hostname or "").lower()


def _is_this_machine(host: str) -> bool:
    """Loopback, this machine's own name, or an address of one of its interfaces (a local Ray cluster uses one)."""
    if host in ("localhost", socket.gethostname().lower(), socket.getfqdn().lower()):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    if ip.is_loopback:
        return True
    try:  # only an address assigned to this machine can be bound
        with socket.socket(socket.AF_INET6 if ip.version == 6 else socket.AF_INET) as probe:
            probe.bind((str(ip), 0))
        return True
    except OSError:
        return False


def _allowed(host: str, entries: tuple[str, ...]) -> bool:
    if "*" in entries or host in entries or _is_this_machine(host):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    for entry in entries:
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def operator_hosts(settings: Settings) -> tuple[str, ...]:
    """Hosts the operator configured in the environment, always allowed."""
    hosts = [host_of(settings.ollama_host), host_of(settings.openai_base_url)]
    if settings.ray_address:
        hosts.append(host_of(settings.ray_address))
    return tuple(h for h in hosts if h)


def refused_destinations(spec: BatchSpec, settings: Settings) -> list[str]:
    """The batch's destinations this machine may not connect to (empty when all are allowed)."""
    entries = tuple(e.lower() for e in settings.allowed_endpoints) + operator_hosts(settings)
    wanted = [url for _kind, url in spec.endpoint_list()]
    if (spec.ray_address or "").strip().lower() not in LOCAL_RAY:
        wanted.append(str(spec.ray_address))
    return [address for address in wanted if not _allowed(host_of(address), entries)]


def check_destinations(spec: BatchSpec, settings: Settings) -> None:
    """ValueError naming every destination the environment does not allow, and how to allow it."""
    refused = refused_destinations(spec, settings)
    if refused:
        raise ValueError(
            f"this batch would connect to {', '.join(refused)}, which this machine does not allow (only loopback "
            f"and the servers set in OLLAMA_HOST, EXECUGRAPH_OPENAI_BASE_URL or RAY_ADDRESS are, unless "
            f"{ALLOW_ENV} lists the host); a stored or imported configuration never chooses where a worker connects"
        )
