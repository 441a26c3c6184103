"""``tilesched sim FILE [--arg n=16] [--trace OUT.json]``: simulate a program on a target.

Exit status (DESIGN.md §5): 0 when the program is free of races, deadlocks and sync violations;
1 when it is faulty; 2 on bad input (located message).
"""

from __future__ import annotations

import argparse
import json

from tilesched.commands.common import (
    add_common_arguments,
    add_force_option,
    load_verified,
    target_from_args,
)
from tilesched.diagnostics import TileschedError
from tilesched.output_files import check_output
from tilesched.report.chrome_trace import write_chrome_trace
from tilesched.report.sim_json import fused_spans, sim_json
from tilesched.report.sim_table import sim_table
from tilesched.sim.engine import simulate
from tilesched.sim.lower import lower_module, parse_arg_values
from tilesched.sim.trace import TraceError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``sim`` subcommand."""
    parser = sub.add_parser(
        "sim", help="simulate a program: cycles vs. bound, races, deadlocks, sync violations",
        description="Unroll FILE's function, execute it on the target's machine model and check "
                    "its synchronization (docs/simulator.md). Exit 1 when faulty.")
    parser.add_argument("file", metavar="FILE", help=".mlir input ('-' for standard input)")
    add_arg_option(parser)
    parser.add_argument("--trace", metavar="OUT.json",
                        help="write a Chrome trace-event file (open it in Perfetto)")
    add_force_option(parser)
    parser.add_argument("--function", metavar="NAME", help="function to simulate (default: the first)")
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def add_arg_option(parser: argparse.ArgumentParser) -> None:
    """``--arg NAME=VALUE`` (repeatable), shared with ``equiv``."""
    parser.add_argument("--arg", action="append", metavar="NAME=VALUE", default=[],
                        help="value of a scalar function argument (repeatable), e.g. --arg n=16")


def lower_file(path: str, target, args: argparse.Namespace, strict_args: bool = True):
    """Parse, verify and lower one file (bad input raises a located TileschedError)."""
    module = load_verified(path, target)
    try:
        return lower_module(module, target, parse_arg_values(args.arg), args.function, strict_args)
    except TraceError as err:
        raise TileschedError(str(err), path) from None


def run(args: argparse.Namespace) -> int:
    """Lower, simulate, report; 0 when correct, 1 when faulty."""
    if args.trace:
        check_output(args.trace, [args.file], args.force, option="--trace")
    target = target_from_args(args)
    trace = lower_file(args.file, target, args)
    result = simulate(trace, record=bool(args.trace))
    if args.trace:
        write_chrome_trace(result, args.trace)
    spans = fused_spans(trace)
    if args.json:
        print(json.dumps({**sim_json(result), "fused_spans": spans}, indent=2))
    else:
        print(sim_table(result, f"tilesched sim {args.file}"), end="")
        if spans:
            print(f"fused spans executed: {spans}")
    return 0 if result.ok else 1
