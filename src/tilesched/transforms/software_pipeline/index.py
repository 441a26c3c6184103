"""Index arithmetic for the software-pipeline emitter, folding what is constant.

:class:`IndexMath` appends ``arith`` index ops to the op list being built, reusing
constants (those already defined before the loop, and a pool of new ones) and
identical ops of the same list, and folding operations on known constants: the
prologue and epilogue of a pipeline compute mostly constant iterations, views and
slot indices, and a condition such as ``iv == 0`` folds so only its branch is kept.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, i1
from xdsl.ir import Operation, SSAValue

from tilesched.ir.affine import constant_value
from tilesched.ir.arith_eval import fold as fold_arith


class IndexMath:
    """Appends index arithmetic to the current op list, folding constants."""

    def __init__(self, constants: list[Operation]):
        self.constants = constants
        self.pool: dict[tuple[int, str], SSAValue] = {}
        self.known: dict[SSAValue, int] = {}
        self.out: list[Operation] = []
        self.out_id = 0  # names the current op list (scopes and reuse never cross lists)
        self.lists = 0
        self.memo: dict[tuple, SSAValue] = {}

    def const(self, value: int, bool_: bool = False) -> SSAValue:
        """The index (or ``i1``) constant ``value``, created once in the constant pool."""
        key = (value, "i1" if bool_ else "index")
        if key not in self.pool:
            op = arith.ConstantOp(IntegerAttr(value, i1 if bool_ else IndexType()))
            op.result.name_hint = None if bool_ else (f"c{value}" if value >= 0 else f"c_{-value}")
            self.constants.append(op)
            self.pool[key] = op.result
            self.known[op.result] = value
        return self.pool[key]

    def value_of(self, v: SSAValue) -> int | None:
        """The constant value of ``v`` if known."""
        if v not in self.known:
            known = constant_value(v) if isinstance(v.owner, arith.ConstantOp) else None
            if known is None:
                return None
            self.known[v] = known
        return self.known[v]

    def emit(self, op: Operation) -> SSAValue:
        """Append ``op`` to the current op list; its first result, if any."""
        self.out.append(op)
        return op.results[0] if op.results else None

    def arith(self, kind: type[Operation], lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        """Emit ``kind(lhs, rhs)``, reusing an identical op of the current op list (built
        only when new: an op registers uses of its operands as soon as it exists)."""
        key = (self.out_id, kind.name, lhs, rhs)
        if key not in self.memo:
            self.memo[key] = self.emit(kind(lhs, rhs))
        return self.memo[key]

    def seed(self, values: list[SSAValue]) -> None:
        """Reuse existing index constants (defined before the loop) for the pool."""
        for value in values:
            known = constant_value(value)
            if known is not None and isinstance(value.type, IndexType):
                self.pool.setdefault((known, "index"), value)
                self.known[value] = known

    def val(self, x: int | SSAValue) -> SSAValue:
        """``x`` as an SSA value (integers become pool constants)."""
        return self.const(x) if isinstance(x, int) else x

    def add(self, a: int | SSAValue, b: int) -> int | SSAValue:
        """``a + b`` for a constant ``b`` (folded when ``a`` is known)."""
        if not isinstance(a, int) and self.value_of(a) is not None:
            a = self.value_of(a)
        if isinstance(a, int):
            return a + b
        if b == 0:
            return a
        if b < 0:
            return self.arith(arith.SubiOp, a, self.const(-b))
        return self.arith(arith.AddiOp, a, self.const(b))

    def sub(self, a: int | SSAValue, b: int | SSAValue) -> int | SSAValue:
        """``a - b``."""
        if not isinstance(b, int) and self.value_of(b) is not None:
            b = self.value_of(b)
        if isinstance(b, int):
            return self.add(a, -b)
        return self.arith(arith.SubiOp, self.val(a), b)

    def mul(self, a: int | SSAValue, b: int | SSAValue) -> int | SSAValue:
        """``a * b`` (multiplications by 0 and 1 vanish)."""
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if b == 1 or a == 0:
            return a
        if a == 1 or b == 0:
            return b
        return self.arith(arith.MuliOp, self.val(a), self.val(b))

    def plus(self, a: int | SSAValue, b: int | SSAValue) -> int | SSAValue:
        """``a + b`` for any operands."""
        if isinstance(b, int):
            return self.add(a, b)
        if isinstance(a, int):
            return self.add(b, a)
        return self.arith(arith.AddiOp, a, b)

    def rem(self, a: int | SSAValue, n: int) -> int | SSAValue:
        """``a mod n`` (``arith.remui``; ``a`` is a non-negative iteration number)."""
        if isinstance(a, int):
            return a % n
        return self.arith(arith.RemUIOp, a, self.const(n))

    def fold(self, op: Operation, operands: list[SSAValue]) -> SSAValue | None:
        """The constant result of index op ``op`` on (mapped) ``operands``, if all are known."""
        if isinstance(op, arith.ConstantOp) and isinstance(op.result.type, IndexType):
            return self.const(self.value_of(op.result))
        values = [self.value_of(v) for v in operands]
        if None in values or len(op.results) != 1 or len(values) != 2:
            return None
        if not all(isinstance(v.type, IndexType) for v in operands):
            return None
        result = fold_arith(op, values)
        if result is None:
            return None
        if isinstance(op, arith.CmpiOp):
            return self.const(int(result), bool_=True)
        return self.const(result)


def constants_before(op: Operation) -> list[SSAValue]:
    """Results of ``arith.constant`` ops that dominate ``op`` (earlier in enclosing blocks)."""
    found = []
    while op.parent_block() is not None:
        for other in op.parent_block().ops:
            if other is op:
                break
            if isinstance(other, arith.ConstantOp):
                found.append(other.result)
        op = op.parent_op()
        if op is None:
            break
    return found
