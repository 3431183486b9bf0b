"""`plugins`: what the installed plugins (and the built-ins) register, and which plugins failed to load."""

from __future__ import annotations

import argparse
import json


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the registry as JSON")
    parser.add_argument("--all", action="store_true", help="list the built-ins too, not only installed plugins")


def _rows(args: argparse.Namespace) -> dict[str, list[dict[str, str]]]:
    from execugraph.plugins import registry

    reg = registry()

    def keep(plugin: str) -> bool:
        return args.all or not plugin.startswith("execugraph:")

    return {
        "benchmarks": [{"name": e.name, "plugin": e.plugin, "file": str(e.needs_path).lower(),
                        "description": e.description} for e in reg.benchmarks.values() if keep(e.plugin)],
        "conditions": [{"name": e.name, "plugin": e.plugin, "description": e.description}
                       for e in reg.conditions.values() if keep(e.plugin)],
        "loops": [{"name": e.name, "plugin": e.plugin, "description": e.description}
                  for e in reg.loops.values() if keep(e.plugin)],
        "agents": [{"name": e.name, "plugin": e.plugin, "description": f"after {e.follows}" if e.follows else ""}
                   for e in reg.agents.values() if keep(e.plugin)],
        "providers": [{"name": e.prefix, "plugin": e.plugin, "description": e.description}
                      for e in reg.providers.values() if keep(e.plugin)],
        "result_formats": [{"name": e.name, "plugin": e.plugin, "description": e.description}
                           for e in reg.result_formats.values() if keep(e.plugin)],
        "errors": [{"plugin": name, "error": error} for name, error in reg.errors.items()],
    }


def _write(text: str) -> None:
    print(text, end="")


def run(args: argparse.Namespace) -> int:
    from execugraph.plugins import registry

    rows = _rows(args)
    if args.json:
        plugins = {name: module for name, module in registry().plugins.items()
                   if args.all or not name.startswith("execugraph:")}
        _write(json.dumps({"plugins": plugins, **rows}, indent=2) + "\n")
        return 1 if rows["errors"] else 0
    outside = [n for n in registry().plugins if not n.startswith("execugraph:")]
    _write(f"installed plugins: {', '.join(outside) if outside else 'none'} (entry-point group 'execugraph')\n")
    for kind, entries in rows.items():
        if kind == "errors" or not entries:
            continue
        _write(f"{kind.replace('_', ' ')}:\n")
        for entry in entries:
            note = entry.get("description", "")
            _write(f"  {entry['name']:<24} {entry['plugin']:<28} {note}\n")
    for error in rows["errors"]:
        _write(f"error: plugin {error['plugin']}: {error['error']}\n")
    return 1 if rows["errors"] else 0
