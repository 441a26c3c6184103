"""Human-readable simulation reports: cycles against the bound, utilization, findings."""

from __future__ import annotations

from tilesched.sim.result import SimResult


def sim_table(result: SimResult, title: str = "") -> str:
    """A short report: timing summary, per-unit utilization, then every finding."""
    lines = [title] if title else []
    ratio = f"{result.ratio:.3f}" if result.ratio is not None else "-"
    lines += [
        f"  target     {result.machine}",
        f"  cycles     {result.cycles}{_time(result)}",
        f"  bound      {result.bound}  ({result.bound_reason})",
        f"  ratio      {ratio}  (cycles / bound)",
        f"  ops        {result.ops_executed} tile ops, {result.sync_ops} sync ops",
        "",
        _unit_table(result),
    ]
    if result.peak_live_events:
        peaks = ", ".join(f"{pair} {n}" for pair, n in sorted(result.peak_live_events.items()))
        lines += ["", f"  peak live events: {peaks}"]
    lines += ["", *findings_lines(result)]
    return "\n".join(lines) + "\n"


def _time(result: SimResult) -> str:
    """``  (1.234 us at 1.85 GHz)`` when the target gives a clock, else nothing."""
    if result.time_us is None:
        return ""
    return f"  ({format_us(result.time_us)} at {result.frequency_hz / 1e9:g} GHz)"


def format_us(time_us: float) -> str:
    """A time in microseconds with 4 significant digits (``12.34 us``)."""
    return f"{time_us:.4g} us"


def _unit_table(result: SimResult) -> str:
    """``unit  busy  utilization`` rows, widest unit name first column."""
    width = max([len(name) for name in result.units] + [4])
    rows = [f"  {'unit':<{width}}  {'busy':>10}  {'util':>6}"]
    for name, entry in result.units.items():
        rows.append(f"  {name:<{width}}  {entry['busy']:>10}  {entry['utilization'] * 100:>5.1f}%")
    return "\n".join(rows)


def findings_lines(result: SimResult) -> list[str]:
    """Races, deadlock and violations, or a line saying there are none."""
    if result.ok:
        return ["  verdict    ok: no races, no deadlock, no sync violations"]
    lines = ["  verdict    FAULTY"]
    for race in result.races:
        more = f" (x{race.count})" if race.count > 1 else ""
        lines.append(f"  race on {race.buffer}{more}: {race.first.op} at {race.first.loc} "
                     f"[{race.first.unit}] vs {race.second.op} at {race.second.loc} "
                     f"[{race.second.unit}]")
    if result.deadlock is not None:
        lines.append("  deadlock:")
        lines += [f"    {blocked}" for blocked in result.deadlock]
    for violation in result.violations:
        more = f" (x{violation.count})" if violation.count > 1 else ""
        lines.append(f"  {violation.kind}{more}: {violation.detail}")
    return lines
