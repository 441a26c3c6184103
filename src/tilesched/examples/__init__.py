"""Example kernels shipped inside the package, so ``tilesched demo`` finds them after any install.

Each example ``NAME`` is a pair of files in this folder:

- ``NAME.py``: DSL code (:mod:`tilesched.ir.dsl`); ``build()`` returns the verified module and
  running the file prints ``NAME.mlir``;
- ``NAME.mlir``: the same program as MLIR text, headed by the ``.py``'s docstring as ``//``
  comments.

This is the only copy: the repository's top-level ``examples`` is a symbolic link to this
folder. After editing an example's ``.py``, regenerate its ``.mlir`` with
``python -m tilesched.examples --write``.
"""

from __future__ import annotations

import importlib
import pathlib
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from tilesched.diagnostics import TileschedError
from tilesched.ir.dsl import render

EXAMPLES_DIR = pathlib.Path(__file__).parent


@dataclass(frozen=True)
class Example:
    """A bundled kernel: its name, the target it is written for, and a one-line summary."""

    name: str
    target: str
    summary: str
    hand_synced: bool = False  # written with its sync ops (a reference for insert-sync)


EXAMPLES: tuple[Example, ...] = (
    Example("ascend_gemm", "ascend-a2", "GEMM tile loop GM->L1->L0A/L0B->M->L0C->FIX->GM over K"),
    Example("ascend_softmax", "ascend-a2", "row softmax on the vector pipe over row blocks"),
    Example("ascend_attention", "ascend-a2", "attention: Q K^T, softmax on V, P V on the cube"),
    Example("ascend_layernorm", "ascend-a2", "row layernorm on the vector pipe (two fused spans)"),
    Example("ascend_attention_epilogue", "ascend-a2",
            "attention epilogue on V: O / l + bias + residual, cast to f16"),
    Example("ascend_gemm_db", "ascend-a2",
            "double-buffered GEMM (M x N x K nest) with hand-written ping/pong flags",
            hand_synced=True),
    Example("ascend_gemm_db_free", "ascend-a2", "ascend_gemm_db without its sync ops"),
    Example("cuda_gemm", "cuda-sm80", "GEMM loop with cp.async global->shared loads"),
    Example("cuda_attention", "cuda-sm80", "attention: cp.async Q blocks, Q K^T, softmax, P V"),
    Example("amd_gemm", "amd-gfx950", "double-buffered LDS GEMM loop in three warp-pipeline stages"),
    Example("amd_attention", "amd-gfx950", "attention-like loop over K/V blocks in four warp-pipeline stages"),
)


# Kernels for split-core targets (ascend-a2-mix). The simulator runs them on the whole per-core
# trace, not streamed nor extrapolated (docs/simulator.md, "Split cores"), so they are kept out of
# EXAMPLES, which the steady-state and single-core tests walk; the race-free-after-insert-sync
# test and tests/sim/test_split_cores.py take them too, as does everything else (regeneration,
# --check, emit-cpp and run-cpp tests, demo's list) through ALL_EXAMPLES.
SPLIT_CORE_EXAMPLES: tuple[Example, ...] = (
    Example("ascend_mix_gemm_epilogue", "ascend-a2-mix",
            "GEMM on the cube core, epilogue on a vector core, a GM FIFO with cross-core flags",
            hand_synced=True),
    Example("ascend_mix_gemm_epilogue_free", "ascend-a2-mix",
            "ascend_mix_gemm_epilogue without its sync ops"),
    Example("ascend_mix_flash_attention", "ascend-a2-mix",
            "flash attention: QK and PV on the cube core, online softmax on a vector core, "
            "tiles through GM FIFOs (the PTO-ISA kernel's loop), hand-written cross-core flags",
            hand_synced=True),
    Example("ascend_mix_flash_attention_free", "ascend-a2-mix",
            "ascend_mix_flash_attention without its sync ops"),
)
ALL_EXAMPLES = EXAMPLES + SPLIT_CORE_EXAMPLES


def example_names() -> list[str]:
    """Names of the bundled examples (split-core ones included), in the order they are listed."""
    return [example.name for example in ALL_EXAMPLES]


def get_example(name: str) -> Example:
    """The example called ``name``; an unknown name is a :class:`TileschedError` listing them."""
    for example in ALL_EXAMPLES:
        if example.name == name:
            return example
    raise TileschedError(f"unknown example '{name}'; examples: {', '.join(example_names())}")


def example_path(name: str) -> pathlib.Path:
    """Path of the example's ``.mlir`` file."""
    return EXAMPLES_DIR / f"{get_example(name).name}.mlir"


def example_source(name: str) -> pathlib.Path:
    """Path of the example's DSL ``.py`` file."""
    return EXAMPLES_DIR / f"{get_example(name).name}.py"


def build_example(name: str) -> ModuleOp:
    """Build the example's module from its DSL code (verified against its target)."""
    module = importlib.import_module(f"{__name__}.{get_example(name).name}")
    return module.build()


def render_example(name: str) -> str:
    """What ``python NAME.py`` prints: the docstring as ``//`` comments, then the module."""
    module = importlib.import_module(f"{__name__}.{get_example(name).name}")
    return render(module.build(), module.__doc__)
