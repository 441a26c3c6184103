"""Fingerprints of everything fuse-tiles decides, to prove a speed-up changes none of it.

``python benchmarks/check_fuse_plans.py --save FILE`` before a change, ``--compare FILE`` after:
for the Ascend examples, the lit inputs of fuse-tiles, bench_fuse's 5,000-op kernel and random
kernels (straight-line blocks and blocks inside constant and unknown-trip loops), it records a
digest of

- the liveness facts (last-use flags and escapes of every tile op, in program order),
- every segment's fusion graph (nodes, dependence edges, dataflow edges),
- the search's and the greedy planner's plans of every segment (groups, cost, order),
- the printed IR after ``fuse-tiles`` and after ``fuse-tiles,insert-sync``;

``--compare`` lists every case and part whose digest differs (exit 1) and exits 0 when all
agree. Takes about a minute on an idle core.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import random
import sys

from bench_fuse import A2, big_kernel, random_block

from tilesched.analysis.fusion_liveness import function_liveness
from tilesched.diagnostics import TileschedErrors
from tilesched.examples import example_path
from tilesched.ir import parse_text, print_module, verify_module
from tilesched.ir.blocks import functions
from tilesched.schedule.fusion.search import plan_greedy, plan_segment
from tilesched.target import load_target
from tilesched.transforms.fuse_tiles.segments import block_segments
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

ROOT = pathlib.Path(__file__).resolve().parent.parent
LIT = ROOT / "tests" / "lit" / "fuse_tiles"
EXAMPLES = ("ascend_softmax", "ascend_layernorm", "ascend_attention_epilogue", "ascend_attention",
            "ascend_gemm")


def looped_block(rng: random.Random, ops: int, trips: str) -> str:
    """A random block whose middle runs in an ``scf.for`` (``trips``: a constant or ``%n``)."""
    lines = random_block(rng, ops).splitlines()
    body = [k for k, line in enumerate(lines) if line.startswith("  tile.")]
    lo, hi = body[len(body) // 3], body[2 * len(body) // 3]
    head = lines[0].replace("%y: ", "%n: index, %y: ")
    loop = ["  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index",
            f"  %c3 = arith.constant {trips} : index" if trips != "%n" else "",
            f"  scf.for %i = %c0 to {'%c3' if trips != '%n' else '%n'} step %c1 {{",
            *[f"  {line}" for line in lines[lo:hi]], "  }"]
    return "\n".join([head, *lines[1:lo], *[x for x in loop if x], *lines[hi:]]) + "\n"


def cases() -> dict[str, tuple[str, object]]:
    """name -> (MLIR text, target)."""
    found = {name: (example_path(name).read_text(), A2) for name in EXAMPLES}
    for path in sorted(LIT.glob("*.mlir")):
        text = path.read_text()
        if "ascend-4-tiles.toml" in text:
            target = load_target(str(LIT / "Inputs" / "ascend-4-tiles.toml"))
        elif "--target ascend-a2" in text:
            target = A2
        else:
            continue
        if path.stem in ("bad_annotations", "unknown_op"):  # diagnostics, not plans
            continue
        try:
            verify_module(parse_text(text, path.name), target)
        except TileschedErrors:
            continue  # rejected before fuse-tiles runs (dynamic_shape)
        found[f"lit/{path.stem}"] = (text, target)
    found["big_kernel"] = (big_kernel(), A2)
    rng = random.Random(2026)
    for k in range(60):
        found[f"random/{k}"] = (random_block(rng, rng.randint(8, 120), tiles=rng.randint(3, 8)), A2)
    for k in range(20):
        found[f"loop/{k}"] = (looped_block(rng, rng.randint(10, 60), "3"), A2)
        found[f"loop_unknown/{k}"] = (looped_block(rng, rng.randint(10, 60), "%n"), A2)
    return found


def _digest(value) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


def _ops_in_order(module) -> list:
    return [op for op in module.walk() if op.name.startswith("tile.")]


def fingerprint(text: str, target) -> dict[str, str]:
    """Digests of the liveness, the graphs, the plans and the pass outputs of one kernel."""
    module = parse_text(text, "case.mlir")
    facts, graphs, plans = [], [], []
    for function in functions(module):
        live = function_liveness(function)
        facts.append([(op.name, live.last_use.get(op), live.escapes.get(op))
                      for op in _ops_in_order(function)])
        blocks = [b for op in function.walk() for region in op.regions for b in region.blocks]
        for block in blocks:
            for segment in block_segments(block, target, live):
                graph = segment.graph
                graphs.append((repr(graph.nodes), graph.edges, graph.dataflow))
                for plan in (plan_segment(graph), plan_greedy(graph)):
                    plans.append((plan.groups, plan.cost, plan.order))
    out = {"liveness": _digest(facts), "graphs": _digest(graphs), "plans": _digest(plans)}
    for pipeline in ("fuse-tiles", "fuse-tiles,insert-sync"):
        module = parse_text(text, "case.mlir")
        run_pipeline(module, parse_pass_pipeline(pipeline), TileContext(target))
        out[pipeline] = _digest(print_module(module))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--save", type=pathlib.Path)
    mode.add_argument("--compare", type=pathlib.Path)
    args = parser.parse_args(argv)
    found = {name: fingerprint(text, target) for name, (text, target) in cases().items()}
    if args.save:
        args.save.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        print(f"{len(found)} cases saved to {args.save}")
        return 0
    saved = json.loads(args.compare.read_text())
    differ = [(name, part) for name in sorted(set(saved) | set(found))
              for part in sorted(set(saved.get(name, {})) | set(found.get(name, {})))
              if saved.get(name, {}).get(part) != found.get(name, {}).get(part)]
    for name, part in differ:
        print(f"DIFFERS: {name}: {part}")
    print(f"{len(found)} cases, {len(differ)} differing digests")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
