"""The explicit trace the simulator executes: a machine model, buffers and per-issuer op lists.

A trace is what the IR lowering (``lower.py``) produces after unrolling every loop and resolving
every operand to a rectangular region of a root buffer; the timing engine, the happens-before race
checker and the numpy semantics only ever see traces, so they can be tested and benchmarked without
building IR. The rules the engine applies to a trace are DESIGN.md §4 and ``docs/simulator.md``.

Conventions:

- A region is a tuple of half-open ``(lo, hi)`` element ranges, one per dimension of the ROOT buffer;
  ``root[region].reshape(access.shape)`` is the operand's view (slots drop their leading dimension).
- A tile op writes its last memref operand and reads the others; ``tile.matmul`` with
  ``accumulate`` also reads its last operand; ``tile.call`` has unknown effects, so the simulator
  treats it as reading and writing every memref operand.
- Unit kinds (as in the target TOML): ``queued`` (in-order queue running beside the issuer),
  ``inline`` (runs on the issuer, which waits), ``async`` (a commit/wait group queue, cp.async style)
  and ``lds`` (local memory whose ops complete at the issuer group's next ``local`` barrier).
  In a model with several issuer groups every non-inline unit exists once per group
  (``"LDS@low"``); inline units are shared by the groups, which contend for them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

UNIT_KINDS = ("queued", "inline", "async", "lds")

SYNC_OPS = frozenset({
    "sync.set_flag", "sync.wait_flag", "sync.pipe_barrier", "sync.barrier_all",
    "sync.commit_group", "sync.wait_group", "sync.barrier", "sync.cond_barrier",
    "sync.setprio", "sync.sched_barrier",
})

Region = tuple[tuple[int, int], ...]


class TraceError(ValueError):
    """A trace that the machine model cannot execute (unknown unit, bad operand, ...)."""


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """One execution unit: its kind (see module docstring) and whether its own ops may overlap."""

    kind: str = "queued"
    pipelined: bool = False

    def __post_init__(self) -> None:
        if self.kind not in UNIT_KINDS:
            raise TraceError(f"unit kind must be one of {UNIT_KINDS}, got {self.kind!r}")


@dataclass
class MachineModel:
    """What the engine needs to know about a target.

    ``event_limit`` is the number of event ids per directed unit pair (``None``: unchecked);
    ``async_queues`` maps a group queue id to its ``async`` unit; ``issue_cost`` is the issuer
    time, in cycles, spent enqueueing one op to a non-inline unit. ``private_spaces`` are memory
    spaces every issuer group has its own copy of (registers); with several groups, a write to any
    other space covers only the group's share of the region (see :func:`group_share`).
    """

    name: str
    units: dict[str, UnitSpec]
    issuers: tuple[str, ...] = ("S",)
    event_limit: int | None = None
    async_queues: dict[int, str] = field(default_factory=dict)
    issue_cost: int = 0
    private_spaces: tuple[str, ...] = ()
    frequency_hz: float | None = None  # the target's clock, for times in microseconds
    # split-core targets (ascend-a2-mix): core -> its issuer. Units are named ``CORE.UNIT`` and
    # exist once, fed by their core's issuer; issuers do not share work (no group_share, no
    # private copies): each runs only its core's ops. Cross-core flags have their own id limit.
    cores: dict[str, str] = field(default_factory=dict)
    cross_event_limit: int | None = None

    def __post_init__(self) -> None:
        self.issuers = tuple(self.issuers)
        if not self.issuers:
            raise TraceError("a machine model needs at least one issuer")
        for queue, unit in self.async_queues.items():
            if self.units.get(unit, UnitSpec("inline")).kind != "async":
                raise TraceError(f"async queue {queue} names {unit!r}, which is not an async unit")

    @property
    def sharing_groups(self) -> int:
        """How many issuer groups share each tile op's work (:func:`group_share`): every issuer
        on an AMD-style model, 1 on a split-core one (each core runs its own ops)."""
        return 1 if self.cores else len(self.issuers)

    def issuer_of_unit(self, unit: str) -> str | None:
        """The issuer that feeds ``unit`` on a split-core model (``AIC.MTE2`` -> ``AIC.S``)."""
        core, dot, _ = unit.partition(".")
        return self.cores.get(core) if dot else None

    @property
    def lds_unit(self) -> str | None:
        """The local-memory unit (AMD LDS), if the model has one."""
        return next((name for name, spec in self.units.items() if spec.kind == "lds"), None)

    def queue_of_unit(self, unit: str) -> int | None:
        """The group queue id served by an async unit."""
        return next((q for q, name in self.async_queues.items() if name == unit), None)


@dataclass(frozen=True, slots=True)
class Buffer:
    """A root buffer: a function argument or a local allocation."""

    id: int
    name: str
    shape: tuple[int, ...]
    dtype: str
    space: str
    is_argument: bool = False

    @property
    def region(self) -> Region:
        """The region covering the whole buffer."""
        return tuple((0, n) for n in self.shape)


@dataclass(frozen=True, slots=True)
class Access:
    """One memref operand: a region of a root buffer, seen with the operand's own shape."""

    buffer: int
    region: Region
    shape: tuple[int, ...]

    def __post_init__(self) -> None:
        size = math.prod(hi - lo for lo, hi in self.region)
        if size != math.prod(self.shape):
            raise TraceError(f"access shape {self.shape} does not match region {self.region}")


@dataclass(slots=True)
class TraceOp:
    """One executed op of one issuer (see the module docstring for operand conventions)."""

    name: str
    issuer: str
    unit: str | None = None
    duration: int = 0
    operands: tuple[Access | int | float, ...] = ()
    props: dict[str, Any] = field(default_factory=dict)
    loc: str = "?"
    async_queue: int | None = None
    lds: bool = False

    @property
    def is_sync(self) -> bool:
        return self.name in SYNC_OPS

    def accesses(self) -> list[tuple[Access, bool]]:
        """``(access, is_write)`` for every memref operand, writes last, per the tile-op convention."""
        mems = [o for o in self.operands if isinstance(o, Access)]
        if not mems or self.is_sync:
            return []
        if self.name == "tile.call":
            return [(a, True) for a in mems]
        out = [(a, False) for a in mems[:-1]]
        if self.name == "tile.matmul" and self.props.get("accumulate"):
            out.append((mems[-1], False))
        out.append((mems[-1], True))
        return out


@dataclass
class Trace:
    """A machine model, the buffer table and one op list per issuer (program order)."""

    machine: MachineModel
    buffers: list[Buffer]
    programs: dict[str, list[TraceOp]]
    # a split-core trace's ops in the one program order its cores share (the reference that
    # ``functional.run_reference`` executes); ``None``: the first issuer's program is it
    program_order: list[TraceOp] | None = None

    def __post_init__(self) -> None:
        for index, buf in enumerate(self.buffers):
            if buf.id != index:
                raise TraceError(f"buffer {buf.name!r} has id {buf.id}, expected {index}")
        for issuer in self.programs:
            if issuer not in self.machine.issuers:
                raise TraceError(f"program for unknown issuer {issuer!r}")

    @property
    def arguments(self) -> list[Buffer]:
        """Function-argument buffers in argument order."""
        return [b for b in self.buffers if b.is_argument]

    def op_count(self) -> int:
        return sum(len(ops) for ops in self.programs.values())


def group_share(region: Region, group: int, groups: int) -> Region | None:
    """The part of a shared-memory region that issuer group ``group`` of ``groups`` writes.

    Issuer groups that execute the same program cooperate on each tile op: the region is split
    into ``groups`` contiguous chunks along its first dimension with at least ``groups`` elements
    (group 0 gets the first chunk). When no dimension is that large the leading group writes it all
    and the others write nothing (``None``).
    """
    if groups == 1:
        return region
    for dim, (lo, hi) in enumerate(region):
        if hi - lo >= groups:
            step = -(-(hi - lo) // groups)
            start = lo + group * step
            stop = min(hi, start + step)
            if start >= stop:
                return None
            return region[:dim] + ((start, stop),) + region[dim + 1:]
    return region if group == 0 else None


def regions_overlap(a: Region, b: Region) -> bool:
    """True when two regions of the same root buffer share an element."""
    for (alo, ahi), (blo, bhi) in zip(a, b, strict=True):
        if alo >= bhi or blo >= ahi:
            return False
    return True


def region_contains(outer: Region, inner: Region) -> bool:
    """True when every element of ``inner`` lies in ``outer``."""
    return all(olo <= ilo and ihi <= ohi for (olo, ohi), (ilo, ihi) in zip(outer, inner, strict=True))


def region_intersection(a: Region, b: Region) -> Region:
    """The common part of two overlapping regions."""
    return tuple((max(alo, blo), min(ahi, bhi)) for (alo, ahi), (blo, bhi) in zip(a, b, strict=True))


class TraceBuilder:
    """A small helper to write traces by hand (tests, benchmarks, examples).

    >>> b = TraceBuilder(MachineModel("m", {"V": UnitSpec()}))
    >>> x = b.buffer("x", (4, 4), "float32", "UB")
    >>> _ = b.op("tile.fill", unit="V", duration=3, operands=[b.whole(x)], props={"value": 1.0})
    """

    def __init__(self, machine: MachineModel):
        self.machine = machine
        self.buffers: list[Buffer] = []
        self.programs: dict[str, list[TraceOp]] = {name: [] for name in machine.issuers}
        self._line = 0

    def buffer(self, name: str, shape: tuple[int, ...], dtype: str = "float16",
               space: str = "GM", argument: bool = False) -> Buffer:
        """Add a root buffer and return it."""
        buf = Buffer(len(self.buffers), name, tuple(shape), dtype, space, argument)
        self.buffers.append(buf)
        return buf

    def whole(self, buf: Buffer) -> Access:
        """An access to the whole buffer."""
        return Access(buf.id, buf.region, buf.shape)

    def tile(self, buf: Buffer, offsets: tuple[int, ...], sizes: tuple[int, ...]) -> Access:
        """A rectangular window (``tile.view``) of a buffer."""
        region = tuple((o, o + s) for o, s in zip(offsets, sizes, strict=True))
        return Access(buf.id, region, tuple(sizes))

    def slot(self, buf: Buffer, k: int) -> Access:
        """The k-th slice along dim 0 (``tile.slot``)."""
        region = ((k, k + 1),) + tuple((0, n) for n in buf.shape[1:])
        return Access(buf.id, region, buf.shape[1:])

    def op(self, name: str, unit: str | None = None, duration: int = 0, operands=(),
           props: dict[str, Any] | None = None, issuer: str | None = None, loc: str | None = None,
           async_queue: int | None = None, lds: bool = False) -> TraceOp:
        """Append an op to one issuer's program (the first issuer by default).

        Without ``loc`` each op gets a distinct location ``trace:LINE:1``.
        """
        self._line += 1
        issuer = issuer or self.machine.issuers[0]
        op = TraceOp(name, issuer, unit, duration, tuple(operands), dict(props or {}),
                     loc or f"trace:{self._line}:1", async_queue, lds)
        self.programs[issuer].append(op)
        return op

    def build(self, replicate: bool = False) -> Trace:
        """The finished trace.

        With ``replicate`` the first issuer's program is copied to every other issuer (AMD issuer
        groups execute the same program); otherwise the programs are used as written.
        """
        programs = {k: list(v) for k, v in self.programs.items()}
        if replicate:
            first = self.machine.issuers[0]
            for other in self.machine.issuers[1:]:
                programs[other] = [replace(op, issuer=other, props=dict(op.props))
                                   for op in programs[first]]
        return Trace(self.machine, list(self.buffers), programs)
