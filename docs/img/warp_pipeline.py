"""Draw docs/img/warp-pipeline.png: the two issuer groups of the warp-pipelined AMD GEMM example,
as the simulator runs them (``python docs/img/warp_pipeline.py``).

One row per group for its work on the shared SIMD unit (mfma) and one per group for its own LDS
queue (prefetch loads, ds_read copies); vertical lines are barrier releases. The high group runs
one stage behind the low one, so one group's LDS traffic overlaps the other's mfma.
"""

from __future__ import annotations

import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tilesched.examples import example_path  # noqa: E402
from tilesched.ir import parse_text, print_module  # noqa: E402
from tilesched.sim.lowering.lower import lower_module  # noqa: E402
from tilesched.sim.run import simulate  # noqa: E402
from tilesched.target import load_target  # noqa: E402
from tilesched.transforms.pass_base import TileContext  # noqa: E402
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline  # noqa: E402

OUT = pathlib.Path(__file__).with_name("warp-pipeline.png")
COLORS = {"tile.load": "#4c72b0", "tile.copy": "#55a868", "tile.matmul": "#c44e52"}
LABELS = {"tile.load": "stage global_to_lds (prefetch)", "tile.copy": "stage lds_to_regs",
          "tile.matmul": "stage mfma"}
ROWS = ["low", "LDS@low", "high", "LDS@high"]
NAMES = {"low": "low group: SIMD", "LDS@low": "low group: LDS",
         "high": "high group: SIMD", "LDS@high": "high group: LDS"}


def timeline(pipeline: str):
    target = load_target("amd-gfx950")
    module = parse_text(example_path("amd_gemm").read_text(), "amd_gemm.mlir")
    run_pipeline(module, parse_pass_pipeline(pipeline), TileContext(target))
    trace = lower_module(parse_text(print_module(module), "out.mlir"), target)
    return simulate(trace, record=True)


def draw(ax, result, title: str, window: tuple[int, int]) -> None:
    tl = result.timeline
    for agent, start, end, index in tl.ops:
        name = tl.agents[agent]
        op = tl.op_table[index].name
        if name in ROWS and op in COLORS and start < window[1] and end > window[0]:
            row = len(ROWS) - 1 - ROWS.index(name)
            ax.barh(row, end - start, left=start, height=0.6, color=COLORS[op], edgecolor="white")
    for _, release in tl.barriers.values():
        if release is not None and window[0] <= release <= window[1]:
            ax.axvline(release, color="#999999", lw=0.6, ls=":")
    ax.set_yticks(range(len(ROWS)))
    ax.set_yticklabels([NAMES[r] for r in reversed(ROWS)], fontsize=8)
    ax.set_xlim(*window)
    ax.set_title(f"{title}: {result.cycles} cycles", fontsize=9, loc="left")


def main() -> None:
    piped = timeline("warp-pipeline,insert-sync")
    plain = timeline("insert-sync")
    window = (0, 4200)
    fig, axes = plt.subplots(2, 1, figsize=(9, 4.2), sharex=True)
    draw(axes[0], plain, "unpipelined (insert-sync): both groups in lockstep", window)
    draw(axes[1], piped, "warp-pipelined: the high group one stage behind", window)
    axes[1].set_xlabel("simulated cycles (dotted: barrier releases)", fontsize=8)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLORS.values()]
    fig.legend(handles, LABELS.values(), loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
