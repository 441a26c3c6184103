"""C++ output: ``emit-cpp`` (:mod:`.cpp`) and the header it includes (``include/``).

:func:`include_dir` is the folder ``tilesched include-dir`` prints: pass it to the compiler with
``-I`` so printed kernels find ``tilesched/pto_tile.hpp``.
"""

from __future__ import annotations

import pathlib


def include_dir() -> pathlib.Path:
    """The folder holding ``tilesched/pto_tile.hpp`` (installed with the package)."""
    return pathlib.Path(__file__).resolve().parent / "include"
