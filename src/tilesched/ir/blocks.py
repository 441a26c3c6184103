"""Walking and editing blocks: the body of a block, a module's functions, insertion, splitting."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint, Rewriter

from tilesched.ir.tile import KERNEL


def body_ops(block: Block) -> list[Operation]:
    """The ops of a block without its terminator."""
    ops = list(block.ops)
    if ops and isinstance(ops[-1], scf.YieldOp | func.ReturnOp):
        ops.pop()
    return ops


def functions(module: ModuleOp) -> list[func.FuncOp]:
    """The functions of ``module`` that have a body."""
    return [op for op in module.walk() if isinstance(op, func.FuncOp) and op.body.blocks]


def is_kernel_entry(function: func.FuncOp) -> bool:
    """Does ``function`` carry the ``tile.kernel`` unit attribute (a kernel entry: its on-chip
    memref arguments are its own and do not outlive it)?"""
    return isinstance(function.attributes.get(KERNEL), UnitAttr)


def insert_before(anchor: Operation, new_ops: list[Operation]) -> None:
    if new_ops:
        Rewriter.insert_op(new_ops, InsertPoint.before(anchor))


def insert_after(anchor: Operation, new_ops: list[Operation]) -> None:
    if new_ops:
        Rewriter.insert_op(new_ops, InsertPoint.after(anchor))


def split_at(ops: list[Operation], is_boundary: Callable[[Operation], bool]) -> list[list[Operation]]:
    """The non-empty runs of ``ops`` between ops for which ``is_boundary(op)`` holds."""
    segments, current = [], []
    for op in ops:
        if is_boundary(op):
            segments.append(current)
            current = []
        else:
            current.append(op)
    segments.append(current)
    return [s for s in segments if s]
