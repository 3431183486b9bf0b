"""The built-in benchmarks, registered through the plugin hook like an outside package's."""

from __future__ import annotations

from typing import Any

from execugraph.plugins.hookspecs import hookimpl


@hookimpl
def register_benchmarks(register: Any) -> None:
    from execugraph import benchmarks

    spellings: dict[str, list[str]] = {}
    for spelling, name in benchmarks.BUILT_IN_SPELLINGS.items():
        spellings.setdefault(name, []).append(spelling)
    for name, loader in benchmarks.BUILT_IN_LOADERS.items():
        register(name, loader, needs_path=name in benchmarks.FILE_BENCHMARKS, spellings=spellings.get(name, ()),
                 description=benchmarks.BUILT_IN_DESCRIPTIONS.get(name, ""),
                 reference=benchmarks.BUILT_IN_REFERENCES.get(name), prepare=benchmarks.BUILT_IN_PREPARE.get(name))
