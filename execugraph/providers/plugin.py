"""The built-in model providers, registered through the plugin hook like an outside package's."""

from __future__ import annotations

from typing import Any

from execugraph.plugins.hookspecs import hookimpl

DESCRIPTIONS = {
    "ollama": ("a model served by Ollama (EXECUGRAPH_OLLAMA_HOST)", "model"),
    "openai": ("any OpenAI-compatible server: vLLM, llama-server, LM Studio (EXECUGRAPH_OPENAI_BASE_URL)", "model"),
    "llamacpp": ("a GGUF file run in process; `default` is the embedded SmolLM2-135M", "gguf path or 'default'"),
    "replay": ("the answers a stored run recorded, replayed by prompt", "run id"),
}


@hookimpl
def register_providers(register: Any) -> None:
    # "module:attr" (llm.BUILT_IN_FACTORIES), imported when the first model is built: llm.py loads LangChain.
    for prefix, (description, example) in DESCRIPTIONS.items():
        register(prefix, f"execugraph.providers.llm:_{prefix}", description=description, example=example)
