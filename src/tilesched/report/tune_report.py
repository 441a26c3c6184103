"""``tilesched tune`` output: the JSON object per kernel and target (DESIGN.md §2), the text
summary table, and the optional PNG (best vs baseline per kernel, convergence)."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tilesched.tune.summary import Summary


def tune_json(summary: Summary) -> dict:
    """``{kernel, target, best: {pipeline, cycles, bound}, baseline: {pipeline, cycles}, trials}``;
    ``best`` is null when no candidate is correct, baseline ``cycles`` when it is not."""
    best = summary.best
    baseline = summary.baseline.outcome

    def timed(cycles: int | None) -> dict:
        time_us = summary.time_us(cycles)
        return {} if time_us is None else {"time_us": round(time_us, 4)}

    return {
        "kernel": summary.kernel,
        "target": summary.target,
        "best": None if best is None else {"pipeline": best.outcome.pipeline,
                                           "cycles": best.outcome.cycles,
                                           **timed(best.outcome.cycles),
                                           "bound": best.outcome.bound},
        "baseline": {"pipeline": baseline.pipeline, "cycles": baseline.cycles,
                     **timed(baseline.cycles)},
        "trials": len(summary.trials),
    }


def tune_table(summaries: list[Summary], heading: str) -> str:
    """The summary table, then per kernel the best pipeline as an ``opt`` command line."""
    columns = f"{'kernel':<28} {'target':<12} {'trials':>6} {'failed':>6} {'baseline':>9} " \
              f"{'best':>8} {'bound':>7} {'best/bound':>10} {'speedup':>8}"
    lines = [heading, "", columns, "-" * len(columns)]
    for s in summaries:
        base = s.baseline.outcome
        best = s.best.outcome if s.best else None
        ratio = f"{best.cycles / best.bound:.2f}" if best and best.bound else "-"
        speedup = f"{s.speedup:.2f}x" if s.speedup else "-"
        lines.append(f"{_cut(s.kernel, 28):<28} {_cut(s.target, 12):<12} {len(s.trials):>6} "
                     f"{sum(s.failures.values()):>6} {_num(base.cycles):>9} "
                     f"{_num(best.cycles if best else None):>8} "
                     f"{_num(best.bound if best else base.bound):>7} {ratio:>10} {speedup:>8}")
    lines.append("")
    for s in summaries:
        lines += _details(s)
    return "\n".join(lines) + "\n"


def _details(s: Summary) -> list[str]:
    base = s.baseline.outcome
    lines = []
    if s.best is None:
        lines.append(f"{s.kernel} on {s.target}: no candidate is correct ({_failures(s)})")
    else:
        best = s.best.outcome
        lines.append(f"{s.kernel} on {s.target}: best {best.cycles} cycles{_us(s, best.cycles)} "
                     f"(bound {best.bound}) "
                     f"in trial {s.best.number}:")
        lines.append(f"  tilesched opt {shlex.quote(s.kernel)} --target {shlex.quote(s.target)} "
                     f"-p {shlex.quote(best.pipeline)}")
    if base.ok:
        lines.append(f"  baseline (default pipeline) {base.cycles} cycles{_us(s, base.cycles)}: "
                     f"{base.pipeline}")
    else:
        lines.append(f"  baseline (default pipeline) fails: {base.verdict}: {base.reason}")
    if s.failures and s.best is not None:
        lines.append(f"  failing candidates (never chosen): {_failures(s)}")
    lines.append(f"  stopped: {s.stop_reason}")
    return lines + [""]


def _failures(s: Summary) -> str:
    counts = ", ".join(f"{n} {verdict}" for verdict, n in sorted(s.failures.items()))
    first = next((t.outcome for t in s.trials if not t.outcome.ok), None)
    return counts + (f"; e.g. {first.reason}" if first is not None and first.reason else "")


def _us(s: Summary, cycles: int | None) -> str:
    """`` = 1.234 us`` at the target's clock, or nothing."""
    time_us = s.time_us(cycles)
    return "" if time_us is None else f" = {time_us:.4g} us"


def _num(value: int | None) -> str:
    return "-" if value is None else str(value)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else "..." + text[-(width - 3):]


def write_tune_plot(summaries: list[Summary], write) -> None:
    """Two panels: cycles / bound of baseline and best per kernel, and the best so far
    (relative to the baseline) after each trial. ``write(figure)`` saves the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (bars, curves) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = [f"{s.kernel.rsplit('/', 1)[-1]}\n{s.target}" for s in summaries]
    xs = range(len(summaries))

    def ratio(outcome):
        return outcome.cycles / outcome.bound if outcome.ok and outcome.bound else 0.0

    bars.bar([x - 0.2 for x in xs], [ratio(s.baseline.outcome) for s in summaries], 0.4,
             label="default pipeline")
    bars.bar([x + 0.2 for x in xs], [ratio(s.best.outcome) if s.best else 0.0 for s in summaries],
             0.4, label="best found")
    bars.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    bars.set_xticks(list(xs), labels, fontsize=7)
    bars.set_ylabel("cycles / lower bound")
    bars.set_title("best vs default pipeline (1.0 = bound)")
    bars.legend()
    for s in summaries:
        base = s.baseline.outcome
        if not base.ok:
            continue
        ys = [b / base.cycles if b is not None else None for b in s.best_so_far()]
        curves.plot(range(1, len(ys) + 1), ys, label=labels[summaries.index(s)].replace("\n", " "))
    curves.set_xlabel("candidates evaluated")
    curves.set_ylabel("best cycles / default pipeline cycles")
    curves.set_title("convergence")
    if summaries:
        curves.legend(fontsize=7)
    fig.tight_layout()
    write(fig)
    plt.close(fig)
