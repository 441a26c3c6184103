"""The kernel users build, and rendering a module with a comment header."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ModuleOp,
)

from tilesched.ir.dsl.sync_ops import _SyncOps
from tilesched.ir.text import print_module


class Kernel(_SyncOps):
    """A ``func.func`` being built; see the module docstring for a walk-through.

    ``Kernel(name, target=...)`` makes a module of its own; ``Module(target).kernel(name)``
    adds several kernels to one module.
    """

    def module(self) -> ModuleOp:
        """The verified ``builtin.module`` holding this kernel."""
        return self._module.build()

    def text(self, generic: bool = False) -> str:
        """The verified module as MLIR text."""
        return self._module.text(generic)


def render(module: ModuleOp, comment: str | None = None) -> str:
    """MLIR text of ``module`` after ``comment`` as ``//`` lines (e.g. an example's docstring)."""
    header = ""
    if comment:
        lines = comment.strip("\n").splitlines()
        header = "".join(f"// {line}".rstrip() + "\n" for line in lines)
    return header + print_module(module)
