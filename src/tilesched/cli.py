"""The ``tilesched`` command line (DESIGN.md §5).

Each subcommand lives in ``tilesched.commands.<name>`` and exposes
``register(subparsers)``, which adds its parser and sets ``func(args) -> int``. Only the module
of the command being run is imported (the others import xDSL, OR-Tools, numpy, rich: over a
second together); ``tilesched --help`` lists the others by the ``help=`` of their
``add_parser`` call, read from their source, and ``--version`` imports nothing.
Exit status: 0 success, 1 the program was checked and found faulty, 2 bad input or usage,
3 internal error (a bug in tilesched: any exception that is not a located
:class:`TileschedError`; the message asks to report it), 130 interrupted. Exit 1 is never used
for a crash: it always means "your program is faulty".
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import os
import pathlib
import sys
import traceback
from collections.abc import Collection

from tilesched import __version__
from tilesched.diagnostics import TileschedError
from tilesched.input_files import set_max_input_bytes

EXIT_INTERNAL_ERROR = 3
EXIT_INTERRUPTED = 130

# Subcommand modules, in the order `tilesched --help` lists them.
COMMANDS = ["demo", "opt", "sim", "report", "equiv", "modulo", "targets", "passes", "tune",
            "run-cpp"]


class _ArgumentParser(argparse.ArgumentParser):
    """argparse exits with 2 on usage errors already; keep its message short."""


def build_parser(load: Collection[str] = COMMANDS) -> argparse.ArgumentParser:
    """The ``tilesched`` parser: the commands in ``load`` fully registered, the others listed by
    their one-line help only (enough for ``tilesched --help`` and for naming a wrong command)."""
    parser = _ArgumentParser(
        prog="tilesched",
        description="Schedule, synchronize and verify tile programs for multi-unit accelerators.",
    )
    parser.add_argument("--version", action="version", version=f"tilesched {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        summary = None if name in load else _summary(name)
        if summary is not None:
            sub.add_parser(name, help=summary)
            continue
        try:
            module = importlib.import_module(f"tilesched.commands.{name.replace('-', '_')}")
        except ModuleNotFoundError as exc:
            if exc.name == f"tilesched.commands.{name.replace('-', '_')}":
                continue  # not built yet
            raise
        module.register(sub)
    return parser


def _summary(name: str) -> str | None:
    """The ``help=`` string of command ``name``'s ``add_parser`` call, read from its source
    without importing it; None when it is not a plain string (then the module is imported)."""
    spec = importlib.util.find_spec(f"tilesched.commands.{name.replace('-', '_')}")
    if spec is None or spec.origin is None:
        return None
    tree = ast.parse(pathlib.Path(spec.origin).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_parser":
            for keyword in node.keywords:
                if keyword.arg == "help" and isinstance(keyword.value, ast.Constant) \
                        and isinstance(keyword.value.value, str):
                    return keyword.value.value
    return None


def _command_in(argv: list[str]) -> str | None:
    """The subcommand ``argv`` runs: its first word that is not an option (the top level has
    only ``-h`` and ``--version``, which take no value), if it names one."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return word if word in COMMANDS else None


def main(argv: list[str] | None = None) -> int:
    command = _command_in(sys.argv[1:] if argv is None else argv)
    parser = build_parser([command] if command else [])
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        set_max_input_bytes(getattr(args, "max_input_bytes", None))
        return int(args.func(args) or 0)
    except TileschedError as err:
        print(str(err), file=sys.stderr)
        return 2
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except KeyboardInterrupt:
        print("tilesched: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as err:  # noqa: BLE001 - every other exception is our bug: say so, exit 3
        report_internal_error(err, argv)
        return EXIT_INTERNAL_ERROR


def report_internal_error(err: BaseException, argv: list[str] | None) -> None:
    """Print an unexpected exception as an internal error with where it happened and a hint to
    report it (the full traceback when ``TILESCHED_TRACEBACK=1``)."""
    if os.environ.get("TILESCHED_TRACEBACK") == "1":
        traceback.print_exception(err, file=sys.stderr)
    frames = traceback.extract_tb(err.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name})" if frames else ""
    detail = str(err).strip().splitlines()
    command = " ".join(argv if argv is not None else sys.argv[1:])
    print(f"tilesched: internal error: {type(err).__name__}"
          f"{': ' + detail[0] if detail else ''}{where}\n"
          f"This is a bug in tilesched {__version__}, not in your input. Please report it "
          f"to the tilesched developers with the command (tilesched {command}) and its input files; "
          "TILESCHED_TRACEBACK=1 prints the full traceback.", file=sys.stderr)


def _silence_stdout() -> None:
    """After a closed pipe (``tilesched ... | head``) Python's final flush would fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
