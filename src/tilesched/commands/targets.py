"""``tilesched targets``: list machine models with their units, spaces and sync limits."""

from __future__ import annotations

import argparse
import json

from tilesched.target import Target, builtin_target_names, load_target


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("targets", help="list the built-in targets (or describe TOML files)",
                            description="List machine models: units, memory spaces, sync family and limits.")
    parser.add_argument("names", nargs="*", metavar="TARGET", help="names or .toml paths (default: all built-ins)")
    parser.add_argument("--json", action="store_true", help="machine-readable JSON output")
    parser.set_defaults(func=run)


def describe(target: Target) -> dict:
    """A JSON-friendly summary of a target."""
    return {
        "name": target.name,
        "description": target.description,
        "sync": target.sync,
        "event_limit": target.event_limit,
        "issuers": list(target.issuers),
        "frequency_hz": target.frequency_hz,
        "units": {u.name: {"kind": u.kind, "pipelined": u.pipelined} for u in target.units.values()},
        "spaces": {s.name: {"capacity": s.capacity, "global": s.is_global} for s in target.spaces.values()},
        "cores": {c.name: {"issuer": c.issuer, "units": list(c.units), "spaces": list(c.spaces)}
                  for c in target.cores.values()},
        "cross_event_limit": target.cross_event_limit,
    }


def _sync_summary(target: Target) -> str:
    if target.sync == "flags":
        within = " within a core" if target.cores else ""
        return (f"flags: set_flag/wait_flag, {target.event_limit} event ids per directed unit "
                f"pair{within}")
    if target.sync == "groups":
        queues = sorted({r.async_queue for r in target.routes if r.async_queue is not None})
        return f"groups: commit_group/wait_group on async queue(s) {queues}"
    return f"barriers: counter-based sync.barrier across issuer groups {', '.join(target.issuers)}"


def run(args: argparse.Namespace) -> int:
    targets = [load_target(name) for name in (args.names or builtin_target_names())]
    if args.json:
        print(json.dumps([describe(t) for t in targets], indent=2))
        return 0
    for target in targets:
        print(f"{target.name}: {target.description}")
        print(f"  issuers: {', '.join(target.issuers)}")
        units = ", ".join(f"{u.name} ({u.kind}{', pipelined' if u.pipelined else ''})"
                          for u in target.units.values())
        print(f"  units:   {units}")
        spaces = ", ".join(f"{s.name} ({'global' if s.is_global else _kib(s.capacity)})"
                           for s in target.spaces.values())
        print(f"  spaces:  {spaces}")
        print(f"  sync:    {_sync_summary(target)}")
        if target.cores:
            cores = "; ".join(f"{c.name} ({', '.join(c.units)}; owns {', '.join(c.spaces)})"
                              for c in target.cores.values())
            print(f"  cores:   {cores}")
            print(f"           cross-core flags (sync.cross_set/cross_wait): "
                  f"{target.cross_event_limit} ids")
        if target.frequency_hz:
            print(f"  clock:   {target.frequency_hz / 1e9:g} GHz (times in microseconds)")
    return 0


def _kib(capacity: int | None) -> str:
    return "unbounded" if capacity is None else f"{capacity // 1024} KiB"
