"""``tilesched passes``: every pass with its summary and options (read from the pass classes)."""

from __future__ import annotations

import argparse
import json

from tilesched.diagnostics import TileschedError
from tilesched.transforms.pass_base import describe_option, option_specs
from tilesched.transforms.registry import available_passes


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("passes", help="list the passes and their options",
                            description="List every pass of `opt -p` with its options, defaults "
                                        "and valid values, as the passes declare them.")
    parser.add_argument("names", nargs="*", metavar="PASS", help="passes to show (default: all)")
    parser.add_argument("--json", action="store_true", help="machine-readable JSON output")
    parser.set_defaults(func=run)


def describe(cls: type) -> dict:
    """A JSON-friendly description of a pass class: summary and declared options."""
    options = {}
    for name, spec in option_specs(cls).items():
        options[name.replace("_", "-")] = {
            "default": getattr(cls, name), "help": spec.help, "low": spec.low, "high": spec.high,
            "choices": list(spec.choices) if spec.choices else None,
            "tune": list(spec.tune) if spec.tune else None}
    return {"name": cls.name, "summary": _summary(cls), "role": cls.role,
            "families": sorted(cls.families) if cls.families is not None else None,
            "needs": sorted(cls.needs), "provides": sorted(cls.provides), "options": options}


def run(args: argparse.Namespace) -> int:
    passes = available_passes()
    unknown = [n for n in args.names if n not in passes]
    if unknown:
        raise TileschedError(f"unknown pass '{unknown[0]}'; valid passes: " + ", ".join(passes))
    chosen = [passes[n] for n in (args.names or passes)]
    if args.json:
        print(json.dumps([describe(cls) for cls in chosen], indent=2))
        return 0
    for cls in chosen:
        print(f"{cls.name}: {_summary(cls)}")
        print(f"  [{_placement(cls)}]")
        for name, spec in option_specs(cls).items():
            print(f"  {describe_option(cls, name)}  {spec.help}")
    return 0


def _summary(cls: type) -> str:
    return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""


def _placement(cls: type) -> str:
    """Where the pass goes in pipelines (role, target families, what it needs and provides)."""
    parts = [cls.role, "targets: " + ("|".join(sorted(cls.families)) if cls.families else "all")]
    if cls.needs:
        parts.append("needs " + "|".join(sorted(cls.needs)))
    if cls.provides:
        parts.append("provides " + ", ".join(sorted(cls.provides)))
    return "; ".join(parts)
