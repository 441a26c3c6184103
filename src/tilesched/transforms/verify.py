"""The ``verify`` pass: structural and target verification (see ``ir/verify.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from tilesched.ir.verify import verify_module
from tilesched.transforms.pass_base import TileContext, TilePass


@dataclass(frozen=True)
class VerifyPass(TilePass):
    """Check operand types and shapes, properties, memory spaces, unit routing and sync family."""

    name = "verify"
    role = "tool"

    def run(self, module: ModuleOp, env: TileContext) -> None:
        verify_module(module, env.target)


PASS = VerifyPass
