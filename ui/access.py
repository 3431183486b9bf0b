"""Who may use a shared dashboard: an operator's token for everything, a viewer's token for looking only.

With neither `EXECUGRAPH_DASHBOARD_TOKEN` nor `EXECUGRAPH_DASHBOARD_VIEWER_TOKEN` set, the
dashboard is for whoever sits at this machine: it must listen on loopback only (`serve.py`
refuses anything else, and so does this gate when Streamlit was started by hand). With a token
set, every browser session first shows a sign-in form and nothing else runs until one of the
tokens is given (compared in constant time); a viewer gets the store opened read-only, so every
control that writes (launch, cancel, resume, rename, tag, delete, import, rescore, reproduce,
library edits) says it is disabled and the database refuses writes even if one is attempted.
The token is never put in the URL, the page or the log.
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Literal

import streamlit as st

from execugraph.configuration.settings import Settings

Role = Literal["operator", "viewer"]
ROLE_KEY = "_access.role"  # the signed-in role of this browser session (not a widget)
REFUSED_KEY = "_access.refused"  # the last sign-in was refused (shown once)
TOKEN_INPUT = "access.token"
SIGN_IN = "access.sign_in"
VIEWER_NOTE = ("you are signed in as a viewer: browsing, statistics and downloads work, nothing can be "
               "changed or launched")


def is_loopback(host: str) -> bool:
    """Whether a listening address reaches this machine only (127.0.0.0/8, ::1, localhost)."""
    host = host.strip().strip("[]")
    if host in ("localhost", ""):  # "" (Streamlit's default) listens on every interface
        return host == "localhost"
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def unprotected_exposure(address: str, settings: Settings) -> str | None:
    """Why listening on `address` without a token is refused, with the fix; None when it is allowed."""
    if settings.dashboard_token or settings.viewer_token or is_loopback(address):
        return None
    return (f"the dashboard would listen on {address or 'every interface'}, beyond this machine, with no credential: anyone who can "
            "reach the port could delete runs and export everything. Set EXECUGRAPH_DASHBOARD_TOKEN (and, for "
            "read-only colleagues, EXECUGRAPH_DASHBOARD_VIEWER_TOKEN) to long random strings, or listen on "
            "127.0.0.1 and reach it through an SSH tunnel (see docs/sharing.md)")


def role_for(token: str, settings: Settings) -> Role | None:
    """The role a typed token grants, compared in constant time; None for a wrong one."""
    given = token.strip().encode()
    if settings.dashboard_token and hmac.compare_digest(given, settings.dashboard_token.encode()):
        return "operator"
    if settings.viewer_token and hmac.compare_digest(given, settings.viewer_token.encode()):
        return "viewer"
    return None


def current_role(settings: Settings) -> Role | None:
    """This session's role: operator when no token is configured, else what it signed in as (None: not yet).

    Only the exact values `_sign_in` stores, for a token that is configured, count: anything else in the
    session (a forged widget value, an object of another type) is signed out, never a traceback.
    """
    if not (settings.dashboard_token or settings.viewer_token):
        return "operator"
    try:
        held = st.session_state.get(ROLE_KEY)
    except Exception:  # noqa: BLE001 - an entry that cannot even be read is no sign-in
        return None
    if type(held) is not str:
        return None
    if held == "operator" and settings.dashboard_token:
        return "operator"
    if held == "viewer" and settings.viewer_token:
        return "viewer"
    return None


def hide_error_details(settings: Settings) -> None:
    """A shared dashboard (a token set) shows no exception's message or traceback to any browser, signed in or
    not: paths and source lines are for the server's log (`make run` starts it so; this covers a server
    started by hand)."""
    if (settings.dashboard_token or settings.viewer_token) and st.get_option("client.showErrorDetails") != "none":
        st.set_option("client.showErrorDetails", "none")


def _sign_in(settings: Settings) -> None:
    """The form's callback: grant the role the token names, or remember the refusal; the typed token is forgotten."""
    granted = role_for(st.session_state.get(TOKEN_INPUT) or "", settings)
    st.session_state[TOKEN_INPUT] = ""
    if granted is None:
        st.session_state[REFUSED_KEY] = True
    else:
        st.session_state[ROLE_KEY] = granted


def require_access(settings: Settings) -> Role:
    """Stop the script unless this browser session may see the dashboard; its role when it may."""
    hide_error_details(settings)
    refusal = unprotected_exposure(str(st.get_option("server.address") or ""), settings)
    if refusal is not None:
        st.error(f"Not served: {refusal}.", icon=":material/lock:")
        st.stop()
    role = current_role(settings)
    if role is not None:
        return role
    st.title("ExecuGraph")
    with st.form("sign-in"):
        st.text_input("Access token", type="password", key=TOKEN_INPUT)
        st.form_submit_button("Sign in", icon=":material/login:", on_click=_sign_in, args=(settings,))
    if st.session_state.pop(REFUSED_KEY, False):
        st.error("That token is not valid for this dashboard.", icon=":material/key_off:")
    st.stop()
    raise AssertionError("unreachable")  # st.stop() raises


def guard_page() -> Role:
    """The gate again at the top of every page, so a page script that runs without app.py (Streamlit runs a
    `pages/` script on its own for a deep link in a fresh server process, and a test harness may rerun the
    page it last routed to) never draws anything before sign-in; under the router it returns at once."""
    from ui.resources import settings

    return require_access(settings())
