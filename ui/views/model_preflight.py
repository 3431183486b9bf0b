"""Before a launch: which models can be picked now, and whether each chosen one can answer.

The forms offer the embedded model plus whatever Ollama and the OpenAI-compatible
server list; a launch is refused up front, with the reason and the fix, when a
chosen model is not pulled, not served, not on disk or its server does not
answer, rather than failing trial after trial.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from execugraph.configuration.settings import EMBEDDED_MODEL

if TYPE_CHECKING:
    from execugraph.domain.config import RunConfig
    from execugraph.domain.problem import Problem


def model_choices(ollama_host: str, openai_base_url: str | None = None) -> tuple[list[str], str | None]:
    """Model specs one can pick now (embedded first, then Ollama's and the OpenAI-compatible server's models)
    and, when neither server answers, why."""
    from execugraph.providers.health import ollama_models

    choices, missing = [EMBEDDED_MODEL], []
    try:
        choices += [f"ollama:{name}" for name in ollama_models(ollama_host)]
    except (OSError, ValueError) as exc:
        missing.append(f"Ollama not reachable at {ollama_host} ({getattr(exc, 'reason', exc)})")
    served, why = _openai_served(openai_base_url)
    if served is None:
        missing.append(why)
    else:
        choices += [f"openai:{name}" for name in served]
    return choices, "; ".join(missing) if len(missing) == 2 else None


def _openai_served(base_url: str | None) -> tuple[list[str] | None, str]:
    """The models the OpenAI-compatible server lists, or None and why not."""
    from execugraph.configuration.settings import load_settings
    from execugraph.providers.health import openai_models

    settings = load_settings()
    url = base_url or settings.openai_base_url
    try:
        return openai_models(url, api_key=settings.openai_api_key), ""
    except (OSError, ValueError) as exc:
        return None, f"OpenAI-compatible server not reachable at {url} ({getattr(exc, 'reason', exc)})"


@dataclass(frozen=True)
class ModelProblem:
    """A chosen model that cannot answer: which spec, what is wrong, what to do."""

    spec: str
    problem: str
    fix: str

    def __str__(self) -> str:
        return f"{self.spec}: {self.problem} - {self.fix}"


def model_problems(specs: list[str], ollama_host: str, openai_base_url: str | None = None) -> list[ModelProblem]:
    """Pre-flight check of model specs before a launch; empty when all of them can be served."""
    from execugraph.configuration.settings import load_settings
    from execugraph.providers.health import ollama_models
    from execugraph.providers.llm import LLMError, embedded_model_path, parse_spec

    problems: list[ModelProblem] = []
    pulled: list[str] | None = None
    reachable = True
    served: tuple[list[str] | None, str] | None = None
    openai_url = openai_base_url or load_settings().openai_base_url
    for spec in dict.fromkeys(specs):
        try:
            parsed = parse_spec(spec)
        except LLMError as exc:
            problems.append(ModelProblem(spec, str(exc), "pick a model from the list"))
            continue
        if parsed.provider == "ollama":
            if pulled is None and reachable:
                try:
                    pulled = ollama_models(ollama_host)
                except (OSError, ValueError):
                    reachable = False
            if not reachable:
                problems.append(
                    ModelProblem(
                        spec,
                        f"Ollama not reachable at {ollama_host}",
                        "start it (`ollama serve`) or choose the embedded model",
                    )
                )
            elif parsed.name not in (pulled or []):
                problems.append(
                    ModelProblem(
                        spec,
                        f"model {parsed.name!r} is not pulled on {ollama_host}",
                        f"run `ollama pull {parsed.name}` or choose another model",
                    )
                )
        elif parsed.provider == "openai":
            served = served or _openai_served(openai_url)
            listed, why = served
            if listed is None:
                problems.append(
                    ModelProblem(
                        spec,
                        why,
                        "start the server (vLLM, llama-server, LM Studio; see docs/models.md) and set "
                        "EXECUGRAPH_OPENAI_BASE_URL, or choose another model",
                    )
                )
            elif parsed.name not in listed:
                problems.append(
                    ModelProblem(
                        spec,
                        f"model {parsed.name!r} is not served by {openai_url} (it serves: {', '.join(listed) or 'none'})",
                        "pick one of those, or start the server with that model",
                    )
                )
        elif parsed.provider == "llamacpp":
            if parsed.name == "default":
                try:
                    embedded_model_path()
                except LLMError as exc:
                    problems.append(ModelProblem(spec, str(exc), "run `make run` to install the embedded model"))
            else:
                from pathlib import Path

                if not Path(parsed.name).is_file():
                    problems.append(
                        ModelProblem(
                            spec,
                            f"GGUF file not found: {parsed.name}",
                            "give the path of a .gguf file or choose the embedded model",
                        )
                    )
    return problems


def models_needed(config: RunConfig, problem: Problem) -> list[str]:
    """The model specs a trial of `problem` under `config` will call (for the pre-flight check)."""
    roles = ["generator"]
    roles += [r for r in ("planner", "reviewer", "optimizer", "explainer") if getattr(config, r)]
    if config.feedback_tests == "generated" or not problem.tests:
        roles.append("evaluator")  # the evaluator model writes the tests
    return list(dict.fromkeys(config.model_for(role) for role in roles))
