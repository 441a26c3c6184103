"""``emit-cpp``: print a tile program as C++17 in PTO-ISA style (DESIGN.md §2, Fusion contract).

One C++ function per ``func.func``. Memref arguments become references to ``pto::GlobalTensor``
(global spaces) or ``pto::Tile`` (local spaces: UB -> ``Vec``, L1 -> ``Mat``, L0A -> ``Left``,
L0B -> ``Right``, L0C -> ``Acc``); ``memref.alloc`` declares a tile; ``tile.view`` and
``tile.slot`` are ``pto::view<sizes...>(src, offsets...)`` and ``pto::slot<sizes...>(src, k)``.
Tile ops are intrinsics with the destination first (``pto::TADD(dst, a, b)``, ``TLOAD(dst,
src)``, ``TSTORE(dst, src)``, ``TMATMUL(c, a, b)``); sync ops are ``pto::set_flag`` /
``pto::wait_flag`` / ``pto::pipe_barrier``; ``scf.for`` is a plain ``for``, ``scf.if`` an ``if``,
index and scalar ``arith`` ops C++ expressions. Every op of a fusion group is prefixed by
``[[pto::last_use(f0, f1, ...)]]``: one flag per emitted tile argument in emitted order, so
the destination's flag comes first and is always 0.

The output includes ``tilesched/pto_tile.hpp`` (``tilesched include-dir``), which declares all
of this, so ``g++ -std=c++17 -fsyntax-only -I "$(tilesched include-dir)"`` accepts it. IR this
printer has no spelling for (a dynamic shape, another target family's sync, an op it does not
know) is a :class:`TileschedError` naming the op and its location (exit 2, nothing written).
"""

from __future__ import annotations

import math
import re

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

from tilesched.analysis.fusion_cost import last_use_flags
from tilesched.diagnostics import TileschedError
from tilesched.ir import sync as S
from tilesched.ir import tile as T
from tilesched.ir.blocks import functions
from tilesched.ir.text import location_of
from tilesched.ir.tile import FUSION_GROUP
from tilesched.ir.types import memory_space, memref_shape
from tilesched.target.model import Target

HEADER = "tilesched/pto_tile.hpp"

_TILE_TYPES = {"UB": "Vec", "L1": "Mat", "L0A": "Left", "L0B": "Right", "L0C": "Acc"}
_ELEMENTS = {"f16": "pto::half", "bf16": "pto::bfloat16_t", "f32": "float", "f64": "double",
             "i1": "bool", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t"}
_INTRINSICS = {
    T.LoadOp: "TLOAD", T.StoreOp: "TSTORE", T.CopyOp: "TMOV", T.ReshapeOp: "TRESHAPE",
    T.AddOp: "TADD", T.SubOp: "TSUB", T.MulOp: "TMUL", T.DivOp: "TDIV", T.MaxOp: "TMAX",
    T.MinOp: "TMIN", T.AddsOp: "TADDS", T.MulsOp: "TMULS", T.MaxsOp: "TMAXS", T.ExpOp: "TEXP",
    T.NegOp: "TNEG", T.AbsOp: "TABS", T.ReluOp: "TRELU", T.CastOp: "TCVT", T.RsqrtOp: "TRSQRT", T.RowsumOp: "TROWSUM",
    T.RowmaxOp: "TROWMAX", T.RowexpandSubOp: "TROWEXPANDSUB", T.RowexpandMulOp: "TROWEXPANDMUL",
    T.RowexpandDivOp: "TROWEXPANDDIV", T.FillOp: "TEXPANDS",
}
PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")
EVENT_IDS = 8
_BINARY = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*", "arith.divsi": "/",
           "arith.remsi": "%", "arith.andi": "&", "arith.ori": "|", "arith.xori": "^",
           "arith.shli": "<<", "arith.shrsi": ">>", "arith.addf": "+", "arith.subf": "-",
           "arith.mulf": "*", "arith.divf": "/"}
_CALLS = {"arith.minsi": "pto::min_of", "arith.maxsi": "pto::max_of", "arith.minui": "pto::min_of",
          "arith.maxui": "pto::max_of", "arith.floordivsi": "pto::floor_div",
          "arith.ceildivsi": "pto::ceil_div", "arith.ceildivui": "pto::ceil_div",
          "arith.maximumf": "pto::max_of", "arith.minimumf": "pto::min_of",
          "arith.maxnumf": "pto::max_of", "arith.minnumf": "pto::min_of"}
_UNSIGNED = {"arith.divui": "/", "arith.remui": "%", "arith.shrui": ">>"}
_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci",
          "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.extf",
          "arith.truncf")
_CMPI = ["==", "!=", "<", "<=", ">", ">=", "<", "<=", ">", ">="]
_CMPF = [None, "==", ">", ">=", "<", "<=", "!=", None, None, "==", ">", ">=", "<", "<=", "!=", None]
_KEYWORDS = frozenset("""alignas alignof and and_eq asm auto bitand bitor bool break case catch
    char char16_t char32_t class compl const constexpr const_cast continue decltype default delete
    do double dynamic_cast else enum explicit export extern false float for friend goto if inline
    int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected
    public register reinterpret_cast return short signed sizeof static static_assert static_cast
    struct switch template this thread_local throw true try typedef typeid typename union unsigned
    using virtual void volatile wchar_t while xor xor_eq pto std main""".split())


def emit_module(module: ModuleOp, target: Target, source: str = "") -> str:
    """The C++ text of every function of ``module`` (see the module docstring)."""
    printer = _Printer(target)
    body = [printer.function(f) for f in functions(module)]
    head = [f"// Generated by tilesched emit-cpp for target {target.name}"
            + (f" from {source}" if source else "") + ".",
            f'#include "{HEADER}"', ""]
    head += printer.declarations()
    return "\n".join(head + body)


class _Printer:
    def __init__(self, target: Target):
        self.target = target
        self.callees: set[str] = set()

    def declarations(self) -> list[str]:
        """Opaque callees, declared so the output compiles on its own."""
        return [f"template <typename... Args> void {name}(Args&&... args);"
                for name in sorted(self.callees)] + ([""] if self.callees else [])

    # ---------------------------------------------------------------- functions

    def function(self, fn: func.FuncOp) -> str:
        if fn.function_type.outputs.data:
            raise TileschedError(f"emit-cpp cannot print @{fn.sym_name.data}: functions that "
                                 "return values have no PTO-ISA spelling", location_of(fn))
        self.names: dict[SSAValue, str] = {}
        self.used: set[str] = set()
        params = []
        for k, arg in enumerate(fn.body.block.args):
            name = self.bind(arg, f"arg{k}")
            kind = self.type_of(arg.type, fn)
            params.append(f"{kind}& {name}" if isinstance(arg.type, MemRefType) else f"{kind} {name}")
        lines = [f"TILESCHED_KERNEL void {_identifier(fn.sym_name.data)}({', '.join(params)}) {{"]
        lines += _indent(self.block(fn.body.block))
        lines.append("}")
        return "\n".join(lines) + "\n"

    def block(self, block: Block) -> list[str]:
        """The statements of ``block`` (terminators become assignments or nothing)."""
        lines: list[str] = []
        for op in block.ops:
            if not isinstance(op, func.ReturnOp | scf.YieldOp):
                lines += self.op(op)
        return lines

    # ---------------------------------------------------------------- ops

    def op(self, op: Operation) -> list[str]:
        if isinstance(op, T.CallOp):
            return [self.call(op)]
        if type(op) in _INTRINSICS or isinstance(op, T.MatmulOp):
            return [self.intrinsic(op)]
        if isinstance(op, T.ViewOp | T.SlotOp):
            return [self.view(op)]
        if isinstance(op, memref.AllocOp):
            return [f"{self.type_of(op.memref.type, op)} {self.bind(op.memref, 'buf')};"]
        if isinstance(op, memref.DeallocOp):
            return [f"// {self.name(op.memref, op)} is no longer used (memref.dealloc)"]
        if op.name.startswith("sync."):
            return [self.sync(op)]
        if isinstance(op, scf.ForOp):
            return self.loop(op)
        if isinstance(op, scf.IfOp):
            return self.branch(op)
        if op.name.startswith("arith."):
            return [self.arith(op)]
        raise self.cannot(op, "the printer does not know this op")

    def intrinsic(self, op: T.TileOp) -> str:
        memrefs = [v for v in op.operands if isinstance(v.type, MemRefType)]
        scalars = [v for v in op.operands if not isinstance(v.type, MemRefType)]
        tiles = [memrefs[-1], *memrefs[:-1]]  # destination first
        args = [self.name(v, op) for v in tiles] + [self.name(v, op) for v in scalars]
        if isinstance(op, T.FillOp):
            args.append(self.literal(op.value, op))
        callee = _INTRINSICS.get(type(op))
        if isinstance(op, T.MatmulOp):
            callee = "TMATMUL_ACC" if op.accumulate is not None else "TMATMUL"
        prefix = ""
        flags = last_use_flags(op)
        if FUSION_GROUP in op.attributes and flags is not None:
            emitted = [0, *(int(f) for f in flags[:-1])]  # destination first: always 0
            prefix = f"[[pto::last_use({', '.join(map(str, emitted))})]] "
        return f"{prefix}pto::{callee}({', '.join(args)});"

    def call(self, op: T.CallOp) -> str:
        callee = op.callee.data if hasattr(op.callee, "data") else op.callee.string_value()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", callee) or callee in _KEYWORDS:
            raise self.cannot(op, f"callee '{callee}' is not a C++ identifier")
        self.callees.add(callee)
        return f"{callee}({', '.join(self.name(v, op) for v in op.operands)});"

    def view(self, op: T.ViewOp | T.SlotOp) -> str:
        shape = memref_shape(op.result.type)
        sizes = ", ".join(map(str, shape))
        if any(d < 0 for d in shape):
            raise self.cannot(op, "a dynamic shape has no spelling")
        if isinstance(op, T.ViewOp):
            call = f"pto::view<{sizes}>({self.name(op.source, op)}, " + \
                ", ".join(self.name(v, op) for v in op.offsets) + ")"
        else:
            call = f"pto::slot<{sizes}>({self.name(op.source, op)}, {self.name(op.index, op)})"
        return f"auto {self.bind(op.result, 'view')} = {call};"

    def sync(self, op: Operation) -> str:
        if isinstance(op, S.SetFlagOp | S.WaitFlagOp):
            what = "set_flag" if isinstance(op, S.SetFlagOp) else "wait_flag"
            event = op.event.value.data
            spelled = f"pto::EVENT_ID{event}" if event < EVENT_IDS else f"static_cast<pto::event_t>({event})"
            return f"pto::{what}({self.pipe(op.src.data, op)}, {self.pipe(op.dst.data, op)}, {spelled});"
        if isinstance(op, S.PipeBarrierOp):
            return f"pto::pipe_barrier({self.pipe(op.pipe.data, op)});"
        if isinstance(op, S.BarrierAllOp):
            return "pto::pipe_barrier(pto::PIPE_ALL);"
        raise self.cannot(op, "PTO-ISA C++ synchronizes with set_flag / wait_flag / pipe_barrier "
                              f"only (target families 'flags'); '{op.name}' has no spelling")

    def pipe(self, unit: str, op: Operation) -> str:
        if unit not in PIPES:
            raise self.cannot(op, f"unit '{unit}' is not a PTO pipe ({', '.join(PIPES)})")
        return f"pto::PIPE_{unit}"

    def loop(self, op: scf.ForOp) -> list[str]:
        lines = []
        carried = []
        for arg, init, result in zip(op.body.block.args[1:], op.iter_args, op.results, strict=True):
            name = self.bind(arg, "carried")
            self.names[result] = name
            lines.append(f"{self.type_of(arg.type, op)} {name} = {self.name(init, op)};")
            carried.append(name)
        iv = self.bind(op.body.block.args[0], "i")
        lines.append(f"for (int64_t {iv} = {self.name(op.lb, op)}; {iv} < {self.name(op.ub, op)}; "
                     f"{iv} += {self.name(op.step, op)}) {{")
        lines += _indent(self.block(op.body.block) + self.assign_yield(op.body.block, carried))
        lines.append("}")
        return lines

    def branch(self, op: scf.IfOp) -> list[str]:
        names = [self.bind(r, "result") for r in op.results]
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
        temps = [f"const auto {n}_next = {v};" for n, v in zip(names, values, strict=True)]
        return temps + [f"{n} = {n}_next;" for n in names]

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
            raise self.cannot(op, "the printer does not know this arith op")
        result = op.results[0]
        return f"const {self.type_of(result.type, op)} {self.bind(result, 'v')} = {value};"

    # ---------------------------------------------------------------- values and types

    def literal(self, attr, op: Operation) -> str:
        if isinstance(attr, IntegerAttr):
            if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
                return "true" if attr.value.data else "false"
            return str(attr.value.data)
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
        if isinstance(kind, MemRefType):
            return self.memref_type(kind, op)
        raise self.cannot(op, f"the type {kind} has no C++ spelling")

    def memref_type(self, kind: MemRefType, op: Operation) -> str:
        shape = memref_shape(kind)
        if any(dim < 0 for dim in shape):
            raise self.cannot(op, f"the dynamic shape {kind} has no spelling in PTO-ISA C++")
        element = _ELEMENTS.get(str(kind.element_type))
        if element is None:
            raise self.cannot(op, f"element type {kind.element_type} has no C++ spelling")
        dims = ", ".join(map(str, shape))
        space = memory_space(kind)
        spec = self.target.spaces.get(space)
        if spec is not None and spec.is_global:
            return f"pto::GlobalTensor<{element}, {dims}>"
        if space not in _TILE_TYPES:
            raise self.cannot(op, f'memory space "{space}" is not an Ascend tile buffer '
                                  f"({', '.join(_TILE_TYPES)}) or a global space")
        return f"pto::Tile<pto::TileType::{_TILE_TYPES[space]}, {element}, {dims}>"

    def bind(self, value: SSAValue, fallback: str) -> str:
        base = _identifier(value.name_hint or fallback)
        name, k = base, 1
        while name in self.used:
            name, k = f"{base}_{k}", k + 1
        self.used.add(name)
        self.names[value] = name
        return name

    def name(self, value: SSAValue, op: Operation) -> str:
        found = self.names.get(value)
        if found is None:
            raise self.cannot(op, "it uses a value defined by an op the printer skipped")
        return found

    @staticmethod
    def cannot(op: Operation, why: str) -> TileschedError:
        return TileschedError(f"emit-cpp cannot print '{op.name}': {why}", location_of(op))


def _indent(lines: list[str]) -> list[str]:
    return ["  " + line for line in lines]


def _identifier(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", text)
    if not name or name[0].isdigit():
        name = "v" + name
    if name in _KEYWORDS or name.startswith("__"):
        name = "v_" + name
    return name
