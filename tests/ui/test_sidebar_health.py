"""The sidebar's health block is compact (issue 41): one short line per component with its mark, the whole messages
under "Health details", and a failing component keeps a visible one-line reason."""

from __future__ import annotations

from execugraph.providers.health import Check
from tests.ui.conftest import no_exception
from ui.views.health import REASON_CHARS, sidebar_lines

OLLAMA_DOWN = "not reachable at http://127.0.0.1:9 ([Errno 111] Connection refused)"


def test_the_sidebar_shows_one_short_line_per_component_with_the_full_message_on_demand(app, tmp_path):
    at = app("synthesize")
    no_exception(at)
    lines = [m for m in at.sidebar.markdown if not m.is_caption]
    shown = [str(m.value) for m in lines]
    words = " ".join(shown).replace("\\", "")  # md_text escapes '.' and '_' for Markdown
    assert "Database: runs.db ✓" in words, shown
    assert "Ollama: not running" in words and "OpenAI server: not running" in words, shown
    assert "Sandbox: " in words and "Plugins: " in words, shown
    assert all(len(text.replace("\\", "")) <= 50 for text in shown), shown  # short: no message spelt out
    assert not any(m.proto.help for m in lines)  # no help icon: at 800 px it wrapped onto a line of its own
    details = at.sidebar.expander[0]  # the whole messages, on demand
    assert details.label == "Health details"
    hidden = " ".join(str(c.value) for c in details.caption)
    assert str(tmp_path / "runs.db") in hidden and "not reachable at http://127.0.0.1:9/v1" in hidden
    assert "not reachable at http://127.0.0.1:9 " in hidden and "ollama serve" in hidden
    visible = [str(c.value) for c in at.sidebar.caption if str(c.value) not in hidden]
    assert not any("not reachable" in c for c in visible), visible  # the servers' messages are not spelt out


def test_a_failing_component_keeps_a_visible_one_line_reason():
    reason = "registered twice: the benchmark torch9 clashes with " + "a long explanation " * 8
    lines = sidebar_lines([
        Check("database", "ok", "sqlite:////srv/lab/runs.db (schema 0009)"),
        Check("embedded model", "fail", "/models/x.gguf did not load: ValueError: bad magic", "reinstall"),
        Check("ollama", "warn", OLLAMA_DOWN, "start it (`ollama serve`)"),
        Check("plugin twice", "fail", reason, "fix or uninstall it"),
        Check("sandbox: seccomp", "ok", "active"),
        Check("sandbox: landlock_fs", "warn", "unavailable", "run as root"),
    ])
    by_text = {line.text: line for line in lines}
    assert list(by_text) == ["Database: runs.db ✓", "Model: failed ✗", "Ollama: not running", "Plugin twice: failed ✗",
                             "Sandbox: 1/2 layers"]
    assert by_text["Model: failed ✗"].reason.startswith("/models/x.gguf did not load")
    assert by_text["Sandbox: 1/2 layers"].reason == "not active: landlock_fs"
    plugin = by_text["Plugin twice: failed ✗"]
    assert plugin.reason.startswith("registered twice: the benchmark torch9") and plugin.reason.endswith("…")
    assert len(plugin.reason) <= REASON_CHARS and "\n" not in plugin.reason
    assert plugin.full == f"{reason} - fix or uninstall it"  # nothing cut from the message on demand
    assert by_text["Ollama: not running"].reason == ""  # its line says it
    assert "ollama serve" in by_text["Ollama: not running"].full


def test_server_and_database_lines_read_in_a_few_words():
    lines = sidebar_lines([
        Check("database", "warn", "sqlite:////srv/runs.db (schema 9, read-only)", "copy it somewhere writable"),
        Check("database", "ok", "postgresql://***@db.lab:5432/execugraph (schema 9)"),
        Check("ollama", "ok", "reachable at http://h:11434; models: a, b"),
        Check("openai server", "warn", "http://h/v1/models answered HTTP 401 Unauthorized", "set the key"),
        Check("openai server", "warn", "reachable at http://h/v1, no models listed", "load one"),
    ])
    assert [line.text for line in lines] == [
        "Database: runs.db, read-only", "Database: PostgreSQL execugraph ✓", "Ollama: 2 models ✓",
        "OpenAI server: HTTP 401", "OpenAI server: no models"]
