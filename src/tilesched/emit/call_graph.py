"""Which functions of a module ``emit-cpp`` prints as kernels and which as device functions.

A function that some ``func.call`` names is a **device function** (``AICORE inline``, called from
device code, never launched); every other function is a **kernel** (``__global__ AICORE``). A
call to a function the module does not define with a body, and recursion, are located errors:
each device function's on-chip buffers get one fixed address range (a *frame*, see
:func:`stack_frames`), not one per activation, so a recursive call would overwrite the buffers of
the activation that is still running.

:func:`stack_frames` lays the frames of the device functions one after another from byte 0 of
each space; kernels that call place their own buffers above them. Frames never share bytes (not
even two functions never active at once): the units of the callee and the caller run
concurrently, so program order alone does not separate their accesses, exactly as for two
buffers of one kernel (:mod:`tilesched.emit.plan`, rule 2).
"""

from __future__ import annotations

from xdsl.dialects import func

from tilesched.diagnostics import TileschedError
from tilesched.emit.plan import align
from tilesched.ir.text import location_of


def callee_name(op: func.CallOp) -> str:
    return op.callee.string_value()


class CallGraph:
    """The ``func.call`` edges between the functions (with bodies) of a module."""

    def __init__(self, functions: list[func.FuncOp]):
        self.functions = {f.sym_name.data: f for f in functions}
        self.calls: dict[str, list[func.CallOp]] = {
            name: [op for op in f.walk() if isinstance(op, func.CallOp)]
            for name, f in self.functions.items()}
        for ops in self.calls.values():
            for op in ops:
                if callee_name(op) not in self.functions:
                    raise TileschedError(
                        f"emit-cpp cannot print 'func.call': the module defines no body for "
                        f"@{callee_name(op)} (a device function is printed from its body)",
                        location_of(op))
        self.called = {callee_name(op) for ops in self.calls.values() for op in ops}
        self._check_recursion()

    def is_device(self, function: func.FuncOp) -> bool:
        return function.sym_name.data in self.called

    def reachable(self, name: str) -> list[str]:
        """The device functions a call from ``name`` can reach (depth first, callees first)."""
        seen: list[str] = []

        def visit(caller: str) -> None:
            for op in self.calls[caller]:
                callee = callee_name(op)
                if callee not in seen:
                    visit(callee)
                    seen.append(callee)

        visit(name)
        return seen

    def _check_recursion(self) -> None:
        state: dict[str, int] = {}  # 1: on the stack, 2: done

        def visit(name: str, path: list[str]) -> None:
            state[name] = 1
            for op in self.calls[name]:
                callee = callee_name(op)
                if state.get(callee) == 1:
                    stack = path + [name]
                    cycle = stack[stack.index(callee):] + [callee]
                    raise TileschedError(
                        "emit-cpp cannot print 'func.call': recursion ("
                        + " -> ".join(f"@{n}" for n in cycle) + "): a device "
                        "function's on-chip buffers have one fixed address (a frame per "
                        "function, not a stack), so a recursive call would overwrite them",
                        location_of(op))
                if callee not in state:
                    visit(callee, path + [name])
            state[name] = 2

        for name in self.functions:
            if name not in state:
                visit(name, [])


def stack_frames(sizes: dict[str, dict[str, int]]) -> tuple[dict[str, dict[str, int]],
                                                           dict[str, int]]:
    """Byte bases of consecutive frames per space (in ``sizes`` order) and the bytes they take.

    ``sizes`` maps a device function to the bytes its own plan ends at in each space."""
    bases: dict[str, dict[str, int]] = {}
    top: dict[str, int] = {}
    for name, used in sizes.items():
        bases[name] = dict(top)
        for space, size in used.items():
            top[space] = align(top.get(space, 0) + size)
    return bases, top
