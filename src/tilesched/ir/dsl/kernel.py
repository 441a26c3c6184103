"""Modules and the kernels users build, and rendering a module with a comment header."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ModuleOp,
)

from tilesched.ir.dsl.located import _error
from tilesched.ir.dsl.sync_ops import _SyncOps
from tilesched.ir.text import print_module
from tilesched.ir.verify import verify_module
from tilesched.target.loader import load_target
from tilesched.target.model import Target


class Module:
    """A ``builtin.module`` holding one or more kernels, verified against an optional target."""

    def __init__(self, target: str | Target | None = None):
        self.op = ModuleOp([])
        self.target = load_target(target) if isinstance(target, str) else target

    def kernel(self, name: str) -> Kernel:
        """Start a new ``func.func @name`` in this module."""
        return Kernel(name, module=self)

    def build(self) -> ModuleOp:
        """Verify (structure, then the target's rules when one was given) and return the module."""
        verify_module(self.op, self.target)
        return self.op

    def text(self, generic: bool = False) -> str:
        """The verified module as MLIR text."""
        return print_module(self.build(), generic=generic)


class Kernel(_SyncOps):
    """A ``func.func`` being built; see the module docstring for a walk-through.

    ``Kernel(name, target=...)`` makes a module of its own; ``Module(target).kernel(name)``
    adds several kernels to one module.
    """

    def __init__(self, name: str, target: str | Target | None = None, module: Module | None = None):
        if module is not None and target is not None:
            raise _error("give the target to the Module, not to a kernel inside it")
        self._module = module or Module(target)
        super().__init__(name, self._module.op)

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
