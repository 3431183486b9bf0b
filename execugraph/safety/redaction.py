"""Secrets never leave the process: one way to hide a URL's password, one scrub for every known secret.

`redact_url` hides the credentials of any `scheme://user:password@host/...` URL, taking the
password to run up to the *last* `@` of the authority, so a password holding `@`, `:` or `/`
(written raw, as people do) is hidden whole. `remember` records a secret value the process holds,
in its raw and percent-decoded spellings, of one of two kinds:
- keys (the OpenAI-compatible server's API key, the dashboard's tokens): long random strings,
  scrubbed from everything the store writes (every text and JSON value), so a server that echoes
  the key in an error body cannot get it stored, shown or exported;
- passwords (the database's): possibly an ordinary word, so scrubbed from messages only (errors
  stored on runs and trials, log lines, what the CLI prints), never from programs or statements,
  which a common word would otherwise mangle.
The CLI's and the dashboard's log handlers scrub every line (`ScrubFilter`).
"""

from __future__ import annotations

import logging
import threading
from urllib.parse import unquote

MASK = "***"
MIN_SECRET_CHARS = 4  # shorter values would mask ordinary words

_lock = threading.Lock()
_keys: tuple[str, ...] = ()
_passwords: tuple[str, ...] = ()


def _split(url: str) -> tuple[str, str, str] | None:
    """(scheme, credentials, rest) of a URL with credentials; None when it has none (or is a file path)."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower().startswith("sqlite"):
        return None
    end = len(rest)
    for stop in "?#":
        at = rest.find(stop, rest.rfind("@") + 1)
        end = min(end, at) if at >= 0 else end
    creds, at, host = rest[:end].rpartition("@")
    if not at:
        return None
    return scheme, creds, host + rest[end:]


def redact_url(url: str) -> str:
    """`url` with any password shown as ***: `postgresql://u:p@ss@host/db` -> `postgresql://u:***@host/db`."""
    parts = _split(url)
    if parts is None:
        return url
    scheme, creds, rest = parts
    user, colon, _password = creds.partition(":")
    return f"{scheme}://{user}:{MASK}@{rest}" if colon else url


def url_password(url: str) -> str | None:
    """The password in `url` as written (None when it has none)."""
    parts = _split(url)
    if parts is None:
        return None
    _user, colon, password = parts[1].partition(":")
    return password if colon and password else None


def _spellings(values: tuple[str | None, ...]) -> set[str]:
    found = set()
    for value in values:
        for spelling in (value, unquote(value) if value else None):
            if spelling and len(spelling) >= MIN_SECRET_CHARS:
                found.add(spelling)
    return found


def _merged(known: tuple[str, ...], found: set[str]) -> tuple[str, ...]:
    return tuple(sorted(set(known) | found, key=len, reverse=True))  # longest first


def remember(*values: str | None) -> None:
    """Add keys (API keys, tokens) to those scrubbed from everything stored, shown and logged."""
    global _keys
    found = _spellings(values)
    if found - set(_keys):
        with _lock:
            _keys = _merged(_keys, found)


def remember_url(url: str | None) -> None:
    """Remember the password of a database or server URL (scrubbed from messages)."""
    global _passwords
    found = _spellings((url_password(url),)) if url else set()
    if found - set(_passwords):
        with _lock:
            _passwords = _merged(_passwords, found)


def _replace(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def scrub(text: str) -> str:
    """`text` (any stored value) with every remembered key replaced by ***."""
    return _replace(text, _keys)


def scrub_message(text: str) -> str:
    """`text` (an error message, a log line) with every remembered key and password replaced by ***."""
    return _replace(_replace(text, _keys), _passwords)


def holds_secrets() -> bool:
    """Whether any key is remembered (lets hot paths skip the scrub)."""
    return bool(_keys)


class ScrubFilter(logging.Filter):
    """A log filter that scrubs the formatted message (its arguments included) of every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _keys or _passwords:
            message = record.getMessage()
            cleaned = scrub_message(message)
            if cleaned != message:
                record.msg, record.args = cleaned, None
        return True


def install_log_scrub(logger: logging.Logger | None = None) -> None:
    """Scrub every record that reaches the handlers of `logger` (the root logger by default)."""
    target = logger or logging.getLogger()
    for handler in target.handlers:
        if not any(isinstance(f, ScrubFilter) for f in handler.filters):
            handler.addFilter(ScrubFilter())
