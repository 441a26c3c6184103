"""The fusion annotations on the IR: the one module that reads, checks and writes them.

Every pass and command reads and writes fusion annotations through this module (none imports
another pass's package for them): ``fuse-tiles`` writes them, ``insert-sync``,
``reorder-events``, ``modulo-schedule``, ``software-pipeline`` and ``emit-cpp`` read them and
restore the contract after moving ops, the input loader checks them.

``tile.fusion_group = G : i64``, ``tile.fusion_order = K : i64`` and ``tile.last_use =
array<i1: ...>`` (DESIGN.md §2, Fusion contract). :func:`annotation_errors` rejects what a
person may write wrong (exit 2, ``file:line:col``): a group on an op that is not vector compute,
an order without a group, repeated orders in a group, members of different iteration domains,
last-use flags of the wrong length or set on the written operand.

:func:`refresh_fusion_groups` is what a pass that moves or copies ops calls at its end: every
maximal run of consecutive ops of one group (pure ops a pass placed between members are moved
before it) that holds all of the group's orders becomes a group with a fresh id (a copy made by
software pipelining is a group of its own), every other op of a broken group loses its
annotations, and the last-use flags are recomputed for the program as it now is.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, MemRefType, ModuleOp, i1, i64
from xdsl.ir import Block, Operation

from tilesched.analysis.fusion_liveness import function_liveness
from tilesched.analysis.fusion_semantics import COMPUTE, PURE, op_semantics
from tilesched.diagnostics import TileschedError
from tilesched.ir.blocks import functions
from tilesched.ir.text import location_of
from tilesched.ir.tile import FUSION_GROUP, FUSION_ORDER, LAST_USE
from tilesched.target.model import Target

FUSION_ATTRS = (FUSION_GROUP, FUSION_ORDER, LAST_USE)


def annotation_errors(module: ModuleOp) -> list[TileschedError]:
    """Malformed or contradictory hand-written fusion annotations, in program order."""
    errors: list[TileschedError] = []
    for function in functions(module):
        seen_orders: dict[tuple[int, int], Operation] = {}
        domains: dict[int, tuple[Operation, object]] = {}
        for op in function.walk():
            message = _op_error(op, seen_orders, domains)
            if message:
                errors.append(TileschedError(message, location_of(op)))
    return errors


def _op_error(op: Operation, seen_orders: dict, domains: dict) -> str | None:
    present = [name for name in FUSION_ATTRS if name in op.attributes]
    if not present:
        return None
    for name in (FUSION_GROUP, FUSION_ORDER):
        attr = op.attributes.get(name)
        if attr is not None and not (isinstance(attr, IntegerAttr) and attr.type == i64
                                     and attr.value.data >= 0):
            return f"'{name}' must be a non-negative i64 integer, got {attr}"
    if FUSION_GROUP not in op.attributes:
        return f"'{present[0]}' on '{op.name}' without 'tile.fusion_group'"
    semantics = op_semantics(op)
    if semantics.kind != COMPUTE:
        why = semantics.reason if "fused" not in semantics.reason else ""
        return (f"'{op.name}' cannot be in a fusion group: only vector compute ops are fused"
                + (f" ({why})" if why else ""))
    group = op.attributes[FUSION_GROUP].value.data
    if FUSION_ORDER in op.attributes:
        order = op.attributes[FUSION_ORDER].value.data
        first = seen_orders.setdefault((group, order), op)
        if first is not op:
            where = location_of(first)
            return (f"fusion group {group} has tile.fusion_order {order} twice (first"
                    f"{' at ' + str(where) if where else ''})")
    earlier = domains.setdefault(group, (op, semantics.domain, semantics.valid))
    if earlier[1] != semantics.domain:
        shape = "x".join(map(str, semantics.domain or ())) or "no static shape"
        other = "x".join(map(str, earlier[1] or ())) or "no static shape"
        return (f"fusion group {group} mixes iteration domains: '{op.name}' iterates over {shape},"
                f" '{earlier[0].name}' over {other}")
    if earlier[2] != semantics.valid:
        return (f"fusion group {group} mixes valid regions: those of '{op.name}' and "
                f"'{earlier[0].name}' cannot be proven equal")
    return _last_use_error(op)


def _last_use_error(op: Operation) -> str | None:
    attr = op.attributes.get(LAST_USE)
    if attr is None:
        return None
    count = sum(isinstance(v.type, MemRefType) for v in op.operands)
    if not isinstance(attr, DenseArrayBase) or attr.elt_type != i1:
        return f"'tile.last_use' must be an array<i1: ...>, got {attr}"
    flags = attr.get_values()
    if len(flags) != count:
        return (f"'tile.last_use' needs one flag per memref operand of '{op.name}' ({count}), "
                f"got {len(flags)}")
    if flags and flags[-1]:
        return "'tile.last_use' of the written (last) operand must be false"
    return None


def strip(op: Operation) -> None:
    """Remove every fusion annotation from ``op``."""
    for name in FUSION_ATTRS:
        op.attributes.pop(name, None)


def set_group(op: Operation, group: int, order: int) -> None:
    op.attributes[FUSION_GROUP] = _i64(group)
    op.attributes[FUSION_ORDER] = _i64(order)


@lru_cache(maxsize=4096)
def _i64(value: int) -> IntegerAttr:
    """An ``i64`` attribute, made once per value (attributes are immutable and shared)."""
    return IntegerAttr(value, i64)


@lru_cache(maxsize=1024)
def _flags(flags: tuple[bool, ...]) -> DenseArrayBase:
    """A ``tile.last_use`` array, made once per pattern."""
    return DenseArrayBase.from_list(i1, [int(f) for f in flags])


def group_id(op: Operation) -> int | None:
    """The ``tile.fusion_group`` of ``op`` (None when absent or not an integer)."""
    attr = op.attributes.get(FUSION_GROUP)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def mark_last_use(function: func.FuncOp, target: Target | None = None) -> None:
    """Set ``tile.last_use`` on every op of every group, from the function as it is now
    (``target``: which arguments of a kernel entry are on-chip, see :func:`global_spaces`)."""
    members = [op for op in function.walk() if group_id(op) is not None]
    if not members:
        return
    facts = function_liveness(function, global_spaces=global_spaces(target))
    for op in members:
        op.attributes[LAST_USE] = _flags(tuple(facts.flags(op)))


def runs(block: Block) -> list[list[Operation]]:
    """Maximal runs of consecutive ops of ``block`` with the same fusion group. A pure op
    between two members (a slot or index arithmetic a pass emitted there) is moved before the
    run, where ``fuse-tiles`` puts them; any other op ends the run."""
    found: list[list[Operation]] = []
    current: list[Operation] | None = None
    between: list[Operation] = []
    for op in list(block.ops):
        group = group_id(op)
        if group is None:
            if current is not None and op_semantics(op).kind == PURE:
                between.append(op)
            else:
                current, between = None, []
        elif current is not None and group_id(current[-1]) == group:
            for pure in between:
                pure.detach()
                block.insert_op_before(pure, current[0])
            between = []
            current.append(op)
        else:
            current, between = [op], []
            found.append(current)
    return found


def global_spaces(target: Target | None) -> frozenset[str] | None:
    """The global memory spaces of ``target`` (None without a target: then no argument of a
    kernel entry is taken for on-chip)."""
    if target is None:
        return None
    return frozenset(name for name, space in target.spaces.items() if space.is_global)


def refresh_fusion_groups(module: ModuleOp, target: Target | None = None) -> None:
    """Restore the Fusion contract after a pass moved or copied ops (module docstring)."""
    for function in functions(module):
        if not any(FUSION_GROUP in op.attributes for op in function.walk()):
            continue  # nothing fused: nothing to restore (one cheap walk on large programs)
        orders: dict[int, list[int]] = defaultdict(list)
        all_runs: list[list[Operation]] = []
        for op in function.walk():
            if group_id(op) is not None:
                orders[group_id(op)].append(_order(op))
            for region in op.regions:
                for block in region.blocks:
                    all_runs.extend(runs(block))
        complete = {g: sorted(set(found)) for g, found in orders.items()}
        next_id = 0
        for run in (copy for whole in all_runs for copy in _copies(whole)):
            group = group_id(run[0])
            if len(run) >= 2 and [_order(op) for op in run] == complete[group]:
                for position, op in enumerate(run):
                    set_group(op, next_id, position)
                next_id += 1
            else:
                for op in run:
                    strip(op)
        mark_last_use(function, target)


def _copies(run: list[Operation]) -> list[list[Operation]]:
    """Split a run where its orders stop increasing (copies placed back to back)."""
    copies = [[run[0]]]
    for op in run[1:]:
        if _order(op) > _order(copies[-1][-1]):
            copies[-1].append(op)
        else:
            copies.append([op])
    return copies


def _order(op: Operation) -> int:
    attr = op.attributes.get(FUSION_ORDER)
    return attr.value.data if isinstance(attr, IntegerAttr) else -1


def last_use_flags(op: Operation) -> list[bool] | None:
    """The ``tile.last_use`` flags of ``op`` (one per memref operand), or None."""
    attr = op.attributes.get(LAST_USE)
    if not isinstance(attr, DenseArrayBase):
        return None
    return [bool(v) for v in attr.get_values()]


def span_of(op: Operation) -> list[Operation]:
    """The maximal run of consecutive ops around ``op`` with its fusion group ([op] if none)."""
    group = group_id(op)
    if group is None or op.parent_block() is None:
        return [op]
    before, current = [], op.prev_op
    while current is not None and group_id(current) == group:
        before.append(current)
        current = current.prev_op
    after, current = [], op.next_op
    while current is not None and group_id(current) == group:
        after.append(current)
        current = current.next_op
    return [*reversed(before), op, *after]


def span_units(ops: list[Operation], keep=None) -> list[list[int]]:
    """Indices of ``ops`` grouped into scheduling units: each maximal run of two or more
    consecutive ops of one fusion group is one unit (later passes insert nothing inside it and
    move it whole), every other op is a unit of its own. A run for which ``keep(run)`` is false
    loses its annotations instead (a pass that must break a span removes them)."""
    units: list[list[int]] = []
    k = 0
    while k < len(ops):
        group = group_id(ops[k])
        end = k + 1
        while group is not None and end < len(ops) and group_id(ops[end]) == group:
            end += 1
        run = list(range(k, end))
        if len(run) >= 2 and (keep is None or keep([ops[i] for i in run])):
            units.append(run)
        else:
            if len(run) >= 2:
                for i in run:
                    strip(ops[i])
            units.extend([i] for i in run)
        k = end
    return units


def unit_pairs(units: list[list[int]], pairs) -> list[tuple]:
    """``(src, dst, ...)`` tuples over ops mapped to units; plain pairs inside one unit are
    dropped (loop-carried triples are kept: a unit may depend on its previous iteration)."""
    unit_of = {i: u for u, members in enumerate(units) for i in members}
    mapped = {(unit_of[p[0]], unit_of[p[1]], *p[2:]) for p in pairs}
    return sorted(p for p in mapped if len(p) > 2 or p[0] != p[1])
