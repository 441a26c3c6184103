"""``tilesched equiv A B [--arg ...]``: does B compute what A means?

A runs in program order (each op finishes before the next), B on the simulator with its real
concurrency, both on the same seeded inputs; exit 1 if any function-argument buffer differs
(or B deadlocks), 0 if they agree, 2 on bad input: programs whose argument buffers differ in
number, shape or element type cannot be compared, and a program whose buffers need more than
``--max-bytes`` of data is refused before anything is allocated.
"""

from __future__ import annotations

import argparse
import json

from tilesched.commands.common import (
    add_common_arguments,
    add_memory_option,
    byte_size,
    check_run_size,
    load_verified,
    non_negative_int,
    simulated_target,
    target_from_args,
)
from tilesched.commands.sim import add_arg_option, lower_file
from tilesched.diagnostics import TileschedError
from tilesched.report.progress import PhaseProgress
from tilesched.report.sim_json import equiv_json
from tilesched.report.sim_table import findings_lines
from tilesched.sim.functional import DEFAULT_MAX_BYTES, equivalent, signature_mismatch
from tilesched.sim.lowering.op_estimate import ops_within


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``equiv`` subcommand."""
    parser = sub.add_parser(
        "equiv", help="check that B computes what A means (numpy execution on seeded inputs)",
        description="Run A in program order and B with its simulated concurrency on the same "
                    "seeded inputs; compare every function-argument buffer. Exit 1 if they differ.")
    parser.add_argument("a", metavar="A", help="reference program (.mlir)")
    parser.add_argument("b", metavar="B", help="candidate program (.mlir)")
    add_arg_option(parser)
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="seed of the random inputs, >= 0 (default 0)")
    parser.add_argument("--max-bytes", type=byte_size, default=DEFAULT_MAX_BYTES, metavar="N",
                        help="most buffer data one program may allocate, e.g. 512M or 4G "
                             "(default 1G = 1 GiB)")
    add_memory_option(parser)
    parser.add_argument("--function", metavar="NAME", help="function to run (default: the first)")
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Lower both programs, compare them; 0 when equivalent, 1 otherwise."""
    with PhaseProgress("tilesched equiv", args.json) as shown:
        return _run(args, shown)


def _run(args: argparse.Namespace, shown: PhaseProgress) -> int:
    if args.a == "-" and args.b == "-":
        raise TileschedError("A and B are both standard input ('-'); it can be read once: "
                             "give at least one of them as a file")
    target = simulated_target(target_from_args(args))
    modules = [load_verified(path, target) for path in (args.a, args.b)]
    check_run_size(modules, target, args, "equiv")
    shown.phase("lowering A and B")
    room = ops_within("equiv", len(target.issuers), args.max_memory)  # bounds known in the run
    reference = lower_file(args.a, target, args, strict_args=False, module=modules[0],
                           max_ops=room)
    candidate = lower_file(args.b, target, args, strict_args=False, module=modules[1],
                           max_ops=max(1, room - reference.op_count() // len(target.issuers)))
    if problem := signature_mismatch(reference, candidate):
        raise TileschedError(f"{args.a} and {args.b} cannot be compared: {problem}")
    shown.phase(f"running A ({reference.op_count():,} ops) in order and simulating B "
                f"({candidate.op_count():,} ops)")
    verdict = equivalent(reference, candidate, args.seed, args.max_bytes)
    shown.close()
    if args.json:
        print(json.dumps(equiv_json(verdict), indent=2))
        return 0 if verdict.equivalent else 1
    word = "equivalent" if verdict.equivalent else "NOT equivalent"
    print(f"tilesched equiv {args.a} {args.b}: {word} (seed {args.seed})")
    for problem in verdict.problems:
        print(f"  {problem}")
    for m in verdict.mismatches:
        print(f"  {m.buffer}: {m.elements} element(s) differ, max |diff| {m.max_abs_diff:.6g}, "
              f"first at {list(m.first_index or ())}")
    if not verdict.candidate.ok:
        print("  note: B's synchronization is faulty:")
        print("\n".join("  " + line for line in findings_lines(verdict.candidate)[1:]))
    return 0 if verdict.equivalent else 1
