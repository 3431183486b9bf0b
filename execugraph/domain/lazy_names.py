"""A package's public names imported on first use (PEP 562), so importing the package stays cheap.

Why: `status` and the first dashboard page need one or two names of `execugraph.store` and `execugraph.stats`;
importing every submodule up front cost them most of their start-up.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, home: Mapping[str, str | tuple[str, str]], public: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's `__getattr__` and `__dir__`: `home` maps a name to its submodule (or to (submodule, attribute)
    where it is named differently there); any other name in `public` is a submodule. A value, once looked up, is
    kept in the package's namespace, so later lookups are plain attribute reads."""

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's own name
        if name in home:
            where = home[name]
            module, attr = (where, name) if isinstance(where, str) else where
            value = getattr(importlib.import_module(f"{package}.{module}"), attr)
        elif name in public:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted({*vars(sys.modules[package]), *public})

    return __getattr__, __dir__
