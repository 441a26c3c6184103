"""Arguments and steps shared by subcommands: ``--target``, ``--json``, ``--force``, loading a
verified module, writing an output file (through :mod:`tilesched.output_files`)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable

from xdsl.dialects.builtin import ModuleOp

from tilesched import output_files
from tilesched.diagnostics import TileschedErrors
from tilesched.input_files import DEFAULT_MAX_INPUT_BYTES, read_text
from tilesched.ir import parse_text, verify_module
from tilesched.target import Target, builtin_target_names, load_target


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", default="ascend-a2", metavar="T",
                        help="target name (" + ", ".join(builtin_target_names())
                        + ") or path to a target .toml (default: ascend-a2)")
    parser.add_argument("--json", action="store_true", help="machine-readable JSON output")
    add_input_limit_option(parser)


def add_input_limit_option(parser: argparse.ArgumentParser) -> None:
    """``--max-input-bytes N``: the most bytes one input file (or standard input) may have."""
    parser.add_argument("--max-input-bytes", type=byte_size, default=None, metavar="N",
                        help="most bytes an input file or standard input may have, e.g. 256M "
                             f"(default {DEFAULT_MAX_INPUT_BYTES >> 20}M)")


def load_verified(path: str, target: Target) -> ModuleOp:
    """Parse ``path`` and verify it against ``target`` (and its fusion annotations); errors are
    located and exit 2."""
    return read_verified(path, target)[1]


def read_verified(path: str, target: Target) -> tuple[str, ModuleOp]:
    """:func:`load_verified` that also returns the text read (``path`` is read once: it may be
    standard input)."""
    text = read_text(path)
    return text, verified(parse_text(text, "<stdin>" if path == "-" else path), target)


def verified(module: ModuleOp, target: Target) -> ModuleOp:
    """``module`` once it passes the verifier against ``target`` and its fusion annotations'
    checks (located errors, exit 2)."""
    from tilesched.analysis.fusion_annotations import annotation_errors
    from tilesched.analysis.last_use_check import last_use_errors

    verify_module(module, target)
    errors = annotation_errors(module) or last_use_errors(module, target)
    if errors:
        raise TileschedErrors(errors)
    return module


def add_memory_option(parser: argparse.ArgumentParser) -> None:
    """``--max-memory N``: the most memory a command that keeps every simulated op may plan to
    use (``sim/lowering/op_estimate.py``)."""
    from tilesched.sim.lowering.op_estimate import DEFAULT_MAX_MEMORY

    parser.add_argument("--max-memory", type=byte_size, default=DEFAULT_MAX_MEMORY, metavar="N",
                        help="refuse before the run a program whose simulated ops would need more "
                             "than N bytes, e.g. 4G (default "
                             f"{DEFAULT_MAX_MEMORY >> 30}G: peak memory under ~1.5 GB)")


def check_run_size(modules: list[ModuleOp], target: Target, args: argparse.Namespace,
                   command: str, steady: bool = False, already: int = 0) -> int:
    """Refuse, before the run, programs whose ops ``command`` keeps in memory (all of
    ``modules`` together, after ``already`` ops of programs checked before) would need more
    than ``--max-memory`` (nested trip counts multiplied; located at the loop responsible).
    Returns the ops estimated, ``already`` included."""
    from tilesched.sim.lowering.lower import Lowering, find_function, parse_arg_values
    from tilesched.sim.lowering.op_estimate import least_ops, memory_refusal, ops_within

    issuers = len(target.issuers)
    limit_ops = ops_within(command, issuers, args.max_memory)
    before = already  # ops of the programs already estimated
    for module in modules:
        lowering = Lowering(target, parse_arg_values(args.arg), strict_args=False)
        function = find_function(module, args.function)
        lowering.function(function)
        estimate = least_ops(lowering, function, limit_ops - before, steady)
        estimate.ops += before
        if (refusal := memory_refusal(estimate, command, issuers, args.max_memory)) is not None:
            raise refusal
        before = estimate.ops
    return before


def target_from_args(args: argparse.Namespace) -> Target:
    return load_target(args.target)


def simulated_target(target: Target) -> Target:
    """``target``: the simulator runs every target, split-core ones (``ascend-a2-mix``) on
    the whole per-core trace (docs/simulator.md, "Split cores")."""
    return target


def non_negative_int(text: str) -> int:
    """An argparse type: an integer >= 0 (a usage error, exit 2, otherwise)."""
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got '{text}'") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


_SIZE = re.compile(r"\s*([0-9]+)\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)


def byte_size(text: str) -> int:
    """An argparse type: bytes as ``1073741824``, ``512M``, ``4G``, ``2GiB`` (binary units),
    at least 1."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"expected a size such as 512M or 4G, got '{text}'")
    value = int(match.group(1)) << (10 * " kmgt".index(match.group(2).lower() or " "))
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 byte, got '{text}'")
    return value


def add_force_option(parser: argparse.ArgumentParser) -> None:
    """``--force``: let an output file overwrite one of the command's input files."""
    parser.add_argument("--force", action="store_true",
                        help="allow an output file to overwrite an input file")


def write_output(path: str, data: str | bytes, inputs: Iterable[str] = (), force: bool = False,
                 option: str = "output") -> None:
    """Write a command's output file atomically: a temporary file beside it, then a rename.

    A reader never sees a half-written file and a failed write leaves the old one intact. Refused
    with a clear :class:`~tilesched.diagnostics.TileschedError` (exit 2): an output that is one
    of the command's ``inputs`` (unless ``force``), a directory, or a path whose folder is missing
    or not writable. Commands call :func:`tilesched.output_files.check_output` with the same
    arguments before their work too, so a bad path is refused before minutes of computing.
    """
    output_files.check_output(path, inputs, force, option)
    output_files.write_output(path, data)
