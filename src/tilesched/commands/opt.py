"""``tilesched opt FILE -p PIPELINE [-o OUT]``: run passes and print the resulting IR."""

from __future__ import annotations

import argparse
import json
import sys

from tilesched.commands.common import (
    add_common_arguments,
    add_force_option,
    load_verified,
    target_from_args,
)
from tilesched.diagnostics import TileschedError
from tilesched.ir import print_module, verify_module
from tilesched.output_files import check_output, write_output
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, pass_names, run_pipeline


def register(sub: argparse._SubParsersAction) -> None:
    passes = ", ".join(pass_names())  # names only: importing every pass takes over a second
    parser = sub.add_parser(
        "opt", help="run a pass pipeline on a .mlir file and print the result",
        description=f"Parse FILE, verify it against the target, run PIPELINE, print IR. Passes: {passes}.",
    )
    parser.add_argument("file", metavar="FILE", help=".mlir input ('-' for standard input)")
    parser.add_argument("-p", "--pipeline", default="", metavar="PIPELINE",
                        help='comma-separated passes with options, e.g. "reorder-events{strategy=min-max},insert-sync"')
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="write the result here instead of stdout (atomically; never over FILE "
                             "without --force)")
    add_force_option(parser)
    parser.add_argument("--generic", action="store_true", help="print the generic MLIR form")
    parser.add_argument("--verbose", action="store_true",
                        help="also print the passes' remarks (what they decided and why)")
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.output:
        check_output(args.output, [args.file], args.force)
    target = target_from_args(args)
    pipeline = parse_pass_pipeline(args.pipeline) if args.pipeline.strip() else []
    module = load_verified(args.file, target)
    env = TileContext(target=target)
    run_pipeline(module, pipeline, env)
    for diagnostic in env.diagnostics:
        if diagnostic.severity != "remark" or args.verbose:
            print(diagnostic, file=sys.stderr)
    try:
        if any(p.name != "verify" for p in pipeline):  # else unchanged since load_verified
            verify_module(module)
    except TileschedError as err:
        raise TileschedError(f"internal error: the pipeline produced invalid IR:\n{err}") from None
    text = "".join(env.output) if env.output else print_module(module, generic=args.generic)
    if args.json:
        text = json.dumps({"ir": text, "diagnostics": [str(d) for d in env.diagnostics]}) + "\n"
    if args.output:
        write_output(args.output, text)
    else:
        sys.stdout.write(text)
    return 0
