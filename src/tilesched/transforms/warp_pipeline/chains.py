"""Back-to-back pipelines: leave out the postlude/prelude pair between two pipelines of a block.

When pipeline B directly follows pipeline A (only index math between them), the low group's
reconvergence after A and the high group's phase shift before B cancel out, and the prelude's
local barrier is redundant unless an LDS dependence crosses the boundary. Without them the phase
carries over: the high group runs A's last stage while the low group runs B's first, exactly as
if A and B were one pipeline. The barrier between them is A's wrap-around barrier (a loop) or a
barrier after A's last stage (flat: kept, and made local when that makes the join safe).

The join is safe when every access pair between the pipelines of the chain (A and everything
joined before it) and B meets the phase-shift model's requirement on the barriers actually
between them: the tail of X's pipeline, each pipeline in between (a loop that may run no
iteration counts as empty), the head of B. Every stage of B is checked, not only its first, and
every earlier pipeline of the chain, not only A. Triton joins loop->loop and loop->flat only and
checks the pipelines next to each other; here loop->loop, loop->flat, flat->loop and flat->flat.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.ir import Operation

from tilesched.analysis.stage_dependences import StageAccess, stage_pairs
from tilesched.ir.affine import constant_value
from tilesched.schedule.warp_barriers import is_met
from tilesched.target.model import Target
from tilesched.transforms.warp_pipeline.barriers import pipeline_accesses, requirements_of
from tilesched.transforms.warp_pipeline.lowering import Plan
from tilesched.transforms.warp_pipeline.stages import _does_work


@dataclass
class _Layout:
    """Pipelines laid out in one line of stage positions, with the local barrier positions."""

    accesses: list[StageAccess]
    local: set[int]
    length: int


def join_back_to_back(plans: list[Plan], target: Target) -> int:
    """Join adjacent pipelines of each block where safe (updates the plans); returns how many
    postlude/prelude pairs were left out."""
    joined = 0
    accesses = {id(plan): pipeline_accesses(plan.pipeline, target) for plan in plans}
    for block_plans in _by_block(plans):
        chain: list[Plan] = []
        for plan in block_plans:
            if chain and _adjacent(chain[-1], plan) and _join(chain, plan, accesses):
                chain[-1].postlude = False
                plan.prelude = False
                chain.append(plan)
                joined += 1
            else:
                chain = [plan]
    return joined


def _by_block(plans: list[Plan]) -> list[list[Plan]]:
    """The plans of each block, in program order."""
    blocks: dict[int, list[Plan]] = {}
    for plan in plans:
        blocks.setdefault(id(plan.pipeline.first_op().parent), []).append(plan)
    out = []
    for group in blocks.values():
        order = {id(op): i for i, op in enumerate(group[0].pipeline.first_op().parent.ops)}
        out.append(sorted(group, key=lambda p: order[id(p.pipeline.first_op())]))
    return out


def _adjacent(a: Plan, b: Plan) -> bool:
    """Is ``b`` the next op of ``a``'s block after ``a`` (index math aside)?"""
    first, last = b.pipeline.first_op(), a.pipeline.last_op()
    if first.parent is not last.parent:
        return False
    op: Operation | None = last.next_op
    while op is not None and op is not first:
        if _does_work(op) or op.name.startswith("sync."):
            return False
        op = op.next_op
    return op is first


def _join(chain: list[Plan], b: Plan, accesses: dict) -> bool:
    """Is joining ``b`` to ``chain`` safe? A flat predecessor's closing barrier is made local
    when that is what it takes."""
    last = chain[-1]
    for junction_local in (False, True):
        if junction_local and last.pipeline.circular:
            return False
        if junction_local:
            last.local.add(last.pipeline.n)
        if all(_cross_safe(chain[a:], b, accesses) for a in range(len(chain))):
            if not last.pipeline.circular:
                last.junction = True
            return True
        if junction_local:
            last.local.discard(last.pipeline.n)
    return False


def _cross_safe(plans: list[Plan], b: Plan, accesses: dict) -> bool:
    """Do the pairs from ``plans[0]`` to ``b`` meet their requirements across the plans between?"""
    first = _layout([plans[0]], accesses, whole=True)
    middle = _layout(plans[1:], accesses, whole=False)
    offset = first.length + middle.length
    xs = first.accesses
    ys = [replace(y, stage=y.stage + offset) for y in accesses[id(b)]]
    local = first.local | {k + first.length for k in middle.local} | \
        {k + offset for k in _own_local(b)}
    if (0 if b.pipeline.circular else b.pipeline.n) in b.local:
        local.add(offset + b.pipeline.n)  # B's barrier after its first iteration / last stage
    pairs = stage_pairs(xs + ys, offset + b.pipeline.n, None, split=first.length)
    return all(is_met(req, 0, False, local) for req in requirements_of(pairs))


def _layout(plans: list[Plan], accesses: dict, whole: bool) -> _Layout:
    """One iteration of each loop (none for a loop that may not run, unless ``whole``: the
    pipeline holding ``X``) and every stage of each flat pipeline, with the barrier after each
    (wrap-around or closing barrier) at the end."""
    out = _Layout([], set(), 0)
    for plan in plans:
        pipeline = plan.pipeline
        if pipeline.circular and not whole and not _runs(pipeline.loop):
            continue
        base = out.length
        out.accesses += [replace(a, stage=a.stage + base) for a in accesses[id(plan)]]
        out.local |= {base + k for k in _own_local(plan) if 0 < k < pipeline.n}
        if (0 if pipeline.circular else pipeline.n) in plan.local:
            out.local.add(base + pipeline.n)
        out.length = base + pipeline.n
    return out


def _own_local(plan: Plan) -> set[int]:
    return {k for k in plan.local if 0 < k < plan.pipeline.n}


def _runs(loop) -> bool:
    """Does the loop surely run at least once (constant bounds)?"""
    lb, ub = constant_value(loop.lb), constant_value(loop.ub)
    return lb is not None and ub is not None and ub > lb
