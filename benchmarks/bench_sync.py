"""insert-sync vs hand-written flags, vs its previous plan and vs a naive one-flag-per-dependence
insertion, and the pass's runtime.

Section `sync` of BENCHMARKS.md: `python benchmarks/run_all.py sync`.
"""

from __future__ import annotations

import math
import os
import pathlib
import random
import resource
import subprocess
import sys
import tempfile
import time

import figures

from tilesched.examples import EXAMPLES, example_path
from tilesched.ir import parse_text, print_module
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.run import simulate
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline


def _synced(text: str, target, pipeline: str):
    module = parse_text(text, "bench.mlir")
    start = time.perf_counter()
    run_pipeline(module, parse_pass_pipeline(pipeline), TileContext(target))
    seconds = time.perf_counter() - start
    printed = print_module(module)
    static = sum(1 for line in printed.splitlines() if line.strip().startswith("sync."))
    return parse_text(printed, "bench.mlir"), static, seconds


def _faults(result) -> int:
    """Deadlock plus sync violations (0 for a correct program)."""
    return len(result.violations) + (1 if result.deadlock else 0)


def example_rows() -> list[str]:
    rows = ["| kernel | target | flow | static sync ops | executed sync ops | cycles | bound | "
            "cycles / bound | races | faults |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for example in EXAMPLES:
        target = load_target(example.target)
        text = example_path(example.name).read_text()
        for label, pipeline in (("naive", "insert-sync{naive=true}"),
                                ("old plan", "insert-sync{legacy=true}"),
                                ("insert-sync", "insert-sync")):
            if target.sync != "flags" and label != "insert-sync":
                continue  # the naive baseline and the old flag plan are for flag targets
            module, static, _ = _synced(text, target, pipeline)
            result = simulate(lower_module(module, target))
            figures.add_row("sync", "kernels", kernel=example.name, target=target.name,
                            pipeline=pipeline, cycles=result.cycles, bound=result.bound)
            rows.append(f"| {example.name} | {target.name} | {label} | {static} | {result.sync_ops} "
                        f"| {result.cycles} | {result.bound} | {result.cycles / result.bound:.2f} "
                        f"| {len(result.races)} | {_faults(result)} |")
    return rows


def straight_line_program(statements: int, seed: int = 0) -> str:
    """A vector kernel of ``statements`` tile ops over 16 UB tiles fed by loads and stores."""
    rng = random.Random(seed)
    t = 'memref<16x16xf32, "UB">'
    g = 'memref<64x16x16xf32, "GM">'
    lines = [f"func.func @k(%x: {g}, %y: {g}) {{"]
    lines += [f"  %c{i} = arith.constant {i} : index" for i in range(64)]
    lines += [f"  %t{i} = memref.alloc() : {t}" for i in range(16)]
    for n in range(statements):
        kind = rng.random()
        a, b, c = (rng.randrange(16) for _ in range(3))
        slot = f'tile.slot %{"x" if kind < 0.2 else "y"}[%c{rng.randrange(64)}] : {g} -> ' \
               'memref<16x16xf32, "GM">'
        if kind < 0.2:
            lines += [f"  %s{n} = {slot}", f'  tile.load %s{n}, %t{a} : memref<16x16xf32, "GM">, {t}']
        elif kind < 0.3:
            lines += [f"  %s{n} = {slot}", f'  tile.store %t{a}, %s{n} : {t}, memref<16x16xf32, "GM">']
        else:
            lines.append(f"  tile.add %t{a}, %t{b}, %t{c} : {t}, {t}, {t}")
    return "\n".join(lines + ["  func.return", "}"]) + "\n"


def straight_line_rows() -> list[str]:
    """Naive vs insert-sync on random straight-line vector kernels (no loops)."""
    target = load_target("ascend-a2")
    rows = ["| statements | flow | static sync ops | executed sync ops | cycles | bound | races "
            "| faults |", "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for statements in (100, 400):
        text = straight_line_program(statements, seed=statements)
        for label, pipeline in (("naive", "insert-sync{naive=true}"),
                                ("old plan", "insert-sync{legacy=true}"),
                                ("insert-sync", "insert-sync")):
            module, static, _ = _synced(text, target, pipeline)
            result = simulate(lower_module(module, target))
            rows.append(f"| {statements} | {label} | {static} | {result.sync_ops} | {result.cycles} "
                        f"| {result.bound} | {len(result.races)} | {_faults(result)} |")
    return rows


DB_SIZES = ((1, 1, 1), (1, 1, 2), (2, 1, 1), (1, 1, 4), (2, 2, 4), (1, 2, 8), (2, 1, 8))


def _ids(module) -> int:
    """Most distinct event ids any directed pair uses in ``module``."""
    used: dict[tuple, set] = {}
    for op in module.walk():
        if op.name in ("sync.set_flag", "sync.wait_flag"):
            used.setdefault(op.pair[:2], set()).add(op.pair[2])
    return max((len(ids) for ids in used.values()), default=0)


def double_buffer_rows() -> list[str]:
    """ascend_gemm_db (hand-written ping/pong flags) vs insert-sync on its sync-free twin."""
    from tilesched.examples import ascend_gemm_db

    target = load_target("ascend-a2")
    rows = ["| M x N tiles | K-steps | hand cycles | insert-sync cycles | ratio | old plan cycles "
            "| old ratio | ids/pair hand / new | sync ops hand / new | barrier_all new | faults |",
            "|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|"]
    for m_tiles, n_tiles, k_iters in DB_SIZES:
        steps = k_iters * ascend_gemm_db.SLOTS * ascend_gemm_db.STEPS
        hand_text = print_module(ascend_gemm_db.build(True, m_tiles, n_tiles, k_iters))
        free_text = print_module(ascend_gemm_db.build(False, m_tiles, n_tiles, k_iters))
        hand = parse_text(hand_text, "hand.mlir")
        hand_result = simulate(lower_module(hand, target))
        new, new_static, _ = _synced(free_text, target, "insert-sync")
        new_result = simulate(lower_module(new, target))
        old, _, _ = _synced(free_text, target, "insert-sync{legacy=true}")
        old_result = simulate(lower_module(old, target))
        hand_static = sum(1 for op in hand.walk() if op.name.startswith("sync."))
        barriers = sum(1 for op in new.walk() if op.name == "sync.barrier_all")
        faults = sum(_faults(r) + len(r.races) for r in (hand_result, new_result, old_result))
        figures.add_row("sync", "double_buffer", tiles=f"{m_tiles}x{n_tiles}", k_steps=steps,
                        hand=hand_result.cycles, new=new_result.cycles, old=old_result.cycles)
        rows.append(f"| {m_tiles} x {n_tiles} | {steps} | {hand_result.cycles} | "
                    f"{new_result.cycles} | {new_result.cycles / hand_result.cycles:.3f} | "
                    f"{old_result.cycles} | {old_result.cycles / hand_result.cycles:.3f} | "
                    f"{_ids(hand)} / {_ids(new)} | {hand_static} / {new_static} | {barriers} | "
                    f"{faults} |")
    return rows


LIT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "lit" / "insert_sync"
CASES = (("per-slot flags, 2 slots, n = 8", "flags_per_slot.mlir", {"n": 8}),
         ("inner loop on one pair in an outer loop, 4 x 6", "flags_nested_regions.mlir",
          {"n": 4, "m": 6}),
         ("if / else on MTE2 / V in a loop, n = 8", "flags_if_units.mlir", {"n": 8}),
         ("10 independent MTE2 -> V chains (8 ids)", "flags_event_limit.mlir", {}))


def case_rows() -> list[str]:
    """The lit programs of the issue's cases: old plan vs new, with and without reorder-events."""
    from tilesched.sim.lowering.lower import lower_module as lower

    target = load_target("ascend-a2")
    rows = ["| case | old plan | insert-sync | reorder-events + insert-sync | barrier_all old / new |",
            "|---|---:|---:|---:|---|"]
    for label, name, args in CASES:
        text = (LIT / name).read_text()
        cells, barriers = [], []
        for pipeline in ("insert-sync{legacy=true}", "insert-sync", "reorder-events,insert-sync"):
            module, _, _ = _synced(text, target, pipeline)
            result = simulate(lower(module, target, args=args))
            assert result.ok, (name, pipeline)
            cells.append(str(result.cycles))
            barriers.append(sum(1 for op in module.walk() if op.name == "sync.barrier_all"))
        rows.append(f"| {label} | {' | '.join(cells)} | {barriers[0]} / {barriers[1]} |")
    return rows


def cuda_multistage(stages: int, hand: bool, refill_first: bool = False) -> str:
    """An S-stage cp.async loop in CUTLASS's multistage form (cuda-sm80): S - 1 tiles loaded
    before the loop, each its own group; iteration i waits for tile i, copies it from shared
    slot i mod S to registers, multiplies, and refills slot (i + S - 1) mod S. ``hand``: the
    commits and waits written by hand (``wait_group`` with pending S - 2, the largest correct,
    one commit per load, ``pending = 0`` after the loop); otherwise sync-free. ``refill_first``
    issues the refill at the top of the body instead (the largest correct pending is then
    S - 1)."""
    t, g = 'memref<64x64xf16, "shared">', 'memref<64x64xf16, "global">'
    lds, gm = f'memref<{stages}x64x64xf16, "shared">', 'memref<80x64x64xf16, "global">'
    lines = [f'func.func @multistage(%n: index, %g: {gm}, %b: memref<64x64xf16, "local">, '
             '%acc: memref<64x64xf32, "local">) {']
    lines += [f"  %c{i} = arith.constant {i} : index" for i in range(stages + 1)]
    lines += [f"  %lds = memref.alloc() : {lds}", '  %r = memref.alloc() : memref<64x64xf16, "local">']
    for s in range(stages - 1):
        lines += [f'  %p{s} = "tile.slot"(%lds, %c{s}) : ({lds}, index) -> {t}',
                  f'  %gp{s} = "tile.slot"(%g, %c{s}) : ({gm}, index) -> {g}',
                  f"  tile.load %gp{s}, %p{s} : {g}, {t}"] + (["  sync.commit_group 0"] if hand else [])
    lines += ["  scf.for %i = %c0 to %n step %c1 {",
              f"    %j = arith.addi %i, %c{stages - 1} : index",
              f"    %nx = arith.remui %j, %c{stages} : index",
              f"    %cur = arith.remui %i, %c{stages} : index",
              f'    %sn = "tile.slot"(%lds, %nx) : ({lds}, index) -> {t}',
              f'    %sc = "tile.slot"(%lds, %cur) : ({lds}, index) -> {t}',
              f'    %gn = "tile.slot"(%g, %j) : ({gm}, index) -> {g}']
    refill = [f"    tile.load %gn, %sn : {g}, {t}"] + (["    sync.commit_group 0"] if hand else [])
    pending = stages - 1 if refill_first else stages - 2
    lines += refill if refill_first else []
    lines += [f"    sync.wait_group 0 {{pending = {pending} : i64}}"] if hand else []
    lines += [f'    tile.copy %sc, %r : {t}, memref<64x64xf16, "local">',
              '    tile.matmul %r, %b, %acc {accumulate} : memref<64x64xf16, "local">, '
              'memref<64x64xf16, "local">, memref<64x64xf32, "local">']
    lines += [] if refill_first else refill
    lines += ["  }"] + (["  sync.wait_group 0 {pending = 0 : i64}"] if hand else [])
    return "\n".join(lines + ["  func.return", "}"]) + "\n"


HAND = (("if / else on MTE2 / V in a loop", "hand_if_units.mlir", "flags_if_units.mlir",
         ({"n": 1}, {"n": 8})),
        ("inner loop on one pair in an outer loop", "hand_nested_regions.mlir",
         "flags_nested_regions.mlir", ({"n": 1, "m": 1}, {"n": 4, "m": 6}, {"n": 3, "m": 16})),
        ("10 independent MTE2 -> V chains (8 ids)", "hand_event_limit.mlir",
         "flags_event_limit.mlir", ({},)))


def hand_rows() -> list[str]:
    """The issue's three shapes: a hand-placed per-buffer flag plan (tests/lit/insert_sync/hand_*)
    against insert-sync, with and without reorder-events, on the sync-free twin."""
    target = load_target("ascend-a2")
    rows = ["| case | size | hand cycles | insert-sync | ratio | reorder-events + insert-sync | "
            "ratio | executed sync ops hand / new / reorder | faults |",
            "|---|---|---:|---:|---:|---:|---:|---|---:|"]
    for label, hand_name, free_name, sizes in HAND:
        hand = parse_text((LIT / hand_name).read_text(), hand_name)
        synced = [_synced((LIT / free_name).read_text(), target, pipeline)[0]
                  for pipeline in ("insert-sync", "reorder-events,insert-sync")]
        for args in sizes:
            results = [simulate(lower_module(m, target, args=args)) for m in (hand, *synced)]
            faults = sum(_faults(r) + len(r.races) for r in results)
            h, new, reo = (r.cycles for r in results)
            size = ", ".join(f"{k} = {v}" for k, v in args.items()) or "-"
            figures.add_row("sync", "hand", case=label, size=size, hand=h, new=new, reorder=reo)
            rows.append(f"| {label} | {size} | {h} | {new} | {new / h:.3f} | {reo} | {reo / h:.3f} | "
                        f"{' / '.join(str(r.sync_ops) for r in results)} | {faults} |")
    return rows


def _loop_pending(module) -> list[int]:
    """The ``pending`` counts of the wait_group ops inside loops of ``module``."""
    return [op.pending.value.data for op in module.walk() if op.name == "sync.wait_group"
            and op.parent_op() is not None and op.parent_op().name == "scf.for"]


def multistage_rows() -> list[str]:
    """CUDA S-stage cp.async loops: hand-written waits against insert-sync on the sync-free twin,
    and the bundled CUDA examples (single-buffered: pending 0 is the largest correct count)."""
    target = load_target("cuda-sm80")
    trips = 32
    rows = ["| program | hand cycles | insert-sync cycles | ratio | pending in loop hand / new | "
            "executed sync ops hand / new | faults |", "|---|---:|---:|---:|---|---|---:|"]
    for stages in (2, 3, 4):
        hand = parse_text(cuda_multistage(stages, hand=True), "hand.mlir")
        new, _, _ = _synced(cuda_multistage(stages, hand=False), target, "insert-sync")
        results = [simulate(lower_module(m, target, args={"n": trips})) for m in (hand, new)]
        faults = sum(_faults(r) + len(r.races) for r in results)
        figures.add_row("sync", "multistage", stages=stages, hand=results[0].cycles,
                        new=results[1].cycles)
        rows.append(f"| {stages}-stage cp.async loop, {trips} iterations | {results[0].cycles} | "
                    f"{results[1].cycles} | {results[1].cycles / results[0].cycles:.3f} | "
                    f"{_loop_pending(hand)} / {_loop_pending(new)} | {results[0].sync_ops} / "
                    f"{results[1].sync_ops} | {faults} |")
    for example in EXAMPLES:
        if example.target != "cuda-sm80":
            continue
        new, _, _ = _synced(example_path(example.name).read_text(), target, "insert-sync")
        result = simulate(lower_module(new, target))
        rows.append(f"| {example.name} (insert-sync only) | | {result.cycles} | | - / "
                    f"{_loop_pending(new)} | - / {result.sync_ops} | {_faults(result) + len(result.races)} |")
    return rows


def _one_barrier_per_iteration(text: str) -> str:
    """The hand form of an LDS double buffer: the loop's local barriers replaced by one at the
    top of the body (before the prefetch), which orders both the previous iteration's reads
    before the refill and its refill before this iteration's reads."""
    lines, out, depth = text.splitlines(), [], None
    for line in lines:
        if depth is None and "scf.for" in line:
            depth = len(line) - len(line.lstrip())
            out.append(line)
            out.append(" " * (depth + 2) + "sync.barrier local")
            continue
        if depth is not None and line.strip() == "sync.barrier local":
            continue
        if depth is not None and line.strip() == "}" and len(line) - len(line.lstrip()) == depth:
            depth = -1  # past the loop
        out.append(line)
    return "\n".join(out) + "\n"


def lds_rows() -> list[str]:
    """AMD LDS double buffers: insert-sync's local barriers against the fewest (one per iteration)."""
    rows = ["| kernel | target | local barriers executed hand / new | cycles hand / new | ratio | faults |",
            "|---|---|---|---|---:|---:|"]
    for example in EXAMPLES:
        if not example.target.startswith("amd"):
            continue
        target = load_target(example.target)
        new, _, _ = _synced(example_path(example.name).read_text(), target, "insert-sync")
        hand = parse_text(_one_barrier_per_iteration(print_module(new)), "hand.mlir")
        results = [simulate(lower_module(m, target)) for m in (hand, new)]
        barriers = [r.sync_ops for r in results]
        faults = sum(_faults(r) + len(r.races) for r in results)
        figures.add_row("sync", "lds", kernel=example.name, hand=results[0].cycles,
                        new=results[1].cycles)
        rows.append(f"| {example.name} | {target.name} | {barriers[0]} / {barriers[1]} | "
                    f"{results[0].cycles} / {results[1].cycles} | "
                    f"{results[1].cycles / results[0].cycles:.3f} | {faults} |")
    return rows


SIZES = (1000, 5000, 10000, 20000, 50000)


def runtime_rows() -> list[str]:
    """The pass alone (parsing excluded), and ``tilesched opt -p insert-sync`` end to end on
    the largest program (a file of 50k statements in one block)."""
    target = load_target("ascend-a2")
    rows = ["| statements | ops | file MB | insert-sync s (wall / cpu) | sync ops inserted |",
            "|---:|---:|---:|---:|---:|"]
    seconds = []
    run_pipeline(parse_text(straight_line_program(100), "warm.mlir"),  # one-time imports
                 parse_pass_pipeline("insert-sync"), TileContext(target))
    for statements in SIZES:
        text = straight_line_program(statements)
        ops = sum(1 for line in text.splitlines() if line.startswith("  tile."))
        module = parse_text(text, "bench.mlir")
        wall, start = time.perf_counter(), time.process_time()
        run_pipeline(module, parse_pass_pipeline("insert-sync"), TileContext(target))
        seconds.append(time.process_time() - start)
        wall = time.perf_counter() - wall
        figures.add_row("sync", "runtime", statements=statements, seconds=seconds[-1])
        inserted = sum(1 for op in module.walk() if op.name.startswith("sync."))
        rows.append(f"| {statements:,} | {ops:,} | {len(text) / 1e6:.1f} | {wall:.2f} / {seconds[-1]:.2f} "
                    f"| {inserted:,} |")
    short, long, fit = exponent_cells(list(SIZES), seconds)
    wall, cpu = _opt_end_to_end(straight_line_program(SIZES[-1]))
    return rows + ["", f"Growth exponents of the pass's cpu seconds (1.00 = linear): 1k -> 10k "
                   f"statements **{short}**, 10k -> 50k **{long}**, least-squares slope over "
                   f"1k-50k **{fit}**.",
                   "", f"`tilesched opt FILE -p insert-sync --target ascend-a2 -o OUT` on the "
                   f"{SIZES[-1]:,}-statement file, end to end (start-up, parse, verify, pass, "
                   f"print, write): **{wall:.1f} s** wall, {cpu:.1f} s cpu; the pass alone took "
                   f"{seconds[-1]:.1f} s cpu in the table above, the rest is start-up, parse, "
                   f"verify and print (see the frontend section)."]


def _opt_end_to_end(text: str) -> tuple[float, float]:
    """Wall and cpu seconds (user + system of the child) of ``tilesched opt``."""
    with tempfile.TemporaryDirectory() as folder:
        source = pathlib.Path(folder) / "big.mlir"
        source.write_text(text)
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        command = [str(pathlib.Path(sys.executable).with_name("tilesched")), "opt", str(source),
                   "-p", "insert-sync", "--target", "ascend-a2",
                   "-o", str(source.with_suffix(".out.mlir"))]
        subprocess.run(command, check=True)
        wall = time.perf_counter() - start
        now = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime


def growth_exponent(sizes: list[int], seconds: list[float]) -> float:
    """Slope of the least-squares line through (log size, log seconds): time ~ size^slope."""
    xs, ys = [math.log(n) for n in sizes], [math.log(max(s, 1e-6)) for s in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / \
        sum((x - mx) ** 2 for x in xs)


def exponent_cells(sizes: list[int], seconds: list[float]) -> list[str]:
    """Growth exponents 1k -> 10k, 10k -> 50k (two-point slopes) and the fit over all sizes."""
    at = dict(zip(sizes, seconds, strict=True))
    return [f"{growth_exponent([a, b], [at[a], at[b]]):.2f}"
            for a, b in ((1000, 10000), (10000, 50000))] + \
        [f"{growth_exponent(sizes, seconds):.2f}"]


def run() -> str:
    parts = ["## insert-sync", "",
             "Double-buffered GEMM `ascend_gemm_db` (ascend-a2, one cube core, 128 x 256 tiles, "
             "two L1 and two L0 slots, 8 K-steps per K-loop iteration): the hand-written "
             "ping/pong flags against insert-sync on the sync-free twin and against the previous "
             "plan (`insert-sync{legacy=true}`: one back-edge flag per unit pair, barrier_all "
             "around nested multi-unit regions). Full simulation; faults = races + deadlocks + "
             "violations over the three programs.", "", *double_buffer_rows(), "",
             "The issue's cases as lit programs (tests/lit/insert_sync), cycles:", "",
             *case_rows(), "",
             "The same three shapes against a hand-placed per-buffer flag plan (what an expert "
             "writes: one flag per buffer or slot, set right after its last producer, waited "
             "right before its first consumer; tests/lit/insert_sync/hand_*.mlir, which also "
             "check the relation), full simulation, ascend-a2:", "", *hand_rows(), "",
             "CUDA (cuda-sm80) multistage `cp.async` loops in CUTLASS's form (S - 1 tiles loaded "
             "before the loop, one group each; iteration i waits for tile i, reads slot i mod S, "
             "refills slot (i + S - 1) mod S): the hand-written waits (pending S - 2, the largest "
             "correct) against insert-sync on the sync-free twin (`bench_sync.cuda_multistage`; "
             "the hand form also ends with a `wait_group` pending 0, insert-sync needs none).",
             "", *multistage_rows(), "",
             "AMD LDS double buffers (the refill in an `scf.if`): insert-sync's local barriers "
             "against the fewest, one at the top of each iteration (hand form: insert-sync's "
             "output with the loop's barriers replaced by that one). Before a barrier could move "
             "out of a branch, insert-sync put one before the refill and one before the reads "
             "(30 and 32 executed). Executed sync ops = barriers (both issuer groups count):",
             "", *lds_rows(), "",
             "Naive = one set/wait pair per cross-unit dependence (no implied-dependence removal, no",
             "producer coalescing) and a barrier_all at the end of every loop iteration. Both are",
             "checked by the simulator in the same run (races; faults = deadlock + sync violations);",
             "cycles are simulated on the kernel's target.",
             "", *example_rows(), "",
             "Random straight-line vector kernels (ascend-a2): removing implied dependences and",
             "waiting once per producer unit cuts the sync ops the naive insertion needs:", "",
             *straight_line_rows(), "",
             f"Runtime on straight-line vector kernels (ascend-a2), one run each; shared 2-core "
             f"machine, 1-minute load average {os.getloadavg()[0]:.1f} at the start of this "
             f"table:", "", *runtime_rows()]
    return "\n".join(parts)


if __name__ == "__main__":
    print(run())
