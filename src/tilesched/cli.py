"""The ``tilesched`` command line (DESIGN.md §5).

Each subcommand lives in ``tilesched.commands.<name>`` and exposes
``register(subparsers)``, which adds its parser and sets ``func(args) -> int``.
Exit status: 0 success, 1 the program was checked and found faulty, 2 bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from tilesched.diagnostics import TileschedError

# Subcommand modules, in the order `tilesched --help` lists them.
COMMANDS = ["demo", "opt", "sim", "equiv", "modulo", "targets", "passes", "tune"]


class _ArgumentParser(argparse.ArgumentParser):
    """argparse exits with 2 on usage errors already; keep its message short."""


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog="tilesched",
        description="Schedule, synchronize and verify tile programs for multi-unit accelerators.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"tilesched.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"tilesched.commands.{name}":
                continue  # not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except TileschedError as err:
        print(str(err), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
