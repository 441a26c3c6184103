"""``emit-cpp``: print a tile program as a PTO-ISA kernel (DESIGN.md §2, Fusion contract).

The output includes ``<pto/pto-inst.hpp>`` (the PTO-ISA tile library) and compiles with
``clang++-19 -std=c++20 -D__CPU_SIM`` against its headers (docs/emit-cpp.md has the mapping
table). Per ``func.func``, one ``__global__ AICORE void`` kernel over ``__gm__ T*`` buffer
arguments and scalar arguments:

- a global buffer, view or slot is a ``pto::GlobalTensor<T, pto::Shape<...5 dims>,
  pto::Stride<...>>`` at its element offset from the argument's pointer;
- an on-chip buffer (UB, L1, L0A, L0B, L0C) is one ``pto::Tile<...>`` per buffer, slot and view,
  placed by the address plan (:mod:`.plan`) with ``TASSIGN(tile, byte_offset)``; the layout is
  the one its space's ops need: UB row-major ND (an ``R x 1`` column DN, as row reductions and
  row broadcasts take it), L1 NZ fractals (``BLayout::ColMajor`` + ``SLayout::RowMajor``, 512-byte
  fractals, what TLOAD / TMOV feed the cube with), L0A ``pto::TileLeft``, L0B
  ``pto::TileRight``, L0C ``pto::TileAcc``;
- tile ops are the library's intrinsics in its argument order (``TLOAD(tile, global)``,
  ``TSTORE(global, tile)``, ``TADD(dst, a, b)``, ``TMATMUL(c, a, b)``, ``TMATMUL_ACC(c, c, a,
  b)``, ``TROWMAX(dst, src, tmp)`` with a scratch tile from the plan, ``TCVT(dst, src,
  RoundMode::CAST_RINT)``...); every op of a fusion group is prefixed by
  ``[[pto::last_use(...)]]``, one 0/1 flag per emitted tile argument in emitted order;
- sync is ``set_flag`` / ``wait_flag`` on ``PIPE_*`` and ``EVENT_ID*`` (an event given as an
  ``index`` operand is a computed ``event_t``), ``pipe_barrier``; loops, ifs and while loops
  are C++;
- a function some ``func.call`` calls is an ``AICORE inline`` device function (one overload per
  list of argument types: ``GlobalTensor&``, ``Tile&`` plus its byte address, scalars), its own
  buffers in a frame below the kernels' (:mod:`.call_graph`); a kernel's UB argument is staged
  through a global buffer of its own (loaded at entry, stored back unless the kernel is a
  ``tile.kernel`` entry).

IR the library has no spelling for (a dynamic shape, another family's sync or memory, an op
without an intrinsic, an L1 / L0 argument of a kernel, recursion, a plan that does not fit) is a
located :class:`TileschedError` (exit 2, nothing written).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Block, Operation, SSAValue

from tilesched.analysis.fusion_annotations import last_use_flags
from tilesched.analysis.units import op_unit
from tilesched.diagnostics import TileschedError
from tilesched.emit.call_graph import CallGraph, callee_name, stack_frames
from tilesched.emit.cores import CORES_PRELUDE, cross_core_call, guarded, sync_core
from tilesched.emit.names import Names
from tilesched.emit.plan import DoesNotFit, Request, plan
from tilesched.ir import sync as S
from tilesched.ir import tile as T
from tilesched.ir.annotations import constant_index
from tilesched.ir.blocks import functions, is_kernel_entry
from tilesched.ir.text import location_of
from tilesched.ir.tile import FUSION_GROUP
from tilesched.ir.types import element_bytes, memory_space, memref_shape
from tilesched.target.cores import split_unit
from tilesched.target.model import Target

HEADER = "pto/pto-inst.hpp"
COMPILE = "clang++-19 -std=c++20 -D__CPU_SIM -I PTO_ISA/include -c kernel.cpp"

TILE_TYPES = {"UB": "Vec", "L1": "Mat", "L0A": "Left", "L0B": "Right", "L0C": "Acc"}
ELEMENTS = {"f16": "half", "bf16": "bfloat16_t", "f32": "float", "i8": "int8_t",
            "i16": "int16_t", "i32": "int32_t", "i64": "int64_t", "ui8": "uint8_t"}
# numpy storage type name of each element type (what run-cpp exchanges with the kernel)
NUMPY = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "i8": "int8", "i16": "int16",
         "i32": "int32", "i64": "int64", "ui8": "uint8"}
_SIMPLE = {
    T.AddOp: "TADD", T.SubOp: "TSUB", T.MulOp: "TMUL", T.DivOp: "TDIV", T.MaxOp: "TMAX",
    T.MinOp: "TMIN", T.AddsOp: "TADDS", T.SubsOp: "TSUBS", T.MulsOp: "TMULS", T.MaxsOp: "TMAXS", T.ExpOp: "TEXP",
    T.NegOp: "TNEG", T.AbsOp: "TABS", T.ReluOp: "TRELU", T.RsqrtOp: "TRSQRT",
    T.RowexpandSubOp: "TROWEXPANDSUB", T.RowexpandMulOp: "TROWEXPANDMUL",
    T.RowexpandDivOp: "TROWEXPANDDIV",
}
_REDUCE = {T.RowsumOp: "TROWSUM", T.RowmaxOp: "TROWMAX"}
PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")
EVENT_IDS = 8
_BINARY = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*", "arith.divsi": "/",
           "arith.remsi": "%", "arith.andi": "&", "arith.ori": "|", "arith.xori": "^",
           "arith.shli": "<<", "arith.shrsi": ">>", "arith.addf": "+", "arith.subf": "-",
           "arith.mulf": "*", "arith.divf": "/"}
_CALLS = {"arith.minsi": "tilesched_rt::min_of", "arith.maxsi": "tilesched_rt::max_of",
          "arith.minui": "tilesched_rt::min_of", "arith.maxui": "tilesched_rt::max_of",
          "arith.floordivsi": "tilesched_rt::floor_div", "arith.ceildivsi": "tilesched_rt::ceil_div",
          "arith.ceildivui": "tilesched_rt::ceil_div", "arith.maximumf": "tilesched_rt::max_of",
          "arith.minimumf": "tilesched_rt::min_of", "arith.maxnumf": "tilesched_rt::max_of",
          "arith.minnumf": "tilesched_rt::min_of"}
_UNSIGNED = {"arith.divui": "/", "arith.remui": "%", "arith.shrui": ">>"}
_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci",
          "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.extf",
          "arith.truncf")
_CMPI = ["==", "!=", "<", "<=", ">", ">=", "<", "<=", ">", ">="]
_CMPF = [None, "==", ">", ">=", "<", "<=", "!=", None, None, "==", ">", ">=", "<", "<=", "!=", None]

PRELUDE = """#include <stddef.h>  // the library's headers use size_t and uint8_t before including them
#include <stdint.h>
#include <pto/pto-inst.hpp>

// [[pto::last_use(f0, f1, ...)]]: per emitted tile argument, whether the op reads it for the
// last time (PTOAS's EmitC contract). Compilers that do not know the attribute ignore it.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wunknown-attributes"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wattributes"
#endif

namespace tilesched_rt {  // index math that has no C++ operator
template <typename T> AICORE inline T min_of(T a, T b) { return a < b ? a : b; }
template <typename T> AICORE inline T max_of(T a, T b) { return a < b ? b : a; }
template <typename T> AICORE inline T floor_div(T a, T b) {
  T q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
template <typename T> AICORE inline T ceil_div(T a, T b) {
  T q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}
}  // namespace tilesched_rt
"""


@dataclass
class PlanEntry:
    """One placed on-chip buffer: IR name, space, bytes, offset, live op interval."""

    name: str
    space: str
    size: int
    offset: int
    start: int
    end: int
    unit: str | None = None

    def to_json(self) -> dict:
        return {"buffer": self.name, "space": self.space, "bytes": self.size,
                "offset": self.offset, "live": [self.start, self.end], "unit": self.unit}


@dataclass
class Param:
    """A kernel parameter: C++ name, IR name, C++ type, and for buffers shape and numpy dtype."""

    name: str
    ir_name: str
    ctype: str
    shape: tuple[int, ...] | None = None
    dtype: str | None = None
    output: bool = True  # False: the kernel does not write it back (a kernel entry's UB argument)

    @property
    def is_buffer(self) -> bool:
        return self.shape is not None


@dataclass
class Kernel:
    """What was printed for one ``func.func``."""

    name: str
    ir_name: str
    params: list[Param]
    plan: list[PlanEntry]
    text: str


@dataclass
class Emitted:
    """A printed module: its kernels (in order), the opaque callees they call, and the device
    functions (``func.call``: callees before their callers) printed before the kernels."""

    kernels: list[Kernel]
    callees: list[str]
    target: str
    source: str = ""
    capacities: dict[str, int] = field(default_factory=dict)
    cores: bool = False  # a split-core target: per-core sections (emit/cores.py)
    devices: list[str] = field(default_factory=list)

    def text(self, with_plan: bool = True) -> str:
        head = [f"// Generated by tilesched emit-cpp for target {self.target}"
                + (f" from {self.source}" if self.source else "") + ".",
                f"// Compile (CPU simulation): {COMPILE}", PRELUDE + (CORES_PRELUDE if self.cores else "")]
        return "\n".join(head) + "\n" + self.body(with_plan)

    def body(self, with_plan: bool = True) -> str:
        """Callee declarations and kernels (everything after the includes)."""
        lines = []
        if self.callees:
            lines.append("// Opaque callees (tile.call): defined by the code that links the kernel.")
            lines += [f"template <typename... Args> AICORE void {name}(Args&... args);"
                      for name in self.callees]
            lines.append("")
        for device in self.devices:
            lines.append(device if with_plan else _without_plan(device))
        for kernel in self.kernels:
            if with_plan:
                lines += plan_comment(kernel, self.capacities)
            lines.append(kernel.text)
        return "\n".join(lines)


def _without_plan(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("// Address plan")
                     and not line.startswith("//   ")) + "\n"


def plan_comment(kernel: Kernel, capacities: dict[str, int]) -> list[str]:
    """The address plan of a kernel (or a device function's frame) as a C++ comment block."""
    lines = [f"// Address plan of {kernel.name} (bytes; live = op interval):"]
    for e in sorted(kernel.plan, key=lambda e: (e.space, e.offset, e.name)):
        lines.append(f"//   {e.space:<4} [{e.offset:>7}, {e.offset + e.size:>7})  {e.name}  "
                     f"live {e.start}..{e.end}" + (f" on {e.unit} only" if e.unit else ""))
    used: dict[str, int] = {}
    for e in kernel.plan:
        used[e.space] = max(used.get(e.space, 0), e.offset + e.size)
    for space in sorted(used):
        lines.append(f"//   {space}: {used[space]} of {capacities.get(space, '?')} bytes")
    return lines


def emit_module(module: ModuleOp, target: Target, source: str = "") -> str:
    """The C++ text of every function of ``module`` (see the module docstring)."""
    return emit(module, target, source).text()


def emit(module: ModuleOp, target: Target, source: str = "") -> Emitted:
    """Print every function of ``module``; :class:`Emitted` keeps kernels, params and plans.

    A function some ``func.call`` names is a device function, printed once per distinct list of
    argument types its callers pass (C++ overloads), in a frame of on-chip bytes of its own
    below every kernel's buffers (:mod:`.call_graph`); the others are kernels."""
    fns = list(functions(module))
    graph = CallGraph(fns)
    scope = Names()
    fn_names = scope.claim_all([f.sym_name.data for f in fns])
    function_names = {f.sym_name.data: name for f, name in zip(fns, fn_names, strict=True)}
    # tile.call is opaque (tilesched's semantics: no data change), even when it names a function
    # of the module: its callee is a declaration of its own, never that function
    opaque_ir = sorted({_callee(op) for f in fns for op in f.walk() if isinstance(op, T.CallOp)})
    opaque = dict(zip(opaque_ir, scope.claim_all(opaque_ir), strict=True))
    capacities = {name: s.capacity for name, s in target.spaces.items()
                  if s.capacity is not None and name in TILE_TYPES}
    unit = _Unit(graph, target, frozenset(scope.used), function_names, opaque, capacities)
    sizes = {}
    for f in fns:  # the frame of each device function: the bytes its own plan takes
        if graph.is_device(f):
            probe = _Function(f, function_names[f.sym_name.data], target, unit.taken, opaque,
                              capacities, unit, device=True)
            probe.analyse()
            sizes[f.sym_name.data] = {r.space: max(o + r.size for q, o in zip(
                probe.requests, probe.offsets, strict=True) if q.space == r.space)
                for r in probe.requests}
    unit.bases, reserved = stack_frames(sizes)
    kernels = []
    for f, name in zip(fns, fn_names, strict=True):
        if graph.is_device(f):
            continue
        base = reserved if graph.reachable(f.sym_name.data) else {}
        kernels.append(_Function(f, name, target, unit.taken, opaque, capacities, unit,
                                 base=base).print())
    return Emitted(kernels, [opaque[c] for c in opaque_ir], target.name, source, capacities,
                   bool(target.cores), unit.devices)


class _Unit:
    """What the functions of one printed module share: the call graph, the names, the frames
    of device functions and the device functions printed so far (one per function and list of
    C++ parameter types)."""

    def __init__(self, graph: CallGraph, target: Target, taken: frozenset[str],
                 functions: dict[str, str], opaque: dict[str, str], capacities: dict[str, int]):
        self.graph, self.target, self.taken = graph, target, taken
        self.functions, self.opaque, self.capacities = functions, opaque, capacities
        self.bases: dict[str, dict[str, int]] = {}
        self.devices: list[str] = []
        self.printed: set[tuple[str, tuple[str, ...]]] = set()

    def device(self, name: str, signature: list[tuple]) -> str:
        """The C++ name of device function ``@name`` for ``signature`` (printed on first use)."""
        key = (name, tuple(entry[1] for entry in signature))
        cname = self.functions[name]
        if key not in self.printed:
            self.printed.add(key)
            fn = self.graph.functions[name]
            printer = _Function(fn, cname, self.target, self.taken, self.opaque, self.capacities,
                                self, base=self.bases.get(name, {}), device=True,
                                signature=signature)
            self.devices.append(printer.print_device())
        return cname


def _callee(op: T.CallOp) -> str:
    return op.callee.data if hasattr(op.callee, "data") else op.callee.string_value()


@dataclass
class _Gm:
    """A global value: GlobalTensor name, element offset expression from ``base``, shape, strides."""

    name: str
    base: str
    offset: str
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    element: str
    valid: tuple[str, ...] | None = None  # a valid region: C++ extents of the trailing dims


@dataclass
class _Chip:
    """An on-chip value: root request index, byte offset expression, 2-D shape, row pitch."""

    root: int
    space: str
    offset: str
    shape: tuple[int, int]
    pitch: int
    element: str
    tile: str | None = None  # the C++ Tile variable once declared
    window: tuple[str, str, str] | None = None  # a window of an L1 tile: (tile, row, col)
    valid: tuple[str, str] | None = None  # a valid region: C++ (rows, cols) extents


class _Function:
    def __init__(self, fn: func.FuncOp, name: str, target: Target, taken: frozenset[str],
                 callees: dict[str, str], capacities: dict[str, int], unit: _Unit | None = None,
                 base: dict[str, int] | None = None, device: bool = False,
                 signature: list[tuple] | None = None):
        self.fn, self.cname, self.target, self.callees = fn, name, target, callees
        self.capacities = capacities
        self.unit = unit
        self.base = base or {}  # bytes per space below this function's buffers (device frames)
        self.device = device  # a device function (func.call): on-chip arguments are the caller's
        self.signature = signature  # per argument, what the caller passes (see call_function)
        self.staged: list[SSAValue] = []  # on-chip arguments of a kernel, staged through GM
        self.names = Names(taken)
        self.values: dict[SSAValue, str] = {}
        self.gm: dict[SSAValue, _Gm] = {}
        self.chip: dict[SSAValue, _Chip] = {}
        self.requests: list[Request] = []
        self.request_op: list[Operation] = []
        self.root_of: dict[SSAValue, int] = {}
        self.scratch: dict[Operation, int] = {}
        self.offsets: list[int] = []

    # ---------------------------------------------------------------- plan

    def analyse(self) -> None:
        """Number the ops, collect on-chip buffers and their live intervals, place them."""
        position: dict[Operation, int] = {}
        loops: list[tuple[int, int]] = []
        counter = 0

        def walk(block: Block) -> None:
            nonlocal counter
            for op in block.ops:
                position[op] = counter
                counter += 1
                start = counter - 1
                for region in op.regions:
                    for inner in region.blocks:
                        walk(inner)
                if isinstance(op, scf.ForOp | scf.WhileOp):
                    loops.append((start, counter - 1))

        if not self.device:  # a kernel's on-chip arguments are its own buffers (staged)
            for arg in self.fn.body.block.args:
                if isinstance(arg.type, MemRefType) and memory_space(arg.type) in TILE_TYPES:
                    self.root_of[arg] = self.request(arg, self.fn, 0)
                    self.staged.append(arg)
        walk(self.fn.body.block)
        uses: dict[int, list[int]] = {}
        units: dict[int, set[str | None]] = {}
        for arg in self.staged:  # loaded before the first op, stored after the last
            uses[self.root_of[arg]] = [0, max(counter - 1, 0)]
            units[self.root_of[arg]] = {None}
        for op, at in position.items():
            if isinstance(op, func.CallOp):  # the callee may touch them on any unit
                for v in op.operands:
                    if v in self.root_of:
                        uses.setdefault(self.root_of[v], []).append(at)
                        units.setdefault(self.root_of[v], set()).add(None)
            elif isinstance(op, memref.AllocOp):
                space = memory_space(op.memref.type)
                if space in TILE_TYPES:
                    self.root_of[op.memref] = self.request(op.memref, op, at)
            elif isinstance(op, T.ViewOp | T.SlotOp) and op.source in self.root_of:
                self.root_of[op.result] = self.root_of[op.source]
            elif isinstance(op, T.TileOp):
                unit = op_unit(op, self.target)
                for v in op.operands:
                    if v in self.root_of:
                        uses.setdefault(self.root_of[v], []).append(at)
                        units.setdefault(self.root_of[v], set()).add(unit)
                if type(op) in _REDUCE and memory_space(op.operands[0].type) == "UB":
                    src = op.operands[0]
                    self.scratch[op] = len(self.requests)
                    self.requests.append(Request(
                        f"scratch of {op.name} at op {at}", memory_space(src.type) or "?",
                        self.tile_bytes(src.type, op), at, at, self.in_order({unit})))
                    self.request_op.append(op)
        for k, points in uses.items():
            lo, hi = min(points), max(points)
            for start, end in loops:  # a buffer used in a loop holds data across iterations
                if any(start <= p <= end for p in points):
                    lo, hi = min(lo, start), max(hi, end)
            old = self.requests[k]
            self.requests[k] = Request(old.name, old.space, old.size, lo, hi,
                                       self.in_order(units.get(k, set())))
        base = self.base
        try:  # above the frames of device functions (base), within the space's capacity
            offsets = plan(self.requests, {s: c - base.get(s, 0)
                                           for s, c in self.capacities.items()})
            self.offsets = [o + base.get(r.space, 0) for r, o in
                            zip(self.requests, offsets, strict=True)]
        except DoesNotFit as err:
            live = [r for r in self.requests if r.space == err.space]
            frames = f", above {base[err.space]} bytes of device function frames" \
                if base.get(err.space) else ""
            raise TileschedError(
                f"emit-cpp cannot place the on-chip buffers of @{self.fn.sym_name.data}: "
                f"{err.space} needs {err.needed + base.get(err.space, 0)} bytes, the target has "
                f"{err.capacity + base.get(err.space, 0)}{frames} "
                f"({len(live)} buffer(s) in {err.space}; this one ends at byte "
                f"{err.needed + base.get(err.space, 0)})",
                location_of(self.request_op[err.culprit])) from None

    def in_order(self, units: set[str | None]) -> str | None:
        """The unit when exactly one queued, non-pipelined unit does all the accesses."""
        if len(units) != 1:
            return None
        (unit,) = units
        spec = self.target.units.get(unit) if unit else None
        return unit if spec is not None and spec.kind == "queued" and not spec.pipelined else None

    def request(self, value: SSAValue, op: Operation, at: int) -> int:
        kind = value.type
        shape = memref_shape(kind)
        if any(d < 0 for d in shape):
            raise self.cannot(op, f"the dynamic shape {kind} has no spelling in PTO-ISA C++ "
                                  "(tiles have static shapes)")
        size = math.prod(shape) * element_bytes(kind)
        self.requests.append(Request(f"%{value.name_hint or 'buffer'}", memory_space(kind),
                                     size, at, at))
        self.request_op.append(op)
        return len(self.requests) - 1

    def tile_bytes(self, kind: MemRefType, op: Operation) -> int:
        return math.prod(memref_shape(kind)) * element_bytes(kind)

    def plan_entries(self) -> list[PlanEntry]:
        return [PlanEntry(r.name, r.space, r.size, off, r.start, r.end, r.unit)
                for r, off in zip(self.requests, self.offsets, strict=True)]

    # ---------------------------------------------------------------- function

    def print(self) -> Kernel:
        fn = self.fn
        if fn.function_type.outputs.data:
            raise TileschedError(f"emit-cpp cannot print @{fn.sym_name.data}: a kernel returns "
                                 "no values (a function that returns values is printed only as "
                                 "a device function, when a func.call calls it)", location_of(fn))
        self.analyse()
        params: list[Param] = []
        head: list[str] = []
        loads: list[str] = []
        stores: list[str] = []
        for k, arg in enumerate(fn.body.block.args):
            name = self.bind(arg, arg.name_hint or f"arg{k}")
            if isinstance(arg.type, MemRefType):
                shape = self.static_shape(arg.type, fn)
                space = memory_space(arg.type)
                spec = self.target.spaces.get(space)
                element = self.element(arg.type, fn) if spec is not None else ""
                if arg in self.staged and space == "UB":
                    head += self.staged_argument(arg, name, shape, element, params, loads, stores)
                    continue
                if spec is None or not spec.is_global:
                    why = ("the host passes global memory only, so a kernel stages an "
                           "on-chip argument through a global buffer (TLOAD in, TSTORE out); "
                           "emit-cpp stages UB (Vec) tiles only (an L1 / L0 tile's fractal "
                           "layout is not a plain copy of global memory; pass the data in GM "
                           "and load it)"
                           if arg in self.staged else
                           "a kernel takes global (__gm__) buffers only")
                    raise self.cannot(fn, f"argument %{arg.name_hint or k} is in {space}: {why}")
                params.append(Param(name, arg.name_hint or f"arg{k}", f"__gm__ {element}*",
                                    shape, NUMPY[str(arg.type.element_type)]))
                tensor = self.names.claim(f"{name}_gm")
                strides = _row_major(shape)
                self.gm[arg] = _Gm(tensor, name, "0", shape, strides, element)
                head.append(self.global_tensor(self.gm[arg], name))
            else:
                params.append(Param(name, arg.name_hint or f"arg{k}", self.type_of(arg.type, fn)))
        if loads:
            head += loads + ["pipe_barrier(PIPE_ALL);  // the staged arguments are loaded"]
        head += self.scratch_tiles()
        tail = ["pipe_barrier(PIPE_ALL);  // every unit is done with the staged arguments",
                *stores] if stores else []
        signature = ", ".join(f"{p.ctype} {p.name}" for p in params)
        lines = [f"__global__ AICORE void {self.cname}({signature}) {{"]
        lines += _indent(head + self.block(fn.body.block) + tail)
        lines.append("}")
        return Kernel(self.cname, fn.sym_name.data, params, self.plan_entries(),
                      "\n".join(lines) + "\n")

    def staged_argument(self, arg: SSAValue, name: str, shape: tuple[int, ...], element: str,
                        params: list[Param], loads: list[str], stores: list[str]) -> list[str]:
        """A kernel's on-chip (UB) argument: the host can pass global memory only, so the kernel
        takes a global buffer ``NAME_home`` and stages the tile through it: TLOAD at entry,
        TSTORE at exit (the argument's contents in and out, as tilesched's semantics have them).
        A kernel entry's (``tile.kernel``) on-chip arguments do not outlive it, and their last
        reads may carry ``last_use`` flags: they are loaded only, never stored back."""
        entry = is_kernel_entry(self.fn)
        home = self.names.claim(f"{name}_home")
        params.append(Param(home, arg.name_hint or name, f"__gm__ {element}*", shape,
                            NUMPY[str(arg.type.element_type)], output=not entry))
        gm = _Gm(self.names.claim(f"{name}_gm"), home, "0", shape, _row_major(shape), element)
        k = self.root_of[arg]
        rows, cols = _as_2d(shape)
        chip = _Chip(k, "UB", str(self.offsets[k]), (rows, cols), cols, element)
        self.chip[arg] = chip
        loads.append(f"pto::TLOAD({name}, {gm.name});")
        if not entry:
            stores.append(f"pto::TSTORE({gm.name}, {name});")
        how = "loaded from" if entry else "staged through"
        return [f"// %{arg.name_hint or name} is an on-chip (UB) argument, {how} "
                f"{home} in global memory", self.global_tensor(gm, home),
                *self.declare_tile(chip, name, self.fn)]

    def scratch_tiles(self) -> list[str]:
        """Declarations of the scratch tiles of row reductions, placed by the plan."""
        head = []
        self.scratch_names: dict[Operation, str] = {}
        for op, k in self.scratch.items():
            rows, cols = _as_2d(memref_shape(op.operands[0].type))
            tmp = _Chip(k, self.requests[k].space, str(self.offsets[k]), (rows, cols), cols,
                        self.element(op.operands[0].type, op))
            self.scratch_names[op] = self.names.claim("tmp")
            head += self.declare_tile(tmp, self.scratch_names[op], op)
        return head

    def print_device(self) -> str:
        """A called function as an ``AICORE inline`` device function for ``self.signature``:
        a global argument is the caller's GlobalTensor (by reference), an on-chip one the
        caller's Tile (by reference) and its byte address (``NAME_addr``, for the views and
        slots the callee takes of it), a scalar by value; results are reference parameters
        assigned at ``func.return``. Its own buffers live in its frame (``self.base``)."""
        fn = self.fn
        self.analyse()
        params: list[str] = []
        for k, (arg, entry) in enumerate(zip(fn.body.block.args, self.signature, strict=True)):
            name = self.bind(arg, arg.name_hint or f"arg{k}")
            if entry[0] == "gm":
                _, ctype, strides = entry
                params.append(f"{ctype}& {name}")
                self.gm[arg] = _Gm(name, f"{name}.data()", "0", self.static_shape(arg.type, fn),
                                   strides, self.element(arg.type, fn))
            elif entry[0] == "chip":
                _, ctype, caller = entry
                addr = self.names.claim(f"{name}_addr")
                params += [f"{ctype}& {name}", f"int64_t {addr}"]
                self.chip[arg] = _Chip(-1, caller.space, addr, caller.shape, caller.pitch,
                                       caller.element, name)
            else:
                params.append(f"{entry[1]} {name}")
        outs = []
        for k, kind in enumerate(fn.function_type.outputs.data):
            outs.append(self.names.claim(f"result{k}"))
            params.append(f"{self.type_of(kind, fn)}& {outs[-1]}")
        head = self.scratch_tiles()
        body = self.block(fn.body.block)
        last = fn.body.block.last_op
        if outs and isinstance(last, func.ReturnOp):
            body += [f"{o} = {self.name(v, last)};" for o, v in zip(outs, last.operands,
                                                                     strict=True)]
        lines = []
        if self.plan_entries():
            lines += plan_comment(Kernel(self.cname, fn.sym_name.data, [], self.plan_entries(),
                                         ""), self.capacities)
        lines.append(f"// @{fn.sym_name.data}: a device function (func.call)")
        lines.append(f"AICORE inline void {self.cname}({', '.join(params)}) {{")
        lines += _indent(head + body)
        lines.append("}")
        return "\n".join(lines) + "\n"

    def call_function(self, op: func.CallOp) -> list[str]:
        """``f(args...)``: the callee printed as a device function for the C++ types of what
        this call passes (see :meth:`print_device`); results are variables it assigns."""
        signature: list[tuple] = []
        args: list[str] = []
        for v in op.arguments:
            if not isinstance(v.type, MemRefType):
                signature.append(("scalar", self.type_of(v.type, op)))
                args.append(self.name(v, op))
            elif v in self.gm:
                gm = self.gm[v]
                signature.append(("gm", self.global_type(gm), gm.strides))
                args.append(gm.name)
            elif v in self.chip:
                chip = self.chip[v]
                if chip.window is not None:
                    raise self.cannot(op, "a window of an L1 buffer has no tile spelling (NZ "
                                          "fractal layout); pass the whole buffer")
                signature.append(("chip", self.tile_type(chip, op), chip))
                args += [chip.tile or self.name(v, op), chip.offset]
            else:
                raise self.cannot(op, "an operand is neither a global buffer nor an on-chip tile")
        lines = []
        for r in op.results:
            name = self.bind(r, r.name_hint or "result")
            lines.append(f"{self.type_of(r.type, op)} {name};")
            args.append(name)
        cname = self.unit.device(callee_name(op), signature)
        return lines + [f"{cname}({', '.join(args)});"]

    def while_loop(self, op: scf.WhileOp) -> list[str]:
        """``while (true) { before; results = forwarded; if (!cond) break; after; carried =
        yielded; }``: the before region's arguments are variables carried around the loop."""
        before, after = op.before_region.blocks[0], op.after_region.blocks[0]
        lines, carried = [], []
        for arg, init in zip(before.args, op.arguments, strict=True):
            name = self.bind(arg, arg.name_hint or "carried")
            lines.append(f"{self.type_of(arg.type, op)} {name} = {self.name(init, op)};")
            carried.append(name)
        results = [self.bind(r, r.name_hint or "result") for r in op.results]
        lines += [f"{self.type_of(r.type, op)} {n};" for r, n in zip(op.results, results,
                                                                    strict=True)]
        condition = before.last_op
        body: list[str] = []
        for inner in before.ops:
            if inner is not condition:
                body += self.op(inner)
        body += [f"{n} = {self.name(v, condition)};" for n, v in zip(results, condition.args,
                                                                      strict=True)]
        body.append(f"if (!{self.name(condition.condition, condition)}) break;")
        for arg, r in zip(after.args, results, strict=True):
            body.append(f"const {self.type_of(arg.type, op)} "
                        f"{self.bind(arg, arg.name_hint or 'forwarded')} = {r};")
        body += self.block(after) + self.assign_yield(after, carried)
        return lines + ["while (true) {", *_indent(body), "}"]

    def block(self, block: Block) -> list[str]:
        if self.target.cores:
            return guarded([(self.core_guard(op), self.op(op)) for op in block.ops
                            if not isinstance(op, func.ReturnOp | scf.YieldOp)], self.target)
        lines: list[str] = []
        for op in block.ops:
            if not isinstance(op, func.ReturnOp | scf.YieldOp):
                lines += self.op(op)
        return lines

    def core_guard(self, op: Operation) -> tuple[str, bool] | None:
        """On a split-core target, ``(core, declares)`` of the section ``op``'s statements go
        in (emit/cores.py), or None for code every core runs (loops, ifs, index math, global
        views)."""
        if isinstance(op, memref.AllocOp | T.ViewOp | T.SlotOp):
            value = op.results[0]
            space = memory_space(value.type)
            owner = next((c for c, core in self.target.cores.items() if space in core.spaces), None)
            return (owner, True) if owner is not None else None
        if isinstance(op, T.TileOp):
            unit = op_unit(op, self.target)
            core = self.target.core_of(unit) if unit else None
            return (core, False) if core is not None else None
        if isinstance(op, S.SyncOp):
            core = sync_core(op, self.target)
            return (core, False) if core is not None else None
        return None

    # ---------------------------------------------------------------- ops

    def op(self, op: Operation) -> list[str]:
        if isinstance(op, T.CallOp):
            return [self.call(op)]
        if isinstance(op, T.TileOp):
            return self.intrinsic(op)
        if isinstance(op, T.ViewOp | T.SlotOp):
            return self.view(op)
        if isinstance(op, memref.AllocOp):
            return self.alloc(op)
        if isinstance(op, memref.DeallocOp):
            return [f"// {self.values.get(op.memref, '?')} is no longer used (memref.dealloc)"]
        if op.name.startswith("sync."):
            return [self.sync(op)]
        if isinstance(op, scf.ForOp):
            return self.loop(op)
        if isinstance(op, scf.IfOp):
            return self.branch(op)
        if isinstance(op, scf.WhileOp):
            return self.while_loop(op)
        if isinstance(op, func.CallOp):
            return self.call_function(op)
        if op.name.startswith("arith."):
            return [self.arith(op)]
        raise self.cannot(op, "PTO-ISA has no spelling for this op")

    def alloc(self, op: memref.AllocOp) -> list[str]:
        kind = op.memref.type
        space = memory_space(kind)
        if space not in TILE_TYPES:
            spec = self.target.spaces.get(space)
            what = "a global buffer is a kernel argument, not an allocation" \
                if spec is not None and spec.is_global else \
                f"it is not an Ascend tile buffer ({', '.join(TILE_TYPES)})"
            raise self.cannot(op, f'memory space "{space}": {what}')
        shape = self.static_shape(kind, op)
        k = self.root_of[op.memref]
        name = self.bind(op.memref, op.memref.name_hint or "buf")
        rows, cols = _as_2d(shape)
        chip = _Chip(k, space, str(self.offsets[k]), (rows, cols), cols, self.element(kind, op))
        self.chip[op.memref] = chip
        return self.declare_tile(chip, name, op)

    def declare_tile(self, chip: _Chip, name: str, op: Operation) -> list[str]:
        chip.tile = name
        dynamic = [v for v in chip.valid or () if not v.isdigit()]  # run-time valid extents
        args = f"({', '.join(dynamic)})" if dynamic else ""
        return [f"{self.tile_type(chip, op)} {name}{args};", f"TASSIGN({name}, {chip.offset});"]

    def tile_type(self, chip: _Chip, op: Operation) -> str:
        rows, cols = chip.shape
        t = chip.element
        if chip.space == "UB":
            # the valid shape: static, or pto::DYNAMIC with the extent given to the constructor
            vrow, vcol = (v if v.isdigit() else "pto::DYNAMIC" for v in chip.valid or
                          (str(rows), str(cols)))
            if cols == 1 and chip.pitch == 1:  # a column: DN, as row reductions / broadcasts take it
                return (f"pto::Tile<pto::TileType::Vec, {t}, {rows}, 1, pto::BLayout::ColMajor, "
                        f"{vrow}, {vcol}, pto::SLayout::NoneBox, 512, pto::PadValue::Null>")
            return (f"pto::Tile<pto::TileType::Vec, {t}, {rows}, {chip.pitch}, "
                    f"pto::BLayout::RowMajor, {vrow}, {vcol}, pto::SLayout::NoneBox, 512, "
                    "pto::PadValue::Null>")
        if chip.valid is not None:
            raise self.cannot(op, f"a valid region is printed for UB tiles only (a {chip.space} "
                                  "tile's layout is fractal)")
        if chip.pitch != cols:
            raise self.cannot(op, f"a window of a {chip.space} buffer has no tile spelling "
                                  "(fractal layouts); only UB buffers may be viewed")
        size = ELEMENT_BYTES[t]
        if rows % 16 or (cols * size) % 32:
            raise self.cannot(op, f"a {rows}x{cols} {t} tile in {chip.space} is not a whole "
                                  "number of 16-row x 32-byte fractals (the cube's layout)")
        if chip.space == "L1":
            return (f"pto::Tile<pto::TileType::Mat, {t}, {rows}, {cols}, pto::BLayout::ColMajor, "
                    f"{rows}, {cols}, pto::SLayout::RowMajor, 512>")
        alias = {"L0A": "TileLeft", "L0B": "TileRight", "L0C": "TileAcc"}[chip.space]
        return f"pto::{alias}<{t}, {rows}, {cols}>"

    def view(self, op: T.ViewOp | T.SlotOp) -> list[str]:
        result = op.result
        shape = self.static_shape(result.type, op)
        source = op.source
        if source in self.gm:
            parent = self.gm[source]
            if isinstance(op, T.ViewOp):
                terms = [self.term(self.name(o, op), s) for o, s in
                         zip(op.offsets, parent.strides, strict=True)]
                strides = parent.strides
            else:
                terms = [self.term(self.name(op.index, op), parent.strides[0])]
                strides = parent.strides[1:]
            offset = _sum([parent.offset, *terms])
            name = self.bind(result, result.name_hint or "view")
            valid = self.valid_extents(op)
            gm = _Gm(name, parent.base, offset, shape, strides, parent.element, valid)
            self.gm[result] = gm
            return [self.global_tensor(gm, f"{parent.base} + {offset}" if offset != "0"
                                       else parent.base)]
        if source in self.chip:
            parent = self.chip[source]
            size = ELEMENT_BYTES[parent.element]
            if parent.window is not None and not isinstance(op, T.ViewOp):
                raise self.cannot(op, "a slot of a window of an L1 buffer has no tile spelling")
            if isinstance(op, T.ViewOp):
                offsets = [self.name(o, op) for o in op.offsets]
                if len(offsets) != 2 or len(memref_shape(source.type)) != 2:
                    raise self.cannot(op, "only views of 2-D on-chip buffers have a tile spelling")
                rows, cols = shape
                if parent.space == "L1":  # a window of NZ fractals: TEXTRACT's source position
                    base, r0, c0 = parent.window or (parent.tile, "0", "0")
                    chip = _Chip(parent.root, parent.space, parent.offset, (rows, cols), cols,
                                 parent.element, None, (base, _sum([r0, offsets[0]]),
                                                        _sum([c0, offsets[1]])))
                    self.chip[result] = chip
                    self.bind(result, result.name_hint or "window")
                    return []
                terms = [self.term(offsets[0], parent.pitch * size), self.term(offsets[1], size)]
                chip = _Chip(parent.root, parent.space, _sum([parent.offset, *terms]),
                             (rows, cols), parent.pitch, parent.element,
                             valid=self.valid_extents(op))
            else:
                rows, cols = _as_2d(shape)
                chip = _Chip(parent.root, parent.space,
                             _sum([parent.offset, self.term(self.name(op.index, op),
                                                            math.prod(shape) * size)]),
                             (rows, cols), cols, parent.element)
            self.chip[result] = chip
            return self.declare_tile(chip, self.bind(result, result.name_hint or "view"), op)
        raise self.cannot(op, "its source has no C++ spelling")

    def valid_extents(self, op: T.ViewOp | T.SlotOp) -> tuple[str, ...] | None:
        """The C++ extents of a view's valid region (literals when constant), or None."""
        if not isinstance(op, T.ViewOp) or not op.valid:
            return None
        return tuple(str(known) if (known := constant_index(v)) is not None else self.name(v, op)
                     for v in op.valid)

    def global_type(self, gm: _Gm) -> str:
        if len(gm.shape) > 5:
            raise TileschedError(f"emit-cpp cannot print {gm.name}: GlobalTensor has at most 5 "
                                 "dimensions")
        shape = (1,) * (5 - len(gm.shape)) + gm.shape
        strides = list(gm.strides)
        while len(strides) < 5:  # outer unit dimensions: the stride of a whole inner block
            strides.insert(0, (strides[0] * shape[5 - len(strides)]) if strides else 1)
        # an R x 1 column is DN, the layout of the DN tile it is loaded into or stored from (the
        # library's Vec loads need matching layouts); its element offsets are the same as ND's
        layout = ", pto::Layout::DN" if len(gm.shape) >= 2 and gm.shape[-1] == 1 else ""
        if gm.valid is not None:  # TLOAD / TSTORE move the valid region: a run-time shape
            return (f"pto::GlobalTensor<{gm.element}, {self.valid_shape(gm)[0]}, "
                    f"pto::Stride<{', '.join(map(str, strides))}>{layout}>")
        return (f"pto::GlobalTensor<{gm.element}, pto::Shape<{', '.join(map(str, shape))}>, "
                f"pto::Stride<{', '.join(map(str, strides))}>{layout}>")

    @staticmethod
    def valid_shape(gm: _Gm) -> tuple[str, tuple[str, ...]]:
        """The ``pto::Shape<...>`` type of a valid region (DYNAMIC where not constant) and its
        extents."""
        shape = (1,) * (5 - len(gm.shape)) + gm.shape
        extents = tuple(map(str, shape[:5 - len(gm.valid)])) + gm.valid
        return (f"pto::Shape<{', '.join(v if v.isdigit() else 'pto::DYNAMIC' for v in extents)}>",
                extents)

    def global_tensor(self, gm: _Gm, pointer: str) -> str:
        if gm.valid is not None:
            spelled, extents = self.valid_shape(gm)
            return f"{self.global_type(gm)} {gm.name}({pointer}, {spelled}({', '.join(extents)}));"
        return f"{self.global_type(gm)} {gm.name}({pointer});"

    def operand(self, value: SSAValue, op: Operation) -> str:
        if value in self.gm:
            return self.gm[value].name
        if value in self.chip:
            chip = self.chip[value]
            if chip.window is not None:
                raise self.cannot(op, "a window of an L1 buffer is printed only as the source of "
                                      "a copy to L0A / L0B (TEXTRACT); other uses have no "
                                      "spelling (NZ fractal layout)")
            return chip.tile or self.name(value, op)
        raise self.cannot(op, "an operand is neither a global buffer nor an on-chip tile")

    def intrinsic(self, op: T.TileOp) -> list[str]:
        mems = [v for v in op.operands if isinstance(v.type, MemRefType)]
        scalars = [self.name(v, op) for v in op.operands if not isinstance(v.type, MemRefType)]
        dst, reads = mems[-1], mems[:-1]
        read_flags = list(range(len(reads)))  # IR operand slot of each emitted read
        if isinstance(op, T.LoadOp | T.StoreOp | T.CopyOp):
            src_gm, dst_gm = reads[0] in self.gm, dst in self.gm
            if src_gm and not dst_gm:
                callee = "TLOAD"
            elif dst_gm and not src_gm:
                callee = "TSTORE"
            elif not src_gm and not dst_gm:
                callee = "TMOV"
            else:
                raise self.cannot(op, "a global-to-global copy has no tile intrinsic")
            window = self.chip[reads[0]].window if reads[0] in self.chip else None
            if window is not None and memory_space(dst.type) in ("L0A", "L0B"):
                base, r0, c0 = window  # the cube operand at (r0, c0) of an L1 tile
                return [self.fused(op, read_flags) + f"pto::TEXTRACT({self.operand(dst, op)}, "
                        f"{base}, static_cast<uint16_t>({r0}), static_cast<uint16_t>({c0}));"]
            args = [self.operand(dst, op), self.operand(reads[0], op)]
        elif isinstance(op, T.MatmulOp):
            spaces = [memory_space(v.type) for v in (*reads, dst)]
            if spaces != ["L0A", "L0B", "L0C"]:
                raise self.cannot(op, "TMATMUL takes its operands in L0A, L0B and L0C, got "
                                      + ", ".join(map(str, spaces)))
            a, b = (self.operand(v, op) for v in reads)
            c = self.operand(dst, op)
            if op.accumulate is not None:
                callee, args = "TMATMUL_ACC", [c, c, a, b]
                read_flags = [None, 0, 1]
            else:
                callee, args = "TMATMUL", [c, a, b]
        elif type(op) in _SIMPLE:
            callee = _SIMPLE[type(op)]
            args = [self.operand(v, op) for v in (dst, *reads)] + scalars
        elif type(op) in _REDUCE:
            if op not in self.scratch_names:
                raise self.cannot(op, f"{_REDUCE[type(op)]} works on Vec tiles (UB)")
            callee = _REDUCE[type(op)]
            args = [self.operand(dst, op), self.operand(reads[0], op), self.scratch_names[op]]
            read_flags = [0, "scratch"]
        elif isinstance(op, T.CastOp):
            callee = "TCVT"
            args = [self.operand(dst, op), self.operand(reads[0], op),
                    "pto::RoundMode::CAST_RINT"]
        elif isinstance(op, T.ReshapeOp):
            raise self.cannot(op, "PTO-ISA's TRESHAPE re-labels the source's bytes (the "
                                  "destination tile aliases the source); tile.reshape writes a "
                                  "separate buffer, which no intrinsic does")
        elif isinstance(op, T.FillOp):
            callee = "TEXPANDS"
            args = [self.operand(dst, op), self.literal(op.value, op)]
        elif isinstance(op, T.FillsOp):
            callee = "TEXPANDS"
            args = [self.operand(dst, op), *scalars]
        else:
            raise self.cannot(op, "PTO-ISA has no intrinsic tilesched maps this op to")
        for v in (dst, *reads):
            if v not in self.gm and v not in self.chip:
                raise self.cannot(op, "an operand is neither a global buffer nor an on-chip tile")
        if callee not in ("TLOAD", "TSTORE", "TMOV", "TMATMUL", "TMATMUL_ACC") and \
                any(memory_space(v.type) != "UB" for v in (dst, *reads)):
            raise self.cannot(op, f"{callee} works on Vec tiles (UB); an operand is in "
                              + ", ".join(sorted({str(memory_space(v.type)) for v in (dst, *reads)
                                                  if memory_space(v.type) != "UB"})))
        if callee not in ("TLOAD", "TSTORE") and any(v in self.gm for v in (dst, *reads)):
            raise self.cannot(op, f"{callee} works on on-chip tiles; an operand is in global "
                                  "memory")
        return [self.fused(op, read_flags) + f"pto::{callee}({', '.join(args)});"]

    def fused(self, op: T.TileOp, read_flags: list) -> str:
        """``[[pto::last_use(...)]] `` for a fused op: the destination's flag (0) first, then one
        per emitted read tile (its IR flag; 0 for a scratch tile)."""
        flags = last_use_flags(op)
        if FUSION_GROUP not in op.attributes or flags is None:
            return ""
        emitted = [0] + [int(flags[k]) if isinstance(k, int) else 0 for k in read_flags]
        return f"[[pto::last_use({', '.join(map(str, emitted))})]] "

    def call(self, op: T.CallOp) -> str:
        callee = self.callees[_callee(op)]
        return f"{callee}({', '.join(self.operand_or_scalar(v, op) for v in op.operands)});"

    def operand_or_scalar(self, value: SSAValue, op: Operation) -> str:
        return self.operand(value, op) if isinstance(value.type, MemRefType) else self.name(value, op)

    def sync(self, op: Operation) -> str:
        if isinstance(op, S.SetFlagOp | S.WaitFlagOp):
            what = "set_flag" if isinstance(op, S.SetFlagOp) else "wait_flag"
            index = [v for v in op.operands if isinstance(v.type, IndexType)]
            if index:  # a per-slot event id computed from an index operand (plus the base)
                base = op.event.value.data if getattr(op, "event", None) is not None else 0
                event = f"static_cast<event_t>({_sum([str(base), self.name(index[0], op)])})"
            else:
                number = op.event.value.data
                event = f"EVENT_ID{number}" if number < EVENT_IDS else \
                    f"static_cast<event_t>({number})"
            return f"{what}({self.pipe(op.src.data, op)}, {self.pipe(op.dst.data, op)}, {event});"
        if isinstance(op, S.CrossSetOp | S.CrossWaitOp):
            ident = S.cross_id(op)
            return cross_core_call(op, str(ident) if isinstance(ident, int)
                                   else self.name(ident, op))
        if isinstance(op, S.PipeBarrierOp):
            return f"pipe_barrier({self.pipe(op.pipe.data, op)});"
        if isinstance(op, S.BarrierAllOp):
            return "pipe_barrier(PIPE_ALL);"
        raise self.cannot(op, "PTO-ISA synchronizes with set_flag / wait_flag / pipe_barrier "
                              f"only (target family 'flags'); '{op.name}' has no spelling")

    def pipe(self, unit: str, op: Operation) -> str:
        if self.target.cores:
            unit = split_unit(unit)[1]  # AIC.FIX: pipe FIX of the core whose section it is in
        if unit not in PIPES:
            raise self.cannot(op, f"unit '{unit}' is not a PTO pipe ({', '.join(PIPES)})")
        return f"PIPE_{unit}"

    def loop(self, op: scf.ForOp) -> list[str]:
        lines = []
        carried = []
        for arg, init, result in zip(op.body.block.args[1:], op.iter_args, op.results, strict=True):
            name = self.bind(arg, arg.name_hint or "carried")
            self.values[result] = name
            lines.append(f"{self.type_of(arg.type, op)} {name} = {self.name(init, op)};")
            carried.append(name)
        iv_arg = op.body.block.args[0]
        iv = self.bind(iv_arg, iv_arg.name_hint or "i")
        lines.append(f"for (int64_t {iv} = {self.name(op.lb, op)}; {iv} < {self.name(op.ub, op)}; "
                     f"{iv} += {self.name(op.step, op)}) {{")
        lines += _indent(self.block(op.body.block) + self.assign_yield(op.body.block, carried))
        lines.append("}")
        return lines

    def branch(self, op: scf.IfOp) -> list[str]:
        names = [self.bind(r, r.name_hint or "result") for r in op.results]
        lines = [f"{self.type_of(r.type, op)} {n};" for r, n in zip(op.results, names, strict=True)]
        lines.append(f"if ({self.name(op.cond, op)}) {{")
        for k, region in enumerate((op.true_region, op.false_region)):
            if not region.blocks:
                continue
            if k == 1:
                lines.append("} else {")
            block = region.blocks[0]
            lines += _indent(self.block(block) + self.assign_yield(block, names))
        lines.append("}")
        return lines

    def assign_yield(self, block: Block, names: list[str]) -> list[str]:
        """``name = yielded`` for each carried value, through temporaries (yields may swap)."""
        last = block.last_op
        if not names or not isinstance(last, scf.YieldOp):
            return []
        values = [self.name(v, last) for v in last.operands]
        if len(names) == 1:
            return [f"{names[0]} = {values[0]};"]
        temps = [self.names.claim(f"{n}_next") for n in names]
        return [f"const auto {t} = {v};" for t, v in zip(temps, values, strict=True)] + \
            [f"{n} = {t};" for n, t in zip(names, temps, strict=True)]

    def arith(self, op: Operation) -> str:
        if op.name == "arith.constant":
            value = self.literal(op.value, op)
        elif op.name in _BINARY:
            a, b = (self.name(v, op) for v in op.operands)
            value = f"{a} {_BINARY[op.name]} {b}"
        elif op.name in _UNSIGNED:
            a, b = (self.name(v, op) for v in op.operands)
            kind = self.type_of(op.results[0].type, op)
            value = f"static_cast<{kind}>(static_cast<uint64_t>({a}) {_UNSIGNED[op.name]} " \
                    f"static_cast<uint64_t>({b}))"
        elif op.name in _CALLS:
            value = f"{_CALLS[op.name]}({', '.join(self.name(v, op) for v in op.operands)})"
        elif op.name in _CASTS:
            value = f"static_cast<{self.type_of(op.results[0].type, op)}>({self.name(op.operands[0], op)})"
        elif op.name == "arith.negf":
            value = f"-{self.name(op.operands[0], op)}"
        elif op.name == "arith.select":
            c, a, b = (self.name(v, op) for v in op.operands)
            value = f"{c} ? {a} : {b}"
        elif op.name in ("arith.cmpi", "arith.cmpf"):
            table = _CMPI if op.name == "arith.cmpi" else _CMPF
            predicate = op.predicate.value.data
            symbol = table[predicate] if predicate < len(table) else None
            if symbol is None:
                raise self.cannot(op, f"comparison predicate {predicate} has no C++ spelling")
            a, b = (self.name(v, op) for v in op.operands)
            value = f"{a} {symbol} {b}"
        else:
            raise self.cannot(op, "PTO-ISA C++ has no spelling for this arith op")
        result = op.results[0]
        kind = self.type_of(result.type, op)
        return f"const {kind} {self.bind(result, result.name_hint or 'v')} = {value};"

    # ---------------------------------------------------------------- values and types

    def term(self, name: str, scale: int) -> str:
        if name == "0" or scale == 0:
            return "0"
        return name if scale == 1 else f"{name} * {scale}"

    def literal(self, attr, op: Operation) -> str:
        if isinstance(attr, IntegerAttr):
            if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
                return "true" if attr.value.data else "false"
            return int_literal(attr.value.data)
        if isinstance(attr, FloatAttr):
            value = float(attr.value.data)
            suffix = "f" if attr.type.bitwidth <= 32 else ""
            if math.isnan(value):
                return f"__builtin_nan{suffix}(\"\")"
            if math.isinf(value):
                return ("-" if value < 0 else "") + f"__builtin_inf{suffix}()"
            return f"{value!r}{suffix}"
        raise self.cannot(op, f"the constant {attr} has no C++ spelling")

    def type_of(self, kind, op: Operation) -> str:
        if isinstance(kind, IndexType):
            return "int64_t"
        if isinstance(kind, IntegerType):
            return "bool" if kind.width.data == 1 else f"int{max(8, kind.width.data)}_t"
        if isinstance(kind, AnyFloat):
            return "double" if kind.bitwidth > 32 else "float"
        raise self.cannot(op, f"the type {kind} has no C++ spelling here")

    def element(self, kind: MemRefType, op: Operation) -> str:
        element = ELEMENTS.get(str(kind.element_type))
        if element is None:
            raise self.cannot(op, f"element type {kind.element_type} has no PTO-ISA tile type")
        return element

    def static_shape(self, kind: MemRefType, op: Operation) -> tuple[int, ...]:
        shape = memref_shape(kind)
        if any(d < 0 for d in shape):
            raise self.cannot(op, f"the dynamic shape {kind} has no spelling in PTO-ISA C++ "
                                  "(tiles have static shapes)")
        return shape

    def bind(self, value: SSAValue, text: str) -> str:
        name = self.names.claim(text)
        self.values[value] = name
        return name

    def name(self, value: SSAValue, op: Operation) -> str:
        found = self.values.get(value)
        if found is None:
            raise self.cannot(op, "it uses a value defined by an op the printer skipped")
        return found

    @staticmethod
    def cannot(op: Operation, why: str) -> TileschedError:
        return TileschedError(f"emit-cpp cannot print '{op.name}': {why}", location_of(op))


ELEMENT_BYTES = {"half": 2, "bfloat16_t": 2, "float": 4, "int8_t": 1, "int16_t": 2, "int32_t": 4,
                 "int64_t": 8, "uint8_t": 1}


def int_literal(value: int) -> str:
    """A C++ integer literal without warnings (INT64_MIN has no literal of its own)."""
    if value == -(1 << 63):
        return "(-9223372036854775807LL - 1)"
    if -(1 << 31) <= value < (1 << 31):
        return str(value)
    return f"{value}LL"


def _row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides = []
    step = 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= d
    return tuple(strides)


def _as_2d(shape: tuple[int, ...]) -> tuple[int, int]:
    """Rows x columns of a contiguous buffer (outer dimensions fold into rows)."""
    if not shape:
        return 1, 1
    return math.prod(shape[:-1]), shape[-1]


def _sum(terms: list[str]) -> str:
    kept = [t for t in terms if t != "0"]
    return " + ".join(kept) if kept else "0"


def _indent(lines: list[str]) -> list[str]:
    return ["  " + line for line in lines]
