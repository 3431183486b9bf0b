"""A batch's model axis: several models run under the same conditions, each arm named `<condition>@<model label>`.

An arm's name is what its trials record as their condition, so the statistics pair the models' arms by
problem like any other conditions. A retry budget suffix is digits only (`single-retry@2`); a model label
never is, so `single-retry@2@qwen-7b` reads back as condition `single-retry@2` on the model labelled `qwen-7b`.
"""

from __future__ import annotations

import re

_LABEL = re.compile(r"^[A-Za-z0-9_.:/+-]+$")


def parse_models(text: str) -> dict[str, str]:
    """`A,B` or `label=A,label2=B` -> {label: spec}, labels defaulting to the spec without its provider prefix.

    Raises ValueError naming the entry for an empty list, a bad model spec or label, or a repeated one.
    """
    entries = [part.strip() for part in str(text).split(",") if part.strip()]
    if not entries:
        raise ValueError("--models: no models given; use e.g. ollama:qwen2.5-coder:7b,ollama:llama3.1:8b")
    pairs: list[tuple[str | None, str]] = []
    for entry in entries:
        label, sep, spec = entry.partition("=")
        pairs.append((label.strip(), spec.strip()) if sep else (None, entry))
    short = [spec.partition(":")[2] or spec for _, spec in pairs]
    labels = [label if label is not None else (s if short.count(s) == 1 and not s.isdigit() else spec)
              for (label, spec), s in zip(pairs, short, strict=True)]
    return check_axis(dict_checked(labels, [spec for _, spec in pairs]))


def dict_checked(labels: list[str], specs: list[str]) -> dict[str, str]:
    """labels and specs as one mapping; ValueError naming a label or model given twice."""
    axis: dict[str, str] = {}
    for label, spec in zip(labels, specs, strict=True):
        if spec in axis.values():
            raise ValueError(f"model axis: model {spec!r} is listed twice")
        if label in axis:
            raise ValueError(f"model axis: label {label!r} is given twice ({axis[label]} and {spec}); "
                             "name them with LABEL=SPEC")
        axis[label] = spec
    return axis


def check_axis(axis: dict[str, str]) -> dict[str, str]:
    """Every label usable in an arm name and every spec a model this installation can build; ValueError names it."""
    from execugraph.providers.model_spec import LLMError, parse_spec

    for label, spec in axis.items():
        if not _LABEL.match(label) or label.isdigit():
            raise ValueError(f"model axis: bad label {label!r} for {spec!r}: use letters, digits and . _ : / + - "
                             "(not digits alone, which read as a retry budget); set one with LABEL=SPEC")
        try:
            parse_spec(spec)
        except LLMError as exc:
            raise ValueError(f"model axis (label {label!r}): {exc}") from None
    if len(set(axis.values())) != len(axis):
        raise ValueError("model axis: a model is listed twice")
    return axis


def arm_name(condition: str, label: str) -> str:
    """The arm of `condition` on the model labelled `label`."""
    return f"{condition.strip()}@{label}"


def split_arm(name: str) -> tuple[str, str | None]:
    """`single-retry@2@qwen` -> ("single-retry@2", "qwen"); a name without a model label -> (name, None)."""
    base, sep, tail = name.strip().rpartition("@")
    if not sep or tail.isdigit() or not _LABEL.match(tail):
        return name.strip(), None
    return base, tail
