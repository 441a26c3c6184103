"""What the lowering hands on: buffer views, static ops, loop frames and chunks.

The data types of ``lower.py`` (and of its mixins ``control_flow.py`` and ``ops.py``), kept apart
so the mixins and the stages after the lowering (``code/stream.py``, ``engine/steady_maps.py``)
import them without importing the lowering itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)

from tilesched.ir.tile import FUSION_GROUP, FUSION_ORDER, LAST_USE, TileOp
from tilesched.sim.trace import Access


@dataclass(slots=True)
class View:
    """A memref value: root buffer, region per root dimension, and which root dims remain."""

    buffer: int
    region: tuple[tuple[int, int], ...]
    dims: tuple[int, ...]


def valid_access(operand: tuple, shape: tuple[int, ...]) -> Access:
    """The :class:`Access` of a memref operand ``(buffer, region)`` of static ``shape``: a view
    with a valid region (``tile.view ... valid``) covers fewer elements than its shape, and the
    op sees the valid region's shape (the region's trailing extents: slots fix leading dims)."""
    buffer, region = operand
    if shape and any(hi - lo != n for (lo, hi), n in zip(region[-len(shape):], shape, strict=True)):
        shape = tuple(hi - lo for lo, hi in region[-len(shape):])
    return Access(buffer, region, shape)


@dataclass
class StaticOp:
    """What lowering computes once per IR op it executes: routing, duration, properties, place.

    Streamed instructions name their op by ``sid`` (its index in the lowering's static table);
    the fields are those of a :class:`~tilesched.sim.trace.TraceOp` the simulator reports.
    """

    sid: int
    name: str
    unit: str | None
    duration: int
    props: dict
    loc: str
    async_queue: int | None
    lds: bool
    shapes: tuple  # per operand: the memref shape, or None for a scalar
    issuer: str = ""
    operands: tuple = ()  # (SSA value, shape) per operand of a tile op
    operand_prop: str | None = None  # a sync op's property its operand gives at run time

    def with_operands(self, operands: tuple) -> dict:
        """A sync op's properties in one execution (its run-time operand, if any, evaluated
        to ``operands[0]``: a ``wait_group`` count or a per-slot event id)."""
        return {**self.props, self.operand_prop: operands[0]} if operands else self.props

    @property
    def is_sync(self) -> bool:
        return self.name.startswith("sync.")


MAX_TRIPS = (1 << 63) - 1


@dataclass(eq=False)
class LoopFrame:
    """One execution of an ``scf.for``: its iteration domain and where the lowering is in it.

    ``n`` is the index of the iteration being lowered (``0 <= n < trips``); the steady-state
    simulation may move it forward at an ``ITER`` mark (``carried`` then holds the ``iter_args``
    of the new iteration).
    """

    loop: int  # index in the lowering's loop table
    op: scf.ForOp
    lb: int
    step: int
    trips: int
    execution: int  # counts executions of this loop op
    n: int = 0
    carried: list = field(default_factory=list)
    current: int = -1  # the iteration the ops being lowered belong to (-1: before the first)
    ordinal: int = 0  # chunks ended so far in that iteration
    start_position: int = 0  # program position where the loop started
    jumped: bool = False  # moved by the steady-state simulation at the last ITER mark


@dataclass(slots=True)
class Chunk:
    """Ops lowered between two loop boundaries: ``ops`` are ``(sid, operands)`` pairs (a memref
    operand is ``(buffer, region)``), the first at program position ``base``; ``mark`` is
    ``(kind, frame, n)`` of the boundary that ends the chunk (``None`` at the end); ``where``
    says, for each loop being run, ``(frame, iteration, ordinal)``: the chunk is the
    ``ordinal``-th one of that iteration of that loop. ``repeat``: a run of replayed iterations
    that follows ``ops`` (``replay.Repeat``, only when the lowering batches them)."""

    base: int
    ops: list
    mark: tuple | None
    where: tuple = ()
    repeat: object = None

    def __len__(self) -> int:
        """Program positions the chunk takes."""
        return len(self.ops) + (self.repeat.total if self.repeat is not None else 0)


# Sync ops whose property may instead be an ``index`` operand evaluated at run time.
OPERAND_PROPS = {"sync.wait_group": "pending", "sync.set_flag": "event",
                  "sync.wait_flag": "event", "sync.cross_set": "id", "sync.cross_wait": "id"}


def plain_attr(attr):
    """A property attribute as a Python value."""
    if isinstance(attr, UnitAttr):
        return True
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, SymbolRefAttr):
        return attr.string_value()
    return str(attr)


def tile_props(op: TileOp) -> dict:
    """A tile op's properties (and ``value`` / ``accumulate`` written as attributes), plus its
    fusion annotations (``fusion_group``, ``fusion_order``, ``last_use``) when it has them."""
    props = {name: plain_attr(attr) for name, attr in op.properties.items()}
    for name in ("value", "accumulate"):  # written as attributes in some generic forms
        if name not in props and name in op.attributes:
            props[name] = plain_attr(op.attributes[name])
    for name in (FUSION_GROUP, FUSION_ORDER):
        if isinstance(op.attributes.get(name), IntegerAttr):
            props[name.removeprefix("tile.")] = op.attributes[name].value.data
    if isinstance(op.attributes.get(LAST_USE), DenseArrayBase):
        props["last_use"] = tuple(bool(v) for v in op.attributes[LAST_USE].get_values())
    return props
