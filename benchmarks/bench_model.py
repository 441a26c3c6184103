"""The ascend-a2 machine model against the vendor's A2/A3 cost model and public measurements.

Section `model` of BENCHMARKS.md: `python benchmarks/run_all.py model` (or run this file).

Three checks (issue 30 item 4):

1. **Per-op formulas.** Every line of the vendor's `formula_params.csv` whose op tilesched has
   (TSUB, TMUL, TADDS, TMULS, TROWSUM, TROWMAX, TEXP) at 1, 16 and 64 rows: the cycles the
   simulator charges the op (a tile op in IR, lowered on `ascend-a2`: the duration the trace
   carries) against (a) the vendor's own function, `pto::mocker::lightweight::EstimateCycles`
   (`lightweight_costmodel.hpp`, which calls `TryEstimateFormulaCycles`,
   `formula_backend_compute.hpp:109-139`), compiled from the pinned headers with clang++-19
   `-std=c++20 -D__CPU_SIM` and run; and (b) an independent Python line of the formula as written
   there (`round(slope x rows x cols + bias)`, llround, lines 37-43 and 121). The driver generates
   the table header the vendor's `gen_formula_params_header.py` writes, into a temporary folder,
   and declares `kMicrosPerSecond`, which the pinned `arch_config.hpp:142` uses undeclared.
2. **Transfers and matmuls of the bundled Ascend examples' shapes.** Transfers against the
   vendor's bandwidth cost `floor(bytes / 2^30 / GiB/s x 1.85e9)` (`cce_costmodel_core.hpp:68-78`,
   reimplemented: that header does not compile on its own), L0C sources counted at 2 bytes per
   element (`cce_costmodel_memory.hpp:110,120`). The lightweight model's own transfer path is not
   used: it divides bytes by the GiB/s figure as if it were bytes per microsecond
   (`formula_backend_transfer.hpp:76` -> `arch_config.hpp:321-330`), 1074x slower. Matmuls
   against `EstimateCycles(TMATMUL)` (C++) and `TryEstimateMadCycles` as written (Python).
3. **Public hardware measurements** (validation only: nothing is fitted to them). GEMM: the
   `kernels/manual/a2a3/gemm_performance` README of hw-native-sys/pto-isa (A3, 24 cores, per-engine
   busy ratios); flash attention: the `kernels/manual/common/flash_atten` README (910B2, one
   core). Predictions are tilesched's per-op cycles summed per unit for the kernel's documented
   loop structure, with the stated assumptions about the core split.
"""

from __future__ import annotations

import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

from tilesched.analysis.units import op_cycles, op_route
from tilesched.examples import EXAMPLES, example_path
from tilesched.ir.text import parse_text
from tilesched.ir.tile import TileOp
from tilesched.sim.lowering.lower import lower_module
from tilesched.target import OperandShape, load_target

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figures  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
PTO_ISA = pathlib.Path(os.environ.get("PTO_ISA_INCLUDE", ROOT.parent / "shared/third_party/pto-isa/include"))
COSTMODEL = PTO_ISA / "pto/costmodel"
CSV = COSTMODEL / "a2a3/formula_costmodel/formula_params.csv"
CLANG = shutil.which("clang++-19")
CLOCK = 1.85e9  # arch_config.hpp:21
GIB = 2 ** 30

VENDOR_OPS = {"TSUB": "tile.sub", "TMUL": "tile.mul", "TADDS": "tile.adds", "TMULS": "tile.muls",
              "TROWSUM": "tile.rowsum", "TROWMAX": "tile.rowmax", "TEXP": "tile.exp"}
ROWS = (1, 16, 64)
EXP_COLUMNS = (32, 64, 128, 256)  # TEXP's one row holds for any dtype and column count
DTYPES = {"fp32": ("f32", "Float"), "fp16": ("f16", "Half")}
# GiB/s per data path, arch_config.hpp:101-109 (BandwidthTable order, lines 42-53)
PATHS = {("GM", "UB"): 100.9, ("GM", "L1"): 135.0, ("UB", "GM"): 188.46, ("UB", "UB"): 1024.0,
         ("L0C", "GM"): 70.0, ("L0C", "L1"): 128.0, ("L1", "L0A"): 441.0, ("L1", "L0B"): 220.5}


def csv_rows() -> list[dict]:
    """The CSV lines tilesched has an op for: {line, op, dtype, cols, slope, bias}."""
    rows = []
    for number, line in enumerate(CSV.read_text().splitlines()[1:], 2):
        op, dtype, cols, slope, bias = line.split(",")
        if op in VENDOR_OPS:
            rows.append({"line": number, "op": op, "dtype": dtype, "cols": cols,
                         "slope": float(slope), "bias": float(bias)})
    return rows


def vendor_formula(slope: float, bias: float, rows: int, cols: int) -> int:
    """``RoundToCycles(slope * rows * cols + bias)``: formula_backend_compute.hpp:37-43, 121."""
    value = slope * rows * cols + bias
    return 0 if value <= 0 else math.floor(value + 0.5)  # llround, halves away from zero


def vendor_mad(m: int, k: int, n: int, element_bytes: int, is_float32: bool) -> int:
    """``TryEstimateMadCycles``: formula_backend_compute.hpp:60-90."""
    k_tile = 32 // element_bytes
    return 6 + (2 if is_float32 else 1) * math.ceil(m / 16) * math.ceil(k / k_tile) * math.ceil(n / 16)


def vendor_transfer(nbytes: int, gib_per_s: float) -> int:
    """``EstimateBandwidthCycles``: cce_costmodel_core.hpp:68-78 (truncates)."""
    return int(nbytes / GIB / gib_per_s * CLOCK)


def vendor_cpp(cases: list[tuple]) -> list[float] | None:
    """Run ``EstimateCycles`` of the pinned headers on ``cases`` ((opcode, dtype, rows, cols, k));
    None when clang++-19 or the headers are missing."""
    if CLANG is None or not CSV.is_file():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        for arch in ("a2a3", "a5"):  # lightweight_costmodel.hpp includes both generated tables
            folder = work / "gen/pto/costmodel" / arch / "formula_costmodel"
            folder.mkdir(parents=True)
            source = COSTMODEL / arch / "formula_costmodel"
            for name in ("gen_formula_params_header.py", "formula_params.csv"):
                shutil.copy(source / name, folder / name)
            subprocess.run([sys.executable, str(folder / "gen_formula_params_header.py")],
                           check=True, capture_output=True)
        lines = ",\n".join(f"{{PtoOpcode::{op}, DType::{dtype}, {rows}, {cols}, {k}}}"
                           for op, dtype, rows, cols, k in cases)
        (work / "driver.cpp").write_text(f"""#include <cstdio>
#include <limits>
namespace pto::mocker::evaluator {{ inline constexpr long double kMicrosPerSecond = 1.0e6L; }}
#include <pto/costmodel/lightweight_costmodel.hpp>
using namespace pto::mocker::lightweight;
struct Case {{ PtoOpcode op; DType dtype; long rows, cols, k; }};
static const Case kCases[] = {{
{lines}
}};
int main() {{
    for (const Case& c : kCases) {{
        CostModelInput in{{}};
        in.op = c.op; in.dtype = c.dtype; in.rows = c.rows; in.cols = c.cols; in.k = c.k;
        std::printf("%.17g\\n", EstimateCycles(in).cycles);
    }}
}}
""")
        compile_cmd = [CLANG, "-std=c++20", "-D__CPU_SIM", "-include", "stdint.h", "-include", "stddef.h",
                       "-Wno-macro-redefined", "-Wno-ignored-attributes", "-Wno-switch",
                       "-I", str(work / "gen"), "-I", str(PTO_ISA), str(work / "driver.cpp"),
                       "-o", str(work / "driver")]
        built = subprocess.run(compile_cmd, capture_output=True, text=True)
        if built.returncode != 0:
            print(built.stderr[-2000:], file=sys.stderr)
            return None
        out = subprocess.run([str(work / "driver")], capture_output=True, text=True, check=True)
        return [float(v) for v in out.stdout.split()]


# ------------------------------------------------------------------------------ 1. per-op rows

def _tile_op_text(op: str, rows: int, cols: int, dtype: str, index: int) -> tuple[list[str], str]:
    """Allocs and one tile op ``op`` on a rows x cols tile of ``dtype`` in UB."""
    tile = f'memref<{rows}x{cols}x{dtype}, "UB">'
    column = f'memref<{rows}x1x{dtype}, "UB">'
    a, b, d = f"%a{index}", f"%b{index}", f"%d{index}"
    allocs = [f"{a} = memref.alloc() : {tile}"]
    if op in ("tile.rowsum", "tile.rowmax"):
        allocs.append(f"{d} = memref.alloc() : {column}")
        return allocs, f"{op} {a}, {d} : {tile}, {column}"
    allocs.append(f"{d} = memref.alloc() : {tile}")
    if op in ("tile.adds", "tile.muls"):
        return allocs, f"{op} {a}, %c1, {d} : {tile}, index, {tile}"
    if op == "tile.exp":
        return allocs, f"{op} {a}, {d} : {tile}, {tile}"
    allocs.append(f"{b} = memref.alloc() : {tile}")
    return allocs, f"{op} {a}, {b}, {d} : {tile}, {tile}, {tile}"


def simulator_durations(target, ops: list[tuple[str, int, int, str]]) -> list[int]:
    """The duration the lowered trace gives each (op, rows, cols, dtype), in order."""
    allocs, body = [], []
    for index, (op, rows, cols, dtype) in enumerate(ops):
        more, line = _tile_op_text(op, rows, cols, dtype, index)
        allocs += more
        body.append(line)
    text = "builtin.module {\n  func.func @rows() {\n    %c1 = arith.constant 1 : index\n" + "".join(
        f"    {line}\n" for line in allocs + body) + "    func.return\n  }\n}\n"
    trace = lower_module(parse_text(text, "rows.mlir"), target)
    durations = [op.duration for op in trace.programs["S"] if op.name.startswith("tile.")]
    assert len(durations) == len(ops)
    return durations


def formula_table(target) -> tuple[list[dict], bool]:
    cases = []
    for row in csv_rows():
        dtypes = ["fp32", "fp16"] if row["dtype"] == "any" else [row["dtype"]]
        columns = EXP_COLUMNS if row["cols"] == "*" else [int(row["cols"])]
        for dtype in dtypes:
            for cols in columns:
                for rows in ROWS:
                    cases.append({**row, "dtype_case": dtype, "cols_case": cols, "rows": rows})
    ops = [(VENDOR_OPS[c["op"]], c["rows"], c["cols_case"], DTYPES[c["dtype_case"]][0]) for c in cases]
    ours = simulator_durations(target, ops)
    cpp = vendor_cpp([(c["op"], DTYPES[c["dtype_case"]][1], c["rows"], c["cols_case"], 0) for c in cases])
    table = []
    for i, c in enumerate(cases):
        python = vendor_formula(c["slope"], c["bias"], c["rows"], c["cols_case"])
        table.append({"csv_line": c["line"], "op": c["op"], "dtype": c["dtype_case"], "cols": c["cols_case"],
                      "rows": c["rows"], "tilesched": ours[i], "vendor_python": python,
                      "vendor_cpp": None if cpp is None else cpp[i]})
    return table, cpp is not None


def _within(ours: float, theirs: float) -> bool:
    return abs(ours - theirs) <= max(1.0, 0.01 * theirs)


# ------------------------------------------------------------------ 2. the examples' shapes

def example_ops(target) -> list[dict]:
    """Distinct transfers and matmuls of the bundled Ascend examples, with both costs."""
    from xdsl.dialects.builtin import MemRefType

    from tilesched.ir.types import element_bytes, memory_space, memref_shape

    seen, table = set(), []
    for example in EXAMPLES:
        if not example.target.startswith("ascend"):
            continue
        module = parse_text(example_path(example.name).read_text(), f"{example.name}.mlir")
        for op in module.walk():
            if not isinstance(op, TileOp) or op.name not in ("tile.load", "tile.store", "tile.copy",
                                                             "tile.matmul"):
                continue
            mems = [v.type for v in op.operands if isinstance(v.type, MemRefType)]
            spaces = tuple(memory_space(m) for m in mems)
            shapes = tuple(memref_shape(m) for m in mems)
            dtypes = tuple(str(m.element_type) for m in mems)
            key = (op.name, spaces, shapes, dtypes)
            if key in seen or op_route(op, target) is None:
                continue
            seen.add(key)
            ours = op_cycles(op, target)
            if op.name == "tile.matmul":
                (m, k), n = shapes[0], shapes[1][1]
                python = vendor_mad(m, k, n, element_bytes(mems[0]), dtypes[0] == "f32")
                case = ("TMATMUL", "Half" if dtypes[0] == "f16" else "Float", m, n, k)
                path = "L0A x L0B -> L0C"
            else:
                src, dst = spaces[0], spaces[-1]
                elements = math.prod(shapes[0])
                nbytes = elements * (2 if src == "L0C" else element_bytes(mems[0]))
                gib = PATHS.get((src, dst))
                python = None if gib is None else vendor_transfer(nbytes, gib)
                case = None
                path = f"{src} -> {dst}"
            table.append({"example": example.name, "op": op.name, "path": path,
                          "shape": "x".join(map(str, shapes[0])) + " " + dtypes[0]
                          + ("" if op.name != "tile.matmul" else " @ " + "x".join(map(str, shapes[1]))),
                          "tilesched": ours, "vendor_python": python, "case": case})
    cases = [row["case"] for row in table if row["case"] is not None]
    cpp = vendor_cpp(cases) if cases else None
    it = iter(cpp or [])
    for row in table:
        row["vendor_cpp"] = next(it, None) if row.pop("case") is not None and cpp else None
    return table


# -------------------------------------------------------------------- 3. hardware measurements

GEMM_MEASURED = [  # gemm_performance/README.md, "Measured Performance": A3, 24 cores, fp16 -> fp32
    # m=k=n, TMATMUL ratio, TEXTRACT ratio, TLOAD ratio, TSTORE ratio, execution time (ms)
    (1536, 0.545, 0.422, 0.722, 0.077, 0.0388),
    (3072, 0.790, 0.620, 0.909, 0.058, 0.2067),
    (6144, 0.867, 0.681, 0.952, 0.031, 1.5060),
    (7680, 0.806, 0.630, 0.984, 0.024, 3.1680),
]


def _cost(target, op: str, spaces: tuple[str, ...], operands: list[tuple[tuple[int, int], str]]) -> int:
    rule = target.route(op, spaces[:-1], spaces[-1])
    return target.cycles(op, rule, [OperandShape(s, {"f16": 2, "f32": 4}[d], d) for s, d in operands])


def gemm_prediction(target, size: int) -> dict:
    """Per-unit busy cycles of one core of the README's kernel (gemm_performance_kernel.cpp):
    4 x 6 cores, base block [128, 256, 64] (M, N, K), stepKa = stepKb = 4; loops m-block, n-block,
    k (every 4th k: TLOAD A 128x256 and B 256x256 to L1), TEXTRACT A 128x64 -> L0A and
    B 64x256 -> L0B, TMATMUL; per output block one TSTORE 128x256 f32 from L0C. ASSUMPTION: the
    4 x 6 split and these blocks for every size (the README gives them for 6144 only)."""
    core_m, core_n, k = size // 4, size // 6, size
    blocks, k_iters = (core_m // 128) * (core_n // 256), k // 64
    f16, f32 = "f16", "f32"
    load = _cost(target, "tile.load", ("GM", "L1"), [((128, 256), f16)] * 2) \
        + _cost(target, "tile.load", ("GM", "L1"), [((256, 256), f16)] * 2)
    extract = _cost(target, "tile.copy", ("L1", "L0A"), [((128, 64), f16)] * 2) \
        + _cost(target, "tile.copy", ("L1", "L0B"), [((64, 256), f16)] * 2)
    matmul = _cost(target, "tile.matmul", ("L0A", "L0B", "L0C"),
                   [((128, 64), f16), ((64, 256), f16), ((128, 256), f32)])
    store = _cost(target, "tile.store", ("L0C", "GM"), [((128, 256), f32)] * 2)
    return {"TLOAD (MTE2)": blocks * (k_iters // 4) * load, "TEXTRACT (MTE1)": blocks * k_iters * extract,
            "TMATMUL (M)": blocks * k_iters * matmul, "TSTORE (FIX)": blocks * store}


FA_MEASURED = [  # flash_atten/README.md, "Total task time (us)": 910B2, 1 core, S0 = 128, HEAD = 128
    (1024, 42.08), (2048, 51.44), (4096, 43.80), (8192, 74.54)]


def fa_prediction(target, s1: int) -> dict:
    """Per-unit busy cycles of one core (1 cube core + 2 vector cores) for S0 = 128, HEAD = 128,
    TILE_S1 = 256, CUBE_S1 = 128 (the README's reference tiling). ASSUMPTIONS (the loop structure
    of compute_qk / compute_p / compute_pv / compute_gu as the README describes it, not traced op by
    op): per S1 tile the cube core loads K and V (256x128 f16) and P (128x256 f16) GM -> L1, moves
    K^T in two 128-column halves and V to L0B and P to L0A, runs QK^T as two 128x128x128 and PV as
    one 128x256x128 matmul, and stores S (128x256 f32) and the PV partial (128x128 f32) from L0C
    to GM; each vector core takes 64 rows: loads S (64x256 f32), rowmax, rowexpand_sub, exp,
    rowsum, cast to f16, stores P (64x256 f16), loads the PV partial (64x128 f32), rowexpand_mul
    and add into the running output. Q (loaded once) and the final O store are left out. Units of
    different cores run in parallel; the prediction is the busiest unit (a perfect overlap)."""
    tiles = s1 // 256
    f16, f32 = "f16", "f32"
    k_tile, s_tile, o_part = ((256, 128), f16), ((128, 256), f32), ((128, 128), f32)
    cube = {
        "AIC MTE2": 3 * _cost(target, "tile.load", ("GM", "L1"), [k_tile, k_tile]),
        "AIC MTE1": 2 * _cost(target, "tile.copy", ("L1", "L0B"), [((128, 128), f16)] * 2)
        + _cost(target, "tile.copy", ("L1", "L0B"), [k_tile, k_tile])
        + _cost(target, "tile.copy", ("L1", "L0A"), [((128, 256), f16)] * 2),
        "AIC M": 2 * _cost(target, "tile.matmul", ("L0A", "L0B", "L0C"), [((128, 128), f16)] * 2 + [o_part])
        + _cost(target, "tile.matmul", ("L0A", "L0B", "L0C"), [((128, 256), f16), k_tile, o_part]),
        "AIC FIX": _cost(target, "tile.store", ("L0C", "GM"), [s_tile, s_tile])
        + _cost(target, "tile.store", ("L0C", "GM"), [o_part, o_part]),
    }
    half, row, part = ((64, 256), f32), ((64, 1), f32), ((64, 128), f32)
    vector = {
        "AIV MTE2": _cost(target, "tile.load", ("GM", "UB"), [half, half])
        + _cost(target, "tile.load", ("GM", "UB"), [part, part]),
        "AIV V": _cost(target, "tile.rowmax", ("UB", "UB"), [half, row])
        + _cost(target, "tile.rowexpand_sub", ("UB", "UB", "UB"), [half, row, half])
        + _cost(target, "tile.exp", ("UB", "UB"), [half, half])
        + _cost(target, "tile.rowsum", ("UB", "UB"), [half, row])
        + _cost(target, "tile.cast", ("UB", "UB"), [half, ((64, 256), f16)])
        + _cost(target, "tile.rowexpand_mul", ("UB", "UB", "UB"), [part, row, part])
        + _cost(target, "tile.add", ("UB", "UB", "UB"), [part, part, part]),
        "AIV MTE3": _cost(target, "tile.store", ("UB", "GM"), [((64, 256), f16)] * 2),
    }
    return {name: tiles * cycles for name, cycles in {**cube, **vector}.items()}


def _us(cycles: float) -> float:
    return cycles / CLOCK * 1e6


def _err(predicted: float, measured: float) -> str:
    return f"{100 * (predicted - measured) / measured:+.1f}%"


def mixed_rows() -> list[dict]:
    """The split-core examples on ``ascend-a2-mix``: hand-synced as written, the sync-free twin
    after insert-sync; cycles, time, the busiest unit of each core."""
    from tilesched.examples import SPLIT_CORE_EXAMPLES
    from tilesched.ir import parse_text, print_module
    from tilesched.sim.lowering.lower import lower_module
    from tilesched.sim.run import simulate
    from tilesched.transforms.pass_base import TileContext
    from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

    target = load_target("ascend-a2-mix")
    out = []
    for example in SPLIT_CORE_EXAMPLES:
        module = parse_text(example_path(example.name).read_text(), example.name)
        how = "hand-written flags"
        if example.name.endswith("_free"):
            run_pipeline(module, parse_pass_pipeline("insert-sync"), TileContext(target))
            module = parse_text(print_module(module), example.name)
            how = "insert-sync"
        result = simulate(lower_module(module, target))
        busiest = {}
        for unit, numbers in result.units.items():
            core = unit.split(".")[0]
            if numbers["busy"] > busiest.get(core, ("", -1))[1]:
                busiest[core] = (unit, numbers["busy"])
        out.append({"example": example.name, "sync": how, "cycles": result.cycles,
                    "time_us": result.time_us, "bound": result.bound, "ok": result.ok,
                    "busiest": {core: list(found) for core, found in busiest.items()}})
    return out


def run() -> str:
    target = load_target("ascend-a2")
    load = os.getloadavg()[0]
    rows, ran_cpp = formula_table(target)
    figures.add_rows("model", "formula_rows", rows)
    lines = ["## model: ascend-a2 against the vendor's cost model and public measurements", "",
             f"`benchmarks/bench_model.py` (load average {load:.2f}; no timing is measured here). "
             "The machine model's numbers and their sources: docs/targets.md, \"Numbers\"; the "
             "TOML cites each one.", ""]
    # ---- 1
    lines += ["### Per-op cycles: tilesched = the vendor's formula on every CSV line it covers", "",
              "Each line of `formula_params.csv` whose op tilesched has, at 1, 16 and 64 rows (TEXP, "
              "one line for any dtype and width: f32 and f16 at 32, 64, 128 and 256 columns). "
              "*tilesched*: the duration the lowered trace gives the tile op on `ascend-a2`; "
              "*vendor C++*: `EstimateCycles` of the pinned headers, compiled and run"
              + ("" if ran_cpp else " (**not run here: clang++-19 or the headers are missing**)")
              + "; *vendor formula*: the formula as written, in Python. Within = |difference| "
              "<= max(1 cycle, 1%) against both.", "",
              "| vendor op | tilesched op | dtype | CSV lines | cases | within | max abs diff | "
              "max rel diff | C++ = formula |",
              "|---|---|---|---|---:|---:|---:|---:|---|"]
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["op"], row["dtype"]), []).append(row)
    total = inside = 0
    for (op, dtype), members in groups.items():
        ok = [r for r in members if _within(r["tilesched"], r["vendor_python"])
              and (r["vendor_cpp"] is None or _within(r["tilesched"], r["vendor_cpp"]))]
        diffs = [abs(r["tilesched"] - r["vendor_python"]) for r in members]
        rel = [d / r["vendor_python"] for d, r in zip(diffs, members, strict=True)]
        same = all(r["vendor_cpp"] == r["vendor_python"] for r in members) if ran_cpp else None
        csv_lines = sorted({r["csv_line"] for r in members})
        total, inside = total + len(members), inside + len(ok)
        lines.append(f"| {op} | `{VENDOR_OPS[op]}` | {dtype} | {csv_lines[0]}-{csv_lines[-1]} | "
                     f"{len(members)} | {len(ok)} | {max(diffs)} | {100 * max(rel):.2f}% | "
                     f"{'-' if same is None else 'yes' if same else 'NO'} |")
    lines += ["", f"**{inside} of {total} cases within tolerance** "
              f"({len({r['csv_line'] for r in rows})} CSV lines). Every row per case: "
              "`benchmarks/results/model.json`, table `formula_rows`.", ""]
    # ---- 2
    shapes = example_ops(target)
    figures.add_rows("model", "example_ops", shapes)
    lines += ["### Transfers and matmuls of the bundled Ascend examples", "",
              "Distinct (op, path, shape) of the five Ascend examples. Transfers: the vendor's "
              "`floor(bytes / 2^30 / GiB/s x 1.85e9)`, L0C sources at 2 bytes per element; "
              "tilesched rounds up (`ceil`), so it may be 1 cycle above. GM -> L0A/L0B and L1 -> UB "
              "have no vendor path (assumptions in the TOML).", "",
              "| example | op | path | shape | tilesched | vendor (formula) | vendor (C++) | diff |",
              "|---|---|---|---|---:|---:|---:|---:|"]
    for r in shapes:
        theirs = r["vendor_python"]
        diff = "-" if theirs is None else f"{r['tilesched'] - theirs:+d}"
        lines.append(f"| {r['example']} | `{r['op']}` | {r['path']} | {r['shape']} | {r['tilesched']} | "
                     f"{'-' if theirs is None else theirs} | "
                     f"{'-' if r['vendor_cpp'] is None else int(r['vendor_cpp'])} | {diff} |")
    # ---- 3 GEMM
    lines += ["", "### Against public hardware measurements (validation only, nothing fitted)", "",
              "**GEMM** (`kernels/manual/a2a3/gemm_performance/README.md`, Ascend A3, 24 cores, "
              "fp16 -> fp32). Predicted: each engine's busy time on one core, tilesched's per-op "
              "cycles x the kernel's op counts (see `gemm_prediction`); measured busy = the README's "
              "engine ratio x execution time (ASSUMPTION: a ratio is the engine's busy share of the "
              "run). Time predicted = the busiest engine (perfect overlap, so a lower bound); every "
              "core's GM traffic at the one-core rate (no contention modelled).", "",
              "| m=k=n | engine | predicted us | measured us | error |", "|---|---|---:|---:|---:|"]
    for size, mm, ex, ld, st, ms in GEMM_MEASURED:
        predicted = gemm_prediction(target, size)
        measured = {"TLOAD (MTE2)": ld, "TEXTRACT (MTE1)": ex, "TMATMUL (M)": mm, "TSTORE (FIX)": st}
        for engine, cycles in predicted.items():
            got = measured[engine] * ms * 1000
            lines.append(f"| {size} | {engine} | {_us(cycles):.1f} | {got:.1f} | {_err(_us(cycles), got)} |")
            figures.add_row("model", "gemm", size=size, engine=engine, predicted_us=_us(cycles),
                            measured_us=got)
        best = max(predicted.values())
        lines.append(f"| {size} | **time** (busiest engine) | {_us(best):.1f} | {ms * 1000:.1f} | "
                     f"{_err(_us(best), ms * 1000)} |")
        figures.add_row("model", "gemm", size=size, engine="time", predicted_us=_us(best),
                        measured_us=ms * 1000)
    # ---- 3 FA
    lines += ["", "**Flash attention** (`kernels/manual/common/flash_atten/README.md`, 910B2, one core "
              "= 1 cube + 2 vector cores, S0 = 128, HEAD = 128). Predicted: per-unit busy time with "
              "the core split and loop structure assumed in `fa_prediction` (ascend-a2 has one "
              "issuer for all pipes; this estimate gives the cube and each vector core their own "
              "units, as the split-core target `ascend-a2-mix` simulates, below); time = "
              "the busiest unit.", "",
              "| S1 | busiest unit | cube M busy us | vector V busy us | predicted us | measured us | error |",
              "|---:|---|---:|---:|---:|---:|---:|"]
    for s1, measured_us in FA_MEASURED:
        busy = fa_prediction(target, s1)
        unit = max(busy, key=busy.get)
        predicted_us = _us(busy[unit])
        lines.append(f"| {s1} | {unit} | {_us(busy['AIC M']):.1f} | {_us(busy['AIV V']):.1f} | "
                     f"{predicted_us:.1f} | {measured_us:.1f} | {_err(predicted_us, measured_us)} |")
        figures.add_row("model", "flash_attention", s1=s1, busiest=unit, predicted_us=predicted_us,
                        measured_us=measured_us)
    # ---- 4 split cores
    mixed = mixed_rows()
    figures.add_rows("model", "split_core", mixed)
    lines += ["", "### The split-core target `ascend-a2-mix`: the mixed examples simulated", "",
              "One cube core (AIC) and two vector cores (AIV0, AIV1), each its own issuer, "
              "exchanging tiles through GM with cross-core flags (docs/targets.md, \"Cores\"); the "
              "numbers are ascend-a2's. The sync-free twins are synchronized by `insert-sync`. "
              "Busiest unit per core: its busy cycles.", "",
              "| example | sync | cycles | us | bound | correct | AIC | AIV0 | AIV1 |",
              "|---|---|---:|---:|---:|---|---|---|---|"]
    for r in mixed:
        cores = [f"{r['busiest'][c][0]} {r['busiest'][c][1]}"
                 if r["busiest"].get(c, ("", 0))[1] else "idle" for c in ("AIC", "AIV0", "AIV1")]
        lines.append(f"| {r['example']} | {r['sync']} | {r['cycles']} | {r['time_us']:.2f} | "
                     f"{r['bound']} | {'yes' if r['ok'] else 'NO'} | " + " | ".join(cores) + " |")
    lines += ["", "Reading: the errors are those of a per-op model with perfect overlap and no "
              "launch, sync or contention costs; short runs (S1 = 1024, 2048; GEMM 1536) are "
              "dominated by fixed overheads the model does not have, so it under-predicts them.", ""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(run())
