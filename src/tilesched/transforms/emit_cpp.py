"""The ``emit-cpp`` pass: print the module as PTO-ISA kernels (C++20, ``tilesched.emit.cpp``).

A tool pass: it changes no IR and its text replaces the IR as ``tilesched opt``'s output, so
``tilesched opt kernel.mlir -p fuse-tiles,insert-sync,emit-cpp -o kernel.cpp`` writes C++.
Malformed fusion annotations, IR without a PTO-ISA spelling and on-chip buffers that do not fit
are errors (exit 2, nothing written). ``tilesched run-cpp`` compiles and runs the output.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from tilesched.analysis.fusion_annotations import annotation_errors
from tilesched.diagnostics import TileschedErrors
from tilesched.emit.cpp import emit_module
from tilesched.ir.text import location_of
from tilesched.transforms.pass_base import TileContext, TilePass


@dataclass(frozen=True)
class EmitCppPass(TilePass):
    """Print PTO-ISA kernels (GlobalTensor, Tile + TASSIGN, TLOAD/TADD/..., set_flag/wait_flag,
    [[pto::last_use]])."""

    name = "emit-cpp"
    role = "tool"

    def run(self, module: ModuleOp, ctx: TileContext) -> None:
        errors = annotation_errors(module)
        if errors:
            raise TileschedErrors(errors)
        first = next(iter(module.ops), None)
        where = location_of(first) if first is not None else None
        ctx.output.append(emit_module(module, ctx.target, where.file if where else ""))


PASS = EmitCppPass
