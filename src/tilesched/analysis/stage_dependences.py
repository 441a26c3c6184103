"""Dependences between warp-pipeline stages, per pair of issuer groups (AMD targets).

Both issuer groups run every stage; under warp pipelining the high group runs one stage behind
the low group (``schedule/warp_barriers.py`` has the model). So the question for two conflicting
accesses ``X`` (earlier in program order) and ``Y`` is, for each pair of groups, *at which
smallest distance in stage instances* they conflict:

- accesses are those of :func:`~tilesched.analysis.effects.effects_of` (effects nested in
  ``scf.if`` and loops inside a stage included; a loop's accesses widened over its iterations);
- what one group touches follows the simulator's cooperation model: private spaces (registers,
  ``local``) exist once per group, so only the same group conflicts there; a write to shared
  memory covers the group's share of the region (the first dimension with at least as many
  elements as groups, split in contiguous chunks); a read is of the same share when the op's
  destination is shared and of the operand's shape, else of the whole region (mirrors
  :func:`tilesched.sim.trace.group_share`);
- slots ``tile.slot %buf[(i + c) mod N]`` are compared exactly, within an iteration and across
  iterations (:func:`~tilesched.analysis.dependence.min_conflict_distance`), so double-buffered
  LDS does not conflict between the slot being filled and the slot being read;
- an access is *asynchronous* when its op runs on an LDS unit: the other group sees it only after
  a local barrier. Two ops on that unit of one group are ordered by its in-order queue, and its
  register (private) accesses complete for its own group when the group next touches those
  registers (the per-wave ``s_waitcnt``, DESIGN.md §4): a stage may consume what its own LDS
  reads loaded, with no barrier. An async global->LDS copy (``pipe = "ASYNC0"``, AMD async queue)
  is asynchronous too; its own group sees it after the ``sync.wait_group`` the program writes at
  a stage boundary (Triton's ``async_wait``), the other group after the barrier that follows it.

A loop pipeline is circular (``Y`` may sit in a later iteration, at any distance), a flat one
linear. Ops with unknown effects (``tile.call``) conflict with everything.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.dialects import func, scf
from xdsl.ir import Operation

from tilesched.analysis.dependence import min_conflict_distance
from tilesched.analysis.effects import defined_inside, effects_of
from tilesched.analysis.regions import Interval, Region, disjoint, root_region
from tilesched.analysis.units import unit_kind
from tilesched.ir.affine import Affine, Mod, constant_value
from tilesched.ir.tile import TileOp
from tilesched.ir.types import memory_space, memref_shape
from tilesched.target.model import Target

GROUPS = 2  # warp pipelining splits a workgroup into a low and a high issuer group
PRIVATE_SPACES = ("local",)  # per-group copies (as the simulator's lowering: registers)


@dataclass(frozen=True)
class StageAccess:
    """One read or write of a warp-pipeline stage.

    ``order`` is the access's place in the stage's program order (top-level op, walk index,
    reads before the write); ``looped`` marks accesses inside a loop within the stage, whose
    instances interleave both ways with each other. ``share`` is ``"share"`` (this group's part
    of a shared region), ``"full"`` or ``"private"``; it is applied only to an ``exact`` region
    (one that does not move with a loop inside the stage; a widened one counts in full).
    """

    stage: int
    order: tuple[int, int]
    region: Region
    write: bool
    asynchronous: bool
    share: str
    op: Operation
    top: int
    looped: bool = False
    exact: bool = True
    unknown: bool = False
    shares: tuple = ()  # per group: what it touches (None: nothing); see :meth:`group_region`
    queue: str | None = None  # the asynchronous unit it runs on (LDS queue, async copy queue)

    def group_region(self, group: int) -> Region | None:
        """What group ``group`` touches (None: nothing)."""
        if self.shares:
            return self.shares[group]
        if self.share != "share" or not self.exact:
            return self.region
        return group_share(self.region, group)

    def with_shares(self) -> StageAccess:
        """The same access with its per-group regions computed once."""
        return replace(self, shares=tuple(self.group_region(g) for g in range(GROUPS)))


@dataclass(frozen=True)
class StagePair:
    """``x`` (program order first) and ``y`` conflict at ``distance`` stage instances (``y``'s
    position minus ``x``'s) when ``x`` is run by group ``groups[0]`` and ``y`` by ``groups[1]``
    (0: low, 1: high); ``groups`` is None for "each group with itself". ``x.asynchronous``
    decides whether the barrier between them must be local."""

    x: StageAccess
    y: StageAccess
    groups: tuple[int, int] | None
    distance: int


def group_share(region: Region, group: int) -> Region | None:
    """The part of a shared region group ``group`` writes: contiguous chunks of the first
    dimension with at least :data:`GROUPS` elements (the leading group gets the first)."""
    dims = list(region.dims)
    for k, dim in enumerate(dims):
        if dim.size >= GROUPS:
            step = -(-dim.size // GROUPS)
            offset = group * step
            size = min(dim.size - offset, step)
            if size <= 0:
                return None
            start = dim.start + Affine(offset) if isinstance(dim.start, Affine) else None
            dims[k] = Interval(start, size) if start is not None or offset == 0 else \
                Interval(None, size)
            return replace(region, dims=tuple(dims))
    return region if group == 0 else None


def stage_accesses(stages: list[list[Operation]], target: Target) -> list[StageAccess]:
    """Every access of every stage (``stages[s]`` is the top-level ops of stage ``s``)."""
    out: list[StageAccess] = []
    for s, ops in enumerate(stages):
        for top, op in enumerate(ops):
            out.extend(_op_accesses(s, top, op, target))
    return out


def _op_accesses(stage: int, top: int, top_op: Operation, target: Target) -> list[StageAccess]:
    effects = effects_of(top_op)
    looped = any(isinstance(inner, scf.ForOp) for inner in top_op.walk())
    out, per_op = [], {}
    for index, access in enumerate(effects.accesses):
        op = access.op
        k = per_op.get(op, 0)
        per_op[op] = k + 1
        # a call may run LDS ops: its accesses are visible to the other group at a local barrier
        # so does an async global->LDS copy (AMD async queue), once its group's wait_group
        # (written by the program at a stage boundary) has completed it
        unit, kind = unit_kind(op, target)
        asynchronous = kind in ("lds", "async") or isinstance(op, func.CallOp)
        share = _share_rule(op, k, access.write, access.region)
        exact = op is top_op or _fixed_in(op, k, top_op)
        out.append(StageAccess(stage, (top, index), access.region, access.write, asynchronous,
                               share, op, top, looped, exact, effects.unknown,
                               queue=unit if asynchronous else None).with_shares())
    return out


def _fixed_in(op: Operation, k: int, top_op: Operation) -> bool:
    """Is the ``k``-th access of ``op`` (nested in ``top_op``) the same region in every
    instance of ``top_op``'s loops (no offset computed inside ``top_op``)?"""
    if not isinstance(op, TileOp):
        return False
    operands = op.read_operands() + [op.written()]
    if k >= len(operands) or operands[k] is None:
        return False
    for dim in root_region(operands[k]).dims:
        if not isinstance(dim.start, Affine | Mod):
            return False
        base = dim.start if isinstance(dim.start, Affine) else dim.start.base
        if any(defined_inside(v, top_op) for v, _ in base.terms):
            return False
    return True


def _share_rule(op: Operation, k: int, write: bool, region: Region) -> str:
    """``private``, ``share`` or ``full`` for the ``k``-th access of ``op`` (reads, then write)."""
    if memory_space(region.root.type) in PRIVATE_SPACES:
        return "private"
    if not isinstance(op, TileOp) or op.name == "tile.call":
        return "full"
    if write:
        return "share"
    dst = op.written()
    reads = op.read_operands()
    if dst is None or k >= len(reads) or memory_space(dst.type) in PRIVATE_SPACES:
        return "full"
    return "share" if memref_shape(reads[k].type) == memref_shape(dst.type) else "full"


def stage_pairs(accesses: list[StageAccess], n: int, loop: scf.ForOp | None,
                split: int | None = None) -> list[StagePair]:
    """For each conflicting ordered pair and pair of groups, the smallest distance at which it
    conflicts (``loop``: circular, iterations apart; ``None``: a flat pipeline). With ``split``
    (flat only), just the pairs from a stage before ``split`` to one at or after it."""
    limit = _iteration_limit(loop) if loop is not None else 0
    by_root: dict[object, list[StageAccess]] = {}
    unknown: list[StageAccess] = []
    for access in accesses:
        (unknown if access.unknown else by_root.setdefault(access.region.root, [])).append(access)
    def wanted(x: StageAccess, y: StageAccess) -> bool:
        return split is None or x.stage < split <= y.stage

    found: list[StagePair] = []
    for group in by_root.values():
        for x in group:
            for y in group:
                if (x.write or y.write) and wanted(x, y):
                    found.extend(_pair(x, y, n, loop, limit))
    for u in unknown:
        for other in accesses:
            if wanted(u, other):
                found.extend(_pair(u, other, n, loop, limit))
            if not other.unknown and wanted(other, u):
                found.extend(_pair(other, u, n, loop, limit))
    return found


def _pair(x: StageAccess, y: StageAccess, n: int, loop, limit: int) -> list[StagePair]:
    """The smallest distance per group combination at which ``x`` then ``y`` conflict."""
    combos: list[tuple[int, int] | None] = []
    if x.share != "private" and y.share != "private":
        combos += [(0, 1), (1, 0)]
    if x.asynchronous and (not y.asynchronous or y.queue != x.queue) and x.share != "private":
        combos.append(None)  # one group's LDS op, then its own op on another unit (not registers)
    if not combos:
        return []
    same_iteration = _before(x, y)
    out = []
    for combo in combos:
        distance = _min_distance(x, y, combo, n, loop, limit, same_iteration)
        if distance is not None:
            out.append(StagePair(x, y, combo, distance))
    return out


def _before(x: StageAccess, y: StageAccess) -> bool:
    """Does ``x`` come before ``y`` within one iteration (both orders inside a stage's loop)?"""
    if x.stage != y.stage:
        return x.stage < y.stage
    if x.top == y.top and x.looped:
        return True
    return x.order < y.order


def _min_distance(x, y, combo, n, loop, limit, same_iteration) -> int | None:
    best = None
    for gx, gy in [(0, 0), (1, 1)] if combo is None else [combo]:
        rx, ry = x.group_region(gx), y.group_region(gy)
        if rx is None or ry is None:
            continue
        if same_iteration and _overlap(x, y, rx, ry):
            return y.stage - x.stage
        if loop is not None and limit >= 1:
            d = 1 if (x.unknown or y.unknown) else min_conflict_distance(rx, ry, loop, limit)
            if d is not None and (best is None or d < best):
                best = d
    return None if best is None else best * n + y.stage - x.stage


def _overlap(x: StageAccess, y: StageAccess, rx: Region, ry: Region) -> bool:
    return x.unknown or y.unknown or not disjoint(rx, ry)


def _iteration_limit(loop: scf.ForOp) -> int:
    """The largest iteration distance the loop has (trip count - 1), or a huge one."""
    lb, ub, step = (constant_value(v) for v in (loop.lb, loop.ub, loop.step))
    if None not in (lb, ub, step) and step > 0:
        return max(0, (ub - lb + step - 1) // step - 1)
    return 1 << 40
