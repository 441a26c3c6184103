"""Machine models: units, memory spaces, op-to-unit routing and the latency model.

A :class:`Target` is plain data loaded from TOML (see ``loader.py`` and
``docs/targets.md``); nothing here knows about the IR. Passes and the simulator
ask a target two questions about a tile op: which unit runs it
(:meth:`Target.route`) and for how many cycles (:meth:`Target.cycles`).

Latency model (DESIGN.md §3, docs/targets.md "Latency model"): ``cycles = fixed +
ceil(bytes / bytes_per_cycle)`` per route, times an optional per-op factor; a route may count
its elements at ``element_bytes`` each. A unit may give the vendor's forms instead: per-op vector
formulas ``round(slope x elements + bias)`` looked up by (op, element type, columns)
(:class:`VectorFormula`), and a cube cost ``head + cycles_per_fractal x fractals``
(:class:`MatmulModel`); else matmul costs
``fixed + ceil(K / k_block) * cycles_per_k_block + ceil(M * N * K / macs_per_cycle)``.
A target with ``frequency_hz`` converts cycles to microseconds (:meth:`Target.microseconds`).
A unit with a :class:`FusionModel` also runs fused spans (``tile.fusion_group``,
docs/fuse-tiles.md): :meth:`Target.fused_terms` gives an op's startup and operand streams in a
span (from the vendor formula when the op has one: its bias is the startup, its slope term the
streaming), :meth:`Target.fused_cycles` the duration of one op of a span. The fused formula
(:func:`fused_op_time`), the terms and the spill rule (:meth:`FusionModel.span_spills`) are
defined here once: the simulator (``analysis/fusion_cost``) and the fusion planner
(``transforms/fuse_tiles/segments`` builds its graph with them, ``schedule/fusion/cost``) both
call them.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

from tilesched.target.cores import Core, split_unit

UNIT_KINDS = ("inline", "queued", "async", "lds")
SYNC_FAMILIES = ("flags", "groups", "barriers")


@dataclass(frozen=True)
class Space:
    """A memory space; ``capacity`` in bytes, ``None`` when unbounded (global memory)."""

    name: str
    capacity: int | None
    is_global: bool


@dataclass(frozen=True)
class FusionModel:
    """How a unit runs a fused span: consecutive ops of one ``tile.fusion_group``.

    The span is one vector loop over the group's iteration domain: its first op pays its
    startup (the unit's ``fixed``, or the bias of the op's vendor formula), every later op only
    ``member_fixed``. An operand that stays in vector registers (a tile written by an earlier op
    of the span, or written and last-used inside it) streams at ``register_bytes_per_cycle``
    instead of the route's UB bandwidth; a formula-priced op's streaming part shrinks by the same
    ratio (:meth:`Target.fused_terms`, :func:`fused_op_time`). The loop holds a tile in a
    register from the first op of the span that touches it to the last
    (:func:`span_live_tiles`); when more than ``live_tiles`` tiles are live at once the span
    spills: each tile beyond the limit costs a store and a reload of the domain at 4 bytes per
    element (:meth:`span_spills`, :meth:`spill_cycles`). Every built-in
    number is an assumption (see the target TOML).
    """

    member_fixed: int = 1
    register_bytes_per_cycle: float = 768.0
    live_tiles: int = 8

    def spill_cycles(self, elements: int, bytes_per_cycle: float) -> int:
        """Cycles one spilled tile of ``elements`` costs (a store and a reload, 4 B each)."""
        return 2 * math.ceil(elements * 4 / bytes_per_cycle) if bytes_per_cycle > 0 else 0

    def span_spills(self, span_tiles: Sequence[Iterable[Hashable]]) -> list[int]:
        """Spilled tiles charged to each member of a span (members in span order, each given the
        tiles it touches): the span spills ``max(0, peak - live_tiles)`` tiles, where ``peak`` is
        the most tiles live at once (:func:`span_live_tiles`); each member pays for the excess it
        adds to the running peak."""
        charged, peak = [], 0
        for live in span_live_tiles(span_tiles):
            before = max(0, peak - self.live_tiles)
            peak = max(peak, live)
            charged.append(max(0, peak - self.live_tiles) - before)
        return charged


def span_live_tiles(span_tiles: Sequence[Iterable[Hashable]]) -> list[int]:
    """Tiles live at each member of a span: tile ``t`` is live at member ``k`` when a member at
    or before ``k`` and a member at or after ``k`` touch it (read or write). A tile is identified
    by the exact elements it covers (its buffer and region), so a value read once from the local
    buffer occupies a register only at that op, and one passed along the span from its first use
    to its last."""
    first: dict[Hashable, int] = {}
    last: dict[Hashable, int] = {}
    for k, tiles in enumerate(span_tiles):
        for tile in tiles:
            first.setdefault(tile, k)
            last[tile] = k
    delta = [0] * (len(span_tiles) + 1)
    for tile, start in first.items():
        delta[start] += 1
        delta[last[tile] + 1] -= 1
    live, counts = 0, []
    for k in range(len(span_tiles)):
        live += delta[k]
        counts.append(live)
    return counts


def fused_op_time(fixed: int, factor: float, streams: Iterable[int]) -> int:
    """Cycles of one op of a fused span: its startup (``FusedTerms.head_fixed`` for the span's
    first op, ``member_fixed`` for a later one) plus its slowest operand stream (cycles through
    the local buffer or in registers) times the op's factor. With every stream through the local
    buffer and the head's startup this is the unfused latency model (:meth:`Target.cycles`)."""
    return fixed + math.ceil(max(streams, default=0) * factor)


@dataclass(frozen=True)
class FusedTerms:
    """One op's terms in the fused-execution model (:meth:`Target.fused_terms`): its startup
    alone or first in a span (``head_fixed``), as a later member (``member_fixed``), its factor,
    and per memref operand the cycles of its stream ``(through the local buffer, in registers)``.
    """

    head_fixed: int
    member_fixed: int
    factor: float
    streams: tuple[tuple[int, int], ...]

    def cycles(self, in_registers: Sequence[bool], head: bool) -> int:
        """The op's duration (:func:`fused_op_time`) with operand ``k`` in registers when
        ``in_registers[k]``, first in its span (or alone) when ``head``."""
        return fused_op_time(self.head_fixed if head else self.member_fixed, self.factor,
                             [reg if inside else ub for (ub, reg), inside
                              in zip(self.streams, in_registers, strict=True)])


def microseconds(cycles: int | float, frequency_hz: float | None) -> float | None:
    """``cycles`` at a clock of ``frequency_hz``, in microseconds; None without a clock."""
    return cycles / frequency_hz * 1e6 if frequency_hz else None


def round_half_up(value: float) -> int:
    """``value`` rounded to the nearest integer, halves away from zero (C's ``llround``, which the
    vendor's formula uses), and never below 0."""
    return max(0, math.floor(value + 0.5))


@dataclass(frozen=True)
class VectorFormula:
    """The cost of one op on a unit as the vendor writes it: ``round(slope x elements + bias)``
    with (slope, bias) chosen by the op's element type and its tile's column count.

    ``rows`` are ``(dtype, cols, slope, bias)``; ``dtype`` is an MLIR element type (``f16``) or
    ``*`` (any), ``cols`` a column count or ``None`` (any). The row for (dtype, cols) is, in
    order: an exact (dtype, cols) row, a (dtype, any) row, an (any, cols) row, an (any, any) row;
    else the row of the same dtype (then of any dtype) with the nearest column count, the larger
    one on a tie. ``None`` when no row has the dtype or ``*``.
    """

    rows: tuple[tuple[str, int | None, float, float], ...]

    def lookup(self, dtype: str, cols: int) -> tuple[float, float] | None:
        """(slope, bias) for a tile of ``cols`` columns of ``dtype`` (the rule above)."""
        for want_dtype, want_cols in ((dtype, cols), (dtype, None), ("*", cols), ("*", None)):
            for row_dtype, row_cols, slope, bias in self.rows:
                if row_dtype == want_dtype and row_cols == want_cols:
                    return slope, bias
        for want_dtype in (dtype, "*"):
            numbered = [row for row in self.rows if row[0] == want_dtype and row[1] is not None]
            if numbered:
                row = min(numbered, key=lambda r: (abs(r[1] - cols), -r[1]))
                return row[2], row[3]
        return None

    def cycles(self, dtype: str, shape: tuple[int, ...]) -> int | None:
        """Cycles for a tile of ``shape`` (rows = all but the last dimension), or None."""
        found = self.split(dtype, shape)
        return None if found is None else sum(found)

    def split(self, dtype: str, shape: tuple[int, ...]) -> tuple[int, int] | None:
        """:meth:`cycles` as (startup, streaming): the startup is the bias rounded, the
        streaming part the rest of the rounded total (``slope x elements``, rounded so that the
        two add up to the formula exactly); None when no row applies."""
        cols = shape[-1] if shape else 1
        found = self.lookup(dtype, cols)
        if found is None:
            return None
        slope, bias = found
        total = round_half_up(slope * math.prod(shape) + bias)
        startup = min(round_half_up(bias), total)
        return startup, total - startup


@dataclass(frozen=True)
class MatmulModel:
    """Cube cost per matmul instruction: ``head + cycles_per_fractal[dtype] x fractals``, with
    ``fractals = ceil(M / fractal_m) x ceil(K / (fractal_k_bytes / bytes of A)) x
    ceil(N / fractal_n)`` and ``dtype`` the element type of A (``*``: any other type)."""

    head: int = 0
    fractal_m: int = 16
    fractal_n: int = 16
    fractal_k_bytes: int = 32
    cycles_per_fractal: dict[str, int] = field(default_factory=lambda: {"*": 1})

    def cycles(self, a: OperandShape, b: OperandShape) -> int:
        m, k = a.shape[-2:]
        n = b.shape[-1]
        k_tile = max(1, self.fractal_k_bytes // max(a.element_bytes, 1))
        fractals = math.ceil(m / self.fractal_m) * math.ceil(k / k_tile) * math.ceil(n / self.fractal_n)
        rate = self.cycles_per_fractal.get(a.dtype, self.cycles_per_fractal.get("*", 1))
        return self.head + rate * fractals


@dataclass(frozen=True)
class Unit:
    """An execution unit.

    ``kind``: ``inline`` runs on the issuer, which waits for it; ``queued`` is an
    in-order queue that runs concurrently with the issuer (Ascend pipes);
    ``async`` is a group queue (cp.async: commit/wait groups); ``lds`` is
    per-issuer-group local memory whose ops complete at the next ``local`` barrier.
    ``pipelined`` units may overlap their own ops unless a ``pipe_barrier`` separates them.
    """

    name: str
    kind: str
    pipelined: bool = False
    fixed: int = 0
    bytes_per_cycle: float = 64.0
    macs_per_cycle: float = 0.0
    k_block: int = 16
    cycles_per_k_block: int = 0
    op_factor: dict[str, float] = field(default_factory=dict)
    fusion: FusionModel | None = None
    formulas: dict[str, VectorFormula] = field(default_factory=dict)
    matmul: MatmulModel | None = None


@dataclass(frozen=True)
class Route:
    """A routing rule: ops (or ``*``) whose source/destination spaces match run on ``unit``."""

    ops: tuple[str, ...]
    unit: str
    src: tuple[str, ...] = ()
    dst: tuple[str, ...] = ()
    fixed: int | None = None
    bytes_per_cycle: float | None = None
    async_queue: int | None = None
    element_bytes: int | None = None

    def matches(self, op: str, read_spaces: tuple[str, ...], dst_space: str | None) -> bool:
        """True when ``op`` is listed, every space it reads is in ``src`` and it writes ``dst``."""
        if "*" not in self.ops and op not in self.ops:
            return False
        if self.src and not all(space in self.src for space in read_spaces):
            return False
        if self.src and not read_spaces:
            return False
        return not (self.dst and dst_space not in self.dst)


@dataclass(frozen=True)
class OperandShape:
    """What the latency model needs to know about one memref operand."""

    shape: tuple[int, ...]
    element_bytes: int
    dtype: str = ""  # MLIR element type (f16, f32, ...); "" when unknown

    @property
    def bytes(self) -> int:
        return math.prod(self.shape) * self.element_bytes


def stream_cycles(size: int, bytes_per_cycle: float) -> int:
    """Cycles to stream ``size`` bytes at ``bytes_per_cycle`` (0 for an unbounded rate)."""
    return math.ceil(size / bytes_per_cycle) if bytes_per_cycle > 0 else 0


@dataclass(frozen=True)
class Target:
    """A machine model (DESIGN.md §3)."""

    name: str
    description: str
    sync: str
    issuers: tuple[str, ...]
    spaces: dict[str, Space]
    units: dict[str, Unit]
    routes: tuple[Route, ...]
    event_limit: int | None = None
    issue_cycles: int = 1
    path: str = ""
    frequency_hz: float | None = None
    # split-core targets (target/cores.py): the cores by name, in declaration order (empty:
    # one core); ``units`` then holds each core's instances (``AIC.MTE2``), and cross-core
    # flags (``sync.cross_set`` / ``cross_wait``) take ids below ``cross_event_limit``
    cores: dict[str, Core] = field(default_factory=dict)
    cross_event_limit: int | None = None
    # the target this one takes its numbers from (``base``), e.g. ascend-a2 for ascend-a2-mix:
    # its single-core twin, on which program-order (reference) semantics run
    base: Target | None = None

    def core_of(self, unit: str) -> str | None:
        """The core a unit instance (``AIC.MTE2``) belongs to; None on a target without cores
        or for a name that is no instance."""
        core, _ = split_unit(unit)
        return core if core in self.cores and unit in self.units else None

    def microseconds(self, cycles: int | float) -> float | None:
        """``cycles`` at the target's clock, in microseconds; None when it gives no clock."""
        return microseconds(cycles, self.frequency_hz)

    def route(self, op: str, read_spaces: tuple[str, ...], dst_space: str | None) -> Route | None:
        """The first routing rule that matches, or ``None`` when no unit can run the op.

        ``read_spaces`` are the spaces of the memref operands the op reads (all but
        the last), ``dst_space`` the space of the one it writes.
        """
        for rule in self.routes:
            if rule.matches(op, read_spaces, dst_space):
                return rule
        return None

    def cycles(self, op: str, rule: Route, operands: list[OperandShape]) -> int:
        """Duration of ``op`` on ``rule.unit`` given its memref operands (last = destination)."""
        unit = self.units[rule.unit]
        fixed = unit.fixed if rule.fixed is None else rule.fixed
        if op == "tile.matmul" and unit.matmul is not None and len(operands) >= 3:
            return fixed + unit.matmul.cycles(operands[0], operands[1])
        if op == "tile.matmul" and unit.macs_per_cycle and len(operands) >= 3:
            m, k = operands[0].shape[-2:]
            n = operands[1].shape[-1]
            blocks = math.ceil(k / max(unit.k_block, 1)) * unit.cycles_per_k_block
            return fixed + blocks + math.ceil(m * n * k / unit.macs_per_cycle)
        split = self._formula_split(op, unit, operands)
        if split is not None:
            # the vendor's form: its bias is the op's whole fixed cost, its slope the op's own
            return sum(split)
        bandwidth = rule.bytes_per_cycle or unit.bytes_per_cycle
        if rule.element_bytes is not None:
            moved = max((math.prod(o.shape) * rule.element_bytes for o in operands), default=0)
        else:
            moved = max((o.bytes for o in operands), default=0)
        work = math.ceil(moved / bandwidth) if bandwidth > 0 else 0
        return fixed + math.ceil(work * unit.op_factor.get(op, 1.0))

    def fused_terms(self, op: str, rule: Route, operands: list[OperandShape]) -> FusedTerms:
        """``op``'s terms in the fused-execution model of ``rule.unit`` (memref operands, last =
        destination); the one definition the simulator and the fusion planner both price fused
        spans with. Alone or first in a span with every operand through the local buffer, the op
        costs exactly :meth:`cycles`.

        An op priced by a vendor formula (:class:`VectorFormula`): the startup is the formula's
        bias (rounded), the streaming part ``slope x elements`` (rounded so that the two add up to
        the formula). The streaming part is the largest operand's stream; each other operand's is
        scaled by its share of the bytes, and an operand kept in registers streams ``bandwidth /
        register_bytes_per_cycle`` times as long (the local-buffer to register datapath ratio the
        fallback model uses; the vendor's model has no fused-loop figures). The op factor is
        the formula's own (1). Any other op: the unit's (or route's) ``fixed`` startup and
        ``bytes / rate`` per operand at the route's bandwidth or ``register_bytes_per_cycle``,
        times the op's factor.
        """
        unit = self.units[rule.unit]
        model = unit.fusion or FusionModel()
        bandwidth = self.bandwidth(rule)
        split = self._formula_split(op, unit, operands)
        if split is not None:
            startup, streaming = split
            largest = max(o.bytes for o in operands)
            ratio = bandwidth / model.register_bytes_per_cycle
            streams = []
            for o in operands:
                ub = -(-streaming * o.bytes // largest) if largest else 0
                streams.append((ub, math.ceil(ub * ratio)))
            return FusedTerms(startup, model.member_fixed, 1.0, tuple(streams))
        fixed = unit.fixed if rule.fixed is None else rule.fixed
        return FusedTerms(
            fixed, model.member_fixed, unit.op_factor.get(op, 1.0),
            tuple((stream_cycles(o.bytes, bandwidth),
                   stream_cycles(o.bytes, model.register_bytes_per_cycle)) for o in operands))

    def fused_cycles(self, op: str, rule: Route, operands: list[OperandShape],
                     in_registers: list[bool], head: bool) -> int:
        """Duration of ``op`` inside a fused span on ``rule.unit`` (which has a fusion model):
        :meth:`fused_terms` with operand ``k`` in vector registers when ``in_registers[k]``;
        ``head`` is the span's first op. With no operand in registers, the head costs exactly
        :meth:`cycles`.
        """
        return self.fused_terms(op, rule, operands).cycles(in_registers, head)

    @staticmethod
    def _formula_split(op: str, unit: Unit,
                       operands: list[OperandShape]) -> tuple[int, int] | None:
        """(startup, streaming) of ``op`` by the unit's vendor formula for its first operand's
        element type and shape, or None when the unit has no formula row for it."""
        formula = unit.formulas.get(op)
        if formula is None or not operands:
            return None
        return formula.split(operands[0].dtype, operands[0].shape)

    def bandwidth(self, rule: Route) -> float:
        """Bytes per cycle of ``rule`` (its own, else its unit's)."""
        return rule.bytes_per_cycle or self.units[rule.unit].bytes_per_cycle

    @property
    def queued_units(self) -> list[str]:
        return [u.name for u in self.units.values() if u.kind != "inline"]
