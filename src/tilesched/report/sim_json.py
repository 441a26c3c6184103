"""The ``tilesched sim --json`` / ``equiv --json`` objects (DESIGN.md §5)."""

from __future__ import annotations

from tilesched.sim.result import SimResult


def sim_json(result: SimResult) -> dict:
    """The contract fields of §5 first (``time_us`` when the target has a clock), then extras
    (``ratio``, ``bound_reason``, ...)."""
    clock = {} if result.frequency_hz is None else {
        "time_us": round(result.time_us, 4), "frequency_hz": result.frequency_hz}
    return {
        "cycles": result.cycles,
        **clock,
        "bound": result.bound,
        "races": [race.to_json() for race in result.races],
        "deadlock": None if result.deadlock is None
        else {"blocked": [b.to_json() for b in result.deadlock]},
        "violations": [v.to_json() for v in result.violations],
        "units": result.units,
        "sync_ops": result.sync_ops,
        "peak_live_events": result.peak_live_events,
        "ok": result.ok,
        "ratio": None if result.ratio is None else round(result.ratio, 4),
        "bound_reason": result.bound_reason,
        "target": result.machine,
        "ops_executed": result.ops_executed,
        "agents": result.agents,
        "steady_state": result.steady_state,
        "ops_simulated": result.ops_simulated,
        "ops_represented": result.ops_represented,
    }


def fused_spans(trace) -> int:
    """Fused spans executed: span heads (``fusion_order`` 0) followed by another op of their
    group, in the first issuer's op list (docs/fuse-tiles.md)."""
    ops = next(iter(trace.programs.values()), [])
    count = 0
    for op, following in zip(ops, ops[1:], strict=False):
        group = op.props.get("fusion_group")
        if group is not None and op.props.get("fusion_order") == 0 \
                and following.props.get("fusion_group") == group:
            count += 1
    return count


def equiv_json(verdict) -> dict:
    """``equiv --json``: the verdict, the differing buffers, and the candidate's simulation."""
    return {
        "equivalent": verdict.equivalent,
        "mismatches": [m.to_json() for m in verdict.mismatches],
        "problems": list(verdict.problems),
        "candidate": sim_json(verdict.candidate),
    }
