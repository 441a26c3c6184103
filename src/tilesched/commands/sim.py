"""``tilesched sim FILE [--arg n=16] [--trace OUT.json] [--full] [--max-ops N]``: simulate.

The program is lowered as it runs (``sim/code/stream.py``); loops whose state becomes periodic are
extrapolated exactly (``sim/engine/steady.py``) unless ``--full``; ``--max-ops`` bounds the ops simulated
one by one. Exit status (DESIGN.md §5): 0 when the program is free of races, deadlocks and sync
violations; 1 when it is faulty; 2 on bad input (located message); an interrupted run (Ctrl-C)
prints what was simulated so far.
"""

from __future__ import annotations

import argparse
import json
import sys

from xdsl.dialects import scf

from tilesched.commands.common import (
    add_common_arguments,
    add_force_option,
    add_memory_option,
    check_run_size,
    load_verified,
    simulated_target,
    target_from_args,
)
from tilesched.diagnostics import TileschedError
from tilesched.ir.text import location_of
from tilesched.output_files import STDOUT, check_output
from tilesched.report import progress
from tilesched.report.chrome_trace import write_chrome_trace
from tilesched.report.sim_json import sim_json
from tilesched.report.sim_table import sim_table
from tilesched.sim.code.program import compile_trace
from tilesched.sim.code.stream import stream_module
from tilesched.sim.lowering.lower import (
    MAX_OPS,
    Lowering,
    find_function,
    lower_module,
    parse_arg_values,
)
from tilesched.sim.lowering.op_estimate import least_ops, refusal
from tilesched.sim.run import Runner, runner
from tilesched.sim.trace import TraceError

DEFAULT_MAX_OPS = 2_000_000


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``sim`` subcommand."""
    parser = sub.add_parser(
        "sim", help="simulate a program: cycles vs. bound, races, deadlocks, sync violations",
        description="Unroll FILE's function, execute it on the target's machine model and check "
                    "its synchronization (docs/simulator.md). Exit 1 when faulty.")
    parser.add_argument("file", metavar="FILE", help=".mlir input ('-' for standard input)")
    add_arg_option(parser)
    parser.add_argument("--trace", metavar="OUT.json",
                        help="write a Chrome trace-event file (open it in Perfetto; '-': standard "
                             "output, the summary then goes to standard error)")
    add_force_option(parser)
    add_memory_option(parser)
    parser.add_argument("--function", metavar="NAME", help="function to simulate (default: the first)")
    parser.add_argument("--full", action="store_true",
                        help="simulate every iteration of every loop (no steady-state "
                             "extrapolation; the verdict and cycles are the same)")
    parser.add_argument("--max-ops", type=_positive, default=DEFAULT_MAX_OPS, metavar="N",
                        help="stop with an error before simulating more than N ops one by one "
                             f"(default {DEFAULT_MAX_OPS:,}; extrapolated loops do not count)")
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def _positive(text: str) -> int:
    """An ``--max-ops`` value: a positive integer (``2e6`` and ``2_000_000`` work too)."""
    try:
        value = int(float(text)) if any(c in text for c in ".eE") else int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return value


def add_arg_option(parser: argparse.ArgumentParser) -> None:
    """``--arg NAME=VALUE`` (repeatable), shared with ``equiv``."""
    parser.add_argument("--arg", action="append", metavar="NAME=VALUE", default=[],
                        help="value of a scalar function argument (repeatable), e.g. --arg n=16")


def lower_file(path: str, target, args: argparse.Namespace, strict_args: bool = True,
               module=None, max_ops: int = MAX_OPS):
    """Parse, verify (unless ``module`` is ``path`` already verified) and lower one file into at
    most ``max_ops`` ops (bad input raises a located TileschedError)."""
    if module is None:
        module = load_verified(path, target)
    try:
        return lower_module(module, target, parse_arg_values(args.arg), args.function, strict_args,
                            max_ops)
    except TraceError as err:
        raise TileschedError(str(err), path) from None


def stream_parsed(module, path: str, target, args: argparse.Namespace,
                  max_ops: int | None = None):
    """Prepare a parsed and verified file for streamed simulation (located errors)."""
    try:
        return stream_module(module, target, parse_arg_values(args.arg), args.function,
                             max_ops=max_ops)
    except TraceError as err:
        raise TileschedError(str(err), path) from None


def run(args: argparse.Namespace) -> int:
    """Lower, simulate, report; 0 when correct, 1 when faulty."""
    if args.trace:
        check_output(args.trace, [args.file], args.force, option="--trace")
    target = simulated_target(target_from_args(args))
    simulation = _runner(args, target)
    try:
        result = _simulate(simulation, args.file)
    except KeyboardInterrupt:
        print(interrupted(simulation), file=sys.stderr)
        raise
    finally:
        simulation.close()
    if args.trace:
        write_chrome_trace(result, args.trace)
    spans = simulation.p.spans
    out = sys.stderr if args.trace == STDOUT else sys.stdout  # the trace took standard output
    if args.json:
        print(json.dumps({**sim_json(result), "fused_spans": spans}, indent=2), file=out)
    else:
        print(sim_table(result, f"tilesched sim {args.file}"), end="", file=out)
        if spans:
            print(f"fused spans executed: {spans}", file=out)
    return 0 if result.ok else 1


def _runner(args: argparse.Namespace, target) -> Runner:
    """The simulation for this command line (:func:`~tilesched.sim.run.runner`): every op
    (the compiled core when it can) under ``--full`` and for functions without loops; else the
    Python engine with steady-state detection or recording. The file is read once (a full run
    may lower it twice)."""
    show = progress.SimProgress if progress.wanted(args.json) else None
    module = load_verified(args.file, target)
    steady = not args.full and not args.trace  # a recorded run simulates every op
    check_max_ops(module, target, args, steady)
    if args.trace:
        check_run_size([module], target, args, "sim --trace")

    if target.cores:  # split cores: the whole per-core trace, every op (docs/simulator.md)
        def make_trace_program():
            program = compile_trace(lower_file(args.file, target, args, module=module,
                                               max_ops=args.max_ops))
            program.spans = 0
            return program

        return runner(make_trace_program, full=True, record=bool(args.trace), loops=False,
                      progress_for=None)

    def make_program():
        return stream_parsed(module, args.file, target, args, args.max_ops)

    return runner(make_program, full=args.full, record=bool(args.trace),
                  loops=_has_loops(module, args.function), progress_for=show)


def check_max_ops(module, target, args: argparse.Namespace, steady: bool) -> None:
    """Refuse before the run a program that simulates more than ``--max-ops`` ops one by one
    for certain (nested trip counts multiplied: ``sim/lowering/op_estimate.py``), naming the loop."""
    lowering = Lowering(target, parse_arg_values(args.arg))
    lowering.function(find_function(module, args.function))
    estimate = least_ops(lowering, find_function(module, args.function), args.max_ops, steady)
    if estimate.ops > args.max_ops:
        mode = "simulating every iteration" if not steady else "simulating it"
        raise refusal(estimate, args.max_ops, mode)


def _has_loops(module, function: str | None) -> bool:
    """Does the simulated function contain an ``scf.for``?"""
    return any(isinstance(op, scf.ForOp) for op in find_function(module, function).walk())


def _simulate(run: Runner, path: str):
    """Run the simulation; a malformed op becomes a located error."""
    try:
        return run.run()
    except TraceError as err:
        raise TileschedError(str(err), path) from None


def interrupted(run: Runner) -> str:
    """What an interrupted simulation got through (printed on Ctrl-C)."""
    program = run.p
    if program is None:
        return "tilesched sim: interrupted before the simulation started"
    done, total = program.progress()
    cycle, races, kinds = run.so_far()
    lines = [f"tilesched sim: interrupted after simulating {program.simulated:,} ops "
             f"({done:,} of about {total:,} counting extrapolated loops)",
             f"  reached cycle {cycle:,}"]
    for frame in program.lowering.frames:
        lines.append(f"  loop at {location_of(frame.op) or '?'}: iteration {frame.current + 1:,} "
                     f"of {frame.trips:,}")
    lines.append(f"  so far: {races} race(s), {kinds} violation kind(s)")
    return "\n".join(lines)
