"""The embedded default model loads in process and answers through the LangChain interface."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage

from execugraph.providers.llm import (
    LlamaCppChat,
    LLMError,
    embedded_model_path,
    generation_threads,
    make_chat_model,
    parse_spec,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_embedded_gguf_ships_in_the_package():
    path = embedded_model_path()
    assert path.suffix == ".gguf"
    assert path.stat().st_size > 50_000_000  # the real 135M weights, not a pointer file


def test_embedded_model_answers_a_chat_completion():
    model = make_chat_model("llamacpp:default", max_tokens=48)
    assert isinstance(model, LlamaCppChat)
    reply = model.invoke([HumanMessage(content="Write a Python function add(a, b) that returns a + b.")])
    assert isinstance(reply.content, str) and reply.content.strip()
    usage = reply.usage_metadata
    assert usage["input_tokens"] > 0 and 0 < usage["output_tokens"] <= 48


def test_greedy_decoding_is_deterministic():
    model = make_chat_model("llamacpp:default", max_tokens=24, temperature=0.0, seed=3)
    prompt = [HumanMessage(content="Name one sorting algorithm.")]
    assert model.invoke(prompt).content == model.invoke(prompt).content


def test_threads_never_oversubscribe_the_cores():
    import os

    assert 1 <= generation_threads() <= max(1, (os.cpu_count() or 1) // 2)


def test_bad_specs_and_missing_files_are_clear_errors(tmp_path):
    with pytest.raises(LLMError, match="bad model spec"):
        parse_spec("gpt4")
    with pytest.raises(LLMError, match="bad model spec"):
        parse_spec("vertex:gemini")
    assert parse_spec("openai:Qwen/Qwen2.5-Coder-7B-Instruct").provider == "openai"
    with pytest.raises(LLMError, match="not found"):
        make_chat_model(f"llamacpp:{tmp_path / 'missing.gguf'}")
    with pytest.raises(LLMError, match="run id"):
        make_chat_model("replay:abc")
    assert parse_spec("ollama:qwen2.5-coder:7b").name == "qwen2.5-coder:7b"


def test_a_repetition_penalty_reaches_llama_cpp_and_changes_a_looping_reply():
    """The explainer's penalty is applied by llama.cpp: on a prompt that invites repetition the reply differs."""
    prompt = [HumanMessage(content="List the numbers from one to twenty in words.")]
    plain = make_chat_model("llamacpp:default", max_tokens=60, temperature=0.0, seed=1)
    penalised = make_chat_model("llamacpp:default", max_tokens=60, temperature=0.0, seed=1, repeat_penalty=1.5)
    assert isinstance(penalised, LlamaCppChat) and penalised.repeat_penalty == 1.5
    first, second = plain.invoke(prompt).content, penalised.invoke(prompt).content
    assert first != second  # greedy decoding: only the penalty can make them differ
    assert first == plain.invoke(prompt).content


def test_the_health_line_asks_a_half_imported_llm_module_without_failing(tmp_path):
    """The dashboard's warm-up thread imports `llm` while the sidebar asks whether the model is held: `llm` is then
    in sys.modules without its functions yet (CI saw AttributeError 'partially initialized module' on the sidebar).
    Reproduced in a fresh interpreter by placing the module's bare shell where the import would have put it."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys, types\n"
        "sys.modules['execugraph.providers.llm'] = types.ModuleType('execugraph.providers.llm')\n"
        "from execugraph.providers.embedded import held\n"
        "print(held('/nowhere/model.gguf'))\n"
        "del sys.modules['execugraph.providers.llm']\n"
        "import execugraph.providers.llm\n"
        "print(held('/nowhere/model.gguf'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]
