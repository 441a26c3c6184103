"""IR plumbing shared by the insert-sync families: op construction, unit lookup, regions."""

from __future__ import annotations

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, UnitAttr, i64
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint, Rewriter

from tilesched.analysis.units import op_route
from tilesched.ir import sync as S
from tilesched.target.model import Target


def make_set(src: str, dst: str, event: int) -> Operation:
    return S.SetFlagOp.create(properties=_flag_props(src, dst, event))


def make_wait(src: str, dst: str, event: int) -> Operation:
    return S.WaitFlagOp.create(properties=_flag_props(src, dst, event))


def _flag_props(src: str, dst: str, event: int) -> dict:
    return {"src": StringAttr(src), "dst": StringAttr(dst), "event": IntegerAttr(event, i64)}


def make_pipe_barrier(pipe: str) -> Operation:
    return S.PipeBarrierOp.create(properties={"pipe": StringAttr(pipe)})


def make_barrier_all() -> Operation:
    return S.BarrierAllOp.create()


def make_commit(queue: int) -> Operation:
    return S.CommitGroupOp.create(properties={"queue": IntegerAttr(queue, i64)})


def make_wait_group(queue: int, pending: int) -> Operation:
    return S.WaitGroupOp.create(properties={"queue": IntegerAttr(queue, i64),
                                            "pending": IntegerAttr(pending, i64)})


def make_local_barrier() -> Operation:
    return S.BarrierOp.create(properties={"local": UnitAttr()})


def body_ops(block: Block) -> list[Operation]:
    """The ops of a block without its terminator."""
    ops = list(block.ops)
    if ops and isinstance(ops[-1], scf.YieldOp | func.ReturnOp):
        ops.pop()
    return ops


def functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.walk() if isinstance(op, func.FuncOp) and op.body.blocks]


def insert_before(anchor: Operation, new_ops: list[Operation]) -> None:
    if new_ops:
        Rewriter.insert_op(new_ops, InsertPoint.before(anchor))


def insert_after(anchor: Operation, new_ops: list[Operation]) -> None:
    if new_ops:
        Rewriter.insert_op(new_ops, InsertPoint.after(anchor))


def unit_kind(op: Operation, target: Target) -> tuple[str | None, str | None]:
    """(unit name, unit kind) of a tile op, or (None, None) for ops on no unit."""
    rule = op_route(op, target)
    if rule is None or rule.unit not in target.units:
        return None, None
    return rule.unit, target.units[rule.unit].kind


def contains_unit_work(op: Operation, target: Target) -> bool:
    """Does ``op`` (or anything nested in it) run on a non-inline unit?"""
    return any(unit_kind(inner, target)[1] not in (None, "inline") for inner in op.walk())


def is_region_op(op: Operation) -> bool:
    return isinstance(op, scf.ForOp | scf.IfOp) or bool(op.regions)


def split_at(ops: list[Operation], is_boundary) -> list[list[Operation]]:
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
