"""One chromium kept open between a dashboard's downloads, closed after a quiet spell.

Starting chromium is most of a download's time (about 2 s of 2.4 s here); a figure rendered by a renderer
that is already open takes about 0.2 s. So downloads share one renderer, which closes itself
`IDLE_CLOSE_S` after its last use (and at exit): no browser is held by a dashboard nobody exports from.
A renderer that fails is closed, and the next call starts a fresh one.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Awaitable, Callable
from typing import Any

IDLE_CLOSE_S = 120.0
START_TIMEOUT_S = 120.0


class WarmRenderer:
    """A kaleido renderer on its own event-loop thread; `render` calls are serialised."""

    def __init__(self, idle_close_s: float = IDLE_CLOSE_S) -> None:
        self.idle_close_s = idle_close_s
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._kaleido: Any = None
        self._browser: str | None = None
        self._timer: threading.Timer | None = None
        self._uses = 0
        atexit.register(self.close)

    @property
    def is_open(self) -> bool:
        return self._kaleido is not None

    def render(self, browser: str, work: Callable[[Any], Awaitable[Any]], timeout_s: float) -> Any:
        """`await work(kaleido)` on the warm renderer (started, or restarted for another browser, as needed)."""
        with self._lock:
            self._uses += 1
            if self._timer is not None:
                self._timer.cancel()
            try:
                if self._kaleido is not None and self._browser != browser:
                    self._stop()
                if self._kaleido is None:
                    self._start(browser)
                assert self._loop is not None
                return asyncio.run_coroutine_threadsafe(work(self._kaleido), self._loop).result(timeout=timeout_s)
            except BaseException:
                self._stop()
                raise
            finally:
                self._arm(self._uses)

    def close(self) -> None:
        """Close chromium now (a later `render` starts it again)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._stop()

    def _close_if_idle(self, uses: int) -> None:
        with self._lock:
            if uses == self._uses:  # nothing rendered since this timer was armed
                self._stop()

    def _arm(self, uses: int) -> None:
        if self._kaleido is None:
            return
        self._timer = threading.Timer(self.idle_close_s, self._close_if_idle, args=(uses,))
        self._timer.daemon = True
        self._timer.start()

    def _start(self, browser: str) -> None:
        import kaleido

        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="execugraph-figure-renderer", daemon=True)
        thread.start()
        self._loop, self._thread, self._browser = loop, thread, browser

        async def opened() -> Any:
            renderer = kaleido.Kaleido(path=browser, mathjax=False, timeout=START_TIMEOUT_S)
            await renderer.open()
            return renderer

        self._kaleido = asyncio.run_coroutine_threadsafe(opened(), loop).result(timeout=START_TIMEOUT_S)

    def _stop(self) -> None:
        loop, thread, renderer = self._loop, self._thread, self._kaleido
        self._loop = self._thread = self._kaleido = self._browser = None
        if loop is None:
            return
        if renderer is not None:
            try:
                asyncio.run_coroutine_threadsafe(renderer.close(), loop).result(timeout=30)
            except Exception:  # noqa: BLE001 - a browser that is already gone needs no closing
                pass
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout=10)
        if not loop.is_running():
            loop.close()
