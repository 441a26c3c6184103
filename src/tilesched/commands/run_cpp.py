"""``tilesched run-cpp FILE [-p PIPELINE] [--arg ...] [--seed S] [--pto-isa DIR]``: emit FILE (after
PIPELINE) as a PTO-ISA kernel, compile it with a generated ``main`` on the library's CPU
simulator, run it on seeded inputs, and compare every global buffer with tilesched's numpy
semantics of FILE (program order, :func:`tilesched.sim.functional.run_reference`) on the same
inputs (DESIGN.md §5).

Exit 0: every buffer equal within :data:`TOLERANCE`; 1: some differ; 2: bad input, IR emit-cpp
refuses, or no compiler / headers (saying which). ``--json``: ``{compiled, ran, outputs: [{name,
max_abs_error, max_rel_error, equal}], compile_seconds, run_seconds}``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import tempfile
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tilesched.commands.common import add_common_arguments, load_verified, non_negative_int
from tilesched.commands.sim import add_arg_option
from tilesched.diagnostics import TileschedError
from tilesched.emit import harness
from tilesched.emit.cpp import emit
from tilesched.ir.sync import SyncOp
from tilesched.ir.text import location_of
from tilesched.sim.functional import Memory, run_reference
from tilesched.sim.lowering.lower import find_function, lower_module, parse_arg_values
from tilesched.sim.trace import TraceError
from tilesched.target import Target, load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

# (rtol, atol) per element type, looser than equiv's: the library computes half-precision ops in
# half (tilesched rounds a float32 result once), its exp / rsqrt / division are not numpy's, and
# a matmul or row sum adds in another order. An element is equal when |cpp - ref| <= atol +
# rtol * |ref|. Measured maxima on the coverage kernels are in BENCHMARKS.md, section emit.
TOLERANCE = {"float16": (4e-3, 2e-3), "float32": (1e-4, 1e-5)}


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "run-cpp", help="compile and run the emitted PTO-ISA kernel, compare with numpy semantics",
        description="Emit FILE (after PIPELINE) as a PTO-ISA kernel, compile it with clang++-19 "
                    "-D__CPU_SIM against the PTO-ISA headers, run it on seeded inputs and compare "
                    "every global buffer with tilesched's numpy semantics of FILE. Exit 1 if any "
                    "differs beyond the tolerance, 2 on bad input or a missing compiler/headers.")
    parser.add_argument("file", metavar="FILE", help=".mlir input")
    parser.add_argument("-p", "--pipeline", default="", metavar="PIPELINE",
                        help="passes to run before emitting, e.g. fuse-tiles,insert-sync")
    add_arg_option(parser)
    parser.add_argument("--function", metavar="NAME",
                        help="kernel to run (default: the first function with a body)")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="seed of the random inputs, >= 0 (default 0)")
    parser.add_argument("--pto-isa", metavar="DIR",
                        help="PTO-ISA include folder (else $PTO_ISA_INCLUDE, else the pinned copy)")
    parser.add_argument("--keep", metavar="DIR", help="write the C++, binary and data here")
    add_common_arguments(parser)
    parser.set_defaults(func=run)


@dataclass
class Output:
    name: str
    max_abs_error: float
    max_rel_error: float
    equal: bool

    def to_json(self) -> dict:
        return {"name": self.name, "max_abs_error": self.max_abs_error,
                "max_rel_error": self.max_rel_error, "equal": self.equal}


@dataclass
class Prepared:
    """A case ready to compile, with what numpy semantics say its buffers hold afterwards."""

    case: harness.Case
    expected: list[np.ndarray]
    names: list[str]
    dtypes: list[str]
    compared: list[bool] | None = None  # per buffer; False: not an output of the kernel


def prepare(module: ModuleOp, transformed: ModuleOp, target: Target, label: str,
            args: dict[str, int | float], seed: int = 0, source: str = "",
            function: str | None = None) -> Prepared:
    """Emit ``transformed``; inputs and expected outputs from ``module``'s numpy semantics of
    ``function`` (default: the first function with a body)."""
    fn = find_function(module, function)
    try:
        trace = lower_module(*_reference(module, target, source), args, function=function,
                             strict_args=False)
    except TraceError as err:
        raise TileschedError(str(err), source or None) from None
    buffers = trace.arguments
    if any(b.dtype == "bfloat16" for b in buffers):
        raise TileschedError("run-cpp cannot run bf16 buffers: PTO-ISA's CPU simulator has no "
                             "bfloat16 type before C++23")
    inputs = [a.copy() for _, a in Memory(trace, seed).arguments()]
    expected = [a for _, a in run_reference(trace, seed).arguments()]
    emitted = emit(transformed, target, source)
    kernel = next((k for k in emitted.kernels if k.ir_name == fn.sym_name.data), None)
    if kernel is None:
        called = any(d for d in emitted.devices if f"// @{fn.sym_name.data}: a device" in d)
        raise TileschedError(f"run-cpp: @{fn.sym_name.data} is called by another function, so it "
                             "is a device function, not a kernel (pick a kernel with --function)"
                             if called else f"run-cpp: the pipeline removed @{fn.sym_name.data}",
                             location_of(fn))
    if sum(p.is_buffer for p in kernel.params) != len(buffers):
        raise TileschedError("run-cpp: the kernel's buffer arguments differ from the program's")
    case = harness.Case(label, emitted, kernel, inputs, args)
    compared = [p.output for p in kernel.params if p.is_buffer]  # a kernel entry's UB arguments
    return Prepared(case, expected, [b.name for b in buffers], [b.dtype for b in buffers],
                    compared)


def _reference(module: ModuleOp, target: Target, source: str) -> tuple[ModuleOp, Target]:
    """The program and target whose program-order semantics give the expected outputs: on a
    split-core target, ``module`` without its sync ops on the single-core target it takes its numbers from (program order
    needs no sync, and the numbers do not depend on the core split)."""
    if not target.cores:
        return module, target
    if target.base is None:
        raise TileschedError(f"run-cpp: target '{target.name}' has cores but no base target to "
                             "compute the expected outputs on", source or None)
    clone = module.clone()
    for op in [op for op in clone.walk() if isinstance(op, SyncOp)]:
        op.detach()
        op.erase()
    return clone, target.base


def transform(path: str, target: Target, pipeline: str) -> tuple[ModuleOp, ModuleOp]:
    """FILE as written and after PIPELINE (a trailing emit-cpp is implied and dropped)."""
    original = load_verified(path, target)
    transformed = load_verified(path, target)
    passes = [p for p in (parse_pass_pipeline(pipeline) if pipeline.strip() else [])
              if p.name != "emit-cpp"]
    run_pipeline(transformed, passes, TileContext(target=target))
    return original, transformed


def compare(prepared: Prepared, outputs: list[np.ndarray]) -> list[Output]:
    """Element-by-element comparison of every buffer with its expected contents."""
    found = []
    compared = prepared.compared or [True] * len(prepared.names)
    for name, dtype, want, got, keep in zip(prepared.names, prepared.dtypes, prepared.expected,
                                            outputs, compared, strict=True):
        if not keep:  # do not outlive the kernel (a kernel entry's on-chip arguments)
            continue
        with np.errstate(all="ignore"):
            a = want.astype(np.float64)
            b = got.astype(np.float64)
            diff = np.abs(a - b)
            rel = diff / np.maximum(np.abs(a), np.finfo(np.float64).tiny)
        if dtype in TOLERANCE:
            rtol, atol = TOLERANCE[dtype]
            ok = bool(np.all((diff <= atol + rtol * np.abs(a)) | (np.isnan(a) & np.isnan(b))))
        else:
            ok = bool(np.array_equal(want, got))
        finite = np.isfinite(diff)
        found.append(Output(name, float(diff[finite].max()) if finite.any() else 0.0,
                            float(rel[finite].max()) if finite.any() else 0.0, ok))
    return found


def run_cases(prepared: list[Prepared], folder: pathlib.Path, headers: pathlib.Path,
              optimize: str = "-O0") -> tuple[float, list[tuple[list[Output], float]]]:
    """Compile all cases in one program, run each; (compile seconds, [(outputs, run seconds)])."""
    binary = harness.build([p.case for p in prepared], folder, headers, optimize=optimize)
    results = []
    for k, item in enumerate(prepared):
        outputs, seconds = harness.run(binary, k, item.case, folder / f"case{k}")
        results.append((compare(item, outputs), seconds))
    return binary.compile_seconds, results


def run(args: argparse.Namespace) -> int:
    target = load_target(args.target)
    headers = harness.find_headers(args.pto_isa)
    harness.find_compiler()
    original, transformed = transform(args.file, target, args.pipeline)
    prepared = prepare(original, transformed, target, args.file, parse_arg_values(args.arg),
                       args.seed, args.file, args.function)
    if args.keep:
        compile_seconds, results = run_cases([prepared], pathlib.Path(args.keep), headers)
    else:
        with tempfile.TemporaryDirectory(prefix="tilesched-run-cpp-") as tmp:
            compile_seconds, results = run_cases([prepared], pathlib.Path(tmp), headers)
    outputs, run_seconds = results[0]
    equal = all(o.equal for o in outputs)
    if args.json:
        print(json.dumps({"compiled": True, "ran": True,
                          "outputs": [o.to_json() for o in outputs],
                          "compile_seconds": round(compile_seconds, 3),
                          "run_seconds": round(run_seconds, 3)}, indent=2))
        return 0 if equal else 1
    word = "equal" if equal else "DIFFERENT"
    print(f"tilesched run-cpp {args.file}: {word} to numpy semantics (seed {args.seed}; compiled "
          f"in {compile_seconds:.1f} s, ran in {run_seconds:.2f} s)")
    for o in outputs:
        mark = "ok" if o.equal else "DIFFERS"
        print(f"  {o.name}: max |error| {o.max_abs_error:.3g}, max relative {o.max_rel_error:.3g}"
              f"  {mark}")
    return 0 if equal else 1
