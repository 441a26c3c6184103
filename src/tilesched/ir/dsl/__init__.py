"""A Python DSL that builds tile programs: the same IR as hand-written ``.mlir`` (DESIGN.md §2).

A :class:`Kernel` is a ``func.func`` under construction. Its methods append ops at
the current insertion point, using xDSL's :class:`~xdsl.builder.Builder`::

    k = Kernel("scale", target="ascend-a2")
    x = k.arg("x", (256, 128), "f16", "GM")
    ub = k.alloc((64, 128), "f16", "UB", name="x_ub")
    for i in k.range(0, 4, name="i"):
        k.load(x.view((i * 64, 0), (64, 128)), ub, stage=0)
        k.muls(ub, 0.5, ub, stage=1)
        k.store(ub, x.view((i * 64, 0), (64, 128)), stage=2)
    module = k.module()             # a verified builtin.module
    print(print_module(module))

Values are thin wrappers over SSA values: a :class:`Buffer` (function argument,
``memref.alloc``, ``tile.view`` or ``tile.slot``), an :class:`Index` (loop variable,
index argument, constant or ``arith`` expression: ``+``, ``-``, ``*``, ``%`` and ``//``
by an integer), a :class:`Cond` (an ``i1`` from ``arith.cmpi``; ``&``, ``|``, ``~``)
and a :class:`Scalar` (a float or integer operand of ``tile.adds`` and friends).

Loops are Python ``for`` statements over :meth:`Kernel.range`: the body runs once in
Python and emits the body of an ``scf.for``. Conditionals are ``with k.if_(cond):``
optionally followed by ``with k.else_():``. Constants are created once per kernel and
hoisted to the top of the function.

Every mistake (wrong shapes, a buffer where an index belongs, a loop variable used
outside its loop, an unknown dtype) raises :class:`~tilesched.diagnostics.TileschedError`
located at the Python line that made it; each op also records that line as its
location, so the verifier's target checks (``Kernel.module``) point there too.
"""

from tilesched.ir.dsl.kernel import Kernel, Module, render
from tilesched.ir.dsl.located import dtype_of
from tilesched.ir.dsl.values import Buffer, Cond, Index, Scalar

__all__ = ["Buffer", "Cond", "Index", "Kernel", "Module", "Scalar", "dtype_of", "render"]
