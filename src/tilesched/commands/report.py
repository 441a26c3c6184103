"""``tilesched report FILE [-p PIPELINE] [--arg ...] -o OUT.html``: an HTML report of a simulation.

Simulates FILE (and, with ``-p``, FILE after the pipeline: both runs side by side on one time
axis) and writes one self-contained HTML page (``docs/report.md``). Exit status as ``sim``: 0 when
the simulated program (after the pipeline, if given) is free of races, deadlocks and sync
violations, 1 when it is faulty (the report is written either way), 2 on bad input.
"""

from __future__ import annotations

import argparse
import functools
import json
import pathlib
import sys

from tilesched import output_files
from tilesched.commands.common import (
    add_common_arguments,
    add_force_option,
    add_memory_option,
    check_run_size,
    read_verified,
    simulated_target,
    target_from_args,
    write_output,
)
from tilesched.commands.sim import add_arg_option
from tilesched.diagnostics import TileschedError
from tilesched.ir import print_module, verify_module
from tilesched.report.html import RunInput, report_html
from tilesched.report.html.listing import listing, mark_changes, relocate
from tilesched.report.progress import PhaseProgress
from tilesched.sim.lowering.lower import find_function, lower_module, parse_arg_values
from tilesched.sim.lowering.op_estimate import ops_within
from tilesched.sim.run import simulate
from tilesched.sim.trace import TraceError
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``report`` subcommand."""
    parser = sub.add_parser(
        "report", help="simulate a program and write a self-contained HTML report",
        description="Simulate FILE (before and after PIPELINE, if given) and write one HTML file "
                    "that opens from disk with no network: a zoomable timeline per issuer and "
                    "unit, the sync that ordered each op, stalls, the critical path, live "
                    "events / groups / barrier phases, cycles vs bound, and every race, deadlock "
                    "and violation with its file:line:col (docs/report.md). Exit 1 when the "
                    "simulated program is faulty (the report is written anyway).")
    parser.add_argument("file", metavar="FILE", help=".mlir input ('-' for standard input)")
    parser.add_argument("-p", "--pipeline", default="", metavar="PIPELINE",
                        help="pass pipeline to run first; the report shows before and after")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.html",
                        help="the HTML file to write ('-': standard output)")
    add_arg_option(parser)
    parser.add_argument("--function", metavar="NAME", help="function to simulate (default: the first)")
    add_force_option(parser)
    add_memory_option(parser)
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Simulate, build the page, write it atomically; 0 when correct, 1 when faulty."""
    with PhaseProgress("tilesched report", args.json) as shown:
        return _run(args, shown)


def _run(args: argparse.Namespace, shown: PhaseProgress) -> int:
    target = simulated_target(target_from_args(args))
    pipeline = parse_pass_pipeline(args.pipeline) if args.pipeline.strip() else []
    output_files.check_output(args.output, [args.file], args.force)
    values = parse_arg_values(args.arg)
    text, module = read_verified(args.file, target)
    planned = check_run_size([module], target, args, "report")
    listings = [listing(_display_name(args.file), text)]
    room = ops_within("report", len(target.issuers), args.max_memory)  # bounds known in the run
    runs = [_simulate("before" if pipeline else "program", args, module, target, values, 0, None,
                      room, shown)]
    diagnostics: list[str] = []
    if pipeline:
        shown.phase("running the pipeline")
        printed = print_module(module)
        env = TileContext(target=target)
        run_pipeline(module, pipeline, env)
        diagnostics = [str(d) for d in env.diagnostics]
        for line in diagnostics:
            print(line, file=sys.stderr)
        try:
            verify_module(module)
        except TileschedError as err:
            raise TileschedError(f"internal error: the pipeline produced invalid IR:\n{err}") from None
        name = _after_name(args.file)
        after, after_text, origins = relocate(module, name)
        verify_module(after, target)
        check_run_size([after], target, args, "report", already=planned)
        listings.append(listing(name, after_text, mark_changes(printed, after_text)))
        kept = runs[0].trace.op_count() // len(target.issuers)
        runs.append(_simulate("after", args, after, target, values, 1, origins,
                              max(1, room - kept), shown))
    meta = {"tool": "tilesched report", "file": _display_name(args.file), "target": target.name,
            "pipeline": args.pipeline.strip() or None,
            "function": find_function(module, args.function).sym_name.data,
            "args": list(args.arg), "diagnostics": diagnostics}
    shown.phase("building the page")
    page = report_html(f"tilesched report: {meta['file']}", runs, listings, meta)
    shown.close()
    write_output(args.output, page, inputs=[args.file], force=args.force)
    final = runs[-1].result
    _print_summary(args, runs, len(page.encode()))
    return 0 if final.ok else 1


def _simulate(label: str, args, module, target, values, listing_index: int, origins,
              max_ops: int, shown: PhaseProgress) -> RunInput:
    """Lower (at most ``max_ops`` ops) and simulate one program with recording on."""
    shown.phase(f"lowering the {label} program" if label != "program" else "lowering")
    try:
        trace = lower_module(module, target, values, args.function, max_ops=max_ops)
    except TraceError as err:
        raise TileschedError(str(err), args.file) from None
    shown.phase(f"simulating {trace.op_count():,} ops" + (f" ({label})" if label != "program" else ""))
    return RunInput(label, trace, simulate(trace, record=True), listing_index, origins)


def _display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def _after_name(path: str) -> str:
    """Name of the transformed listing: ``k.mlir`` -> ``k.after.mlir`` (ops are located in it)."""
    if path == "-":
        return "<stdin>.after.mlir"
    p = pathlib.PurePath(path)
    return str(p.with_name(p.stem + ".after" + (p.suffix or ".mlir")))


def _print_summary(args, runs: list[RunInput], size: int) -> None:
    """One line per run (or ``--json``), then where the report went (on standard error when
    the page went to standard output, ``-o -``)."""
    out = sys.stderr if args.output == output_files.STDOUT else sys.stdout
    print_ = functools.partial(print, file=out)
    if args.json:
        print_(json.dumps({"output": args.output, "bytes": size, "runs": [
            {"label": r.label, "cycles": r.result.cycles, "bound": r.result.bound,
             "sync_ops": r.result.sync_ops, "races": len(r.result.races),
             "deadlock": r.result.deadlock is not None, "violations": len(r.result.violations),
             "ok": r.result.ok} for r in runs]}, indent=2))
        return
    for r in runs:
        res = r.result
        verdict = "ok" if res.ok else (f"FAULTY ({len(res.races)} races, "
                                       f"{'deadlock, ' if res.deadlock else ''}"
                                       f"{len(res.violations)} violations)")
        print_(f"{r.label:8} cycles {res.cycles}  bound {res.bound}  sync ops {res.sync_ops}  "
               f"{verdict}")
    where = "standard output" if args.output == output_files.STDOUT else args.output
    print_(f"wrote {where} ({size / 1e6:.2f} MB)")
