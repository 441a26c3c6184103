"""The compiled twins of the simulator's hot loops, and the one switch between them and Python.

Each ``*.pyx`` here is built by ``setup.py`` (when Cython and a C++ compiler are available) and
computes exactly what its Python twin computes, faster:

==================  ================================================================
``core.pyx``        ``engine/engine.py`` with ``engine/issuers.py``, ``engine/units.py``,
                    ``engine/flags.py`` (runs clean programs; hands anything else back)
``bound.pyx``       ``engine/critical_path.py`` (the lower bound tracker)
``producers.pyx``   the per-op loops of ``code/program.py``, ``code/chunk_compiler.py``
                    and ``lowering/replay.py``
``repeat.pyx``      ``code/chunk_compiler.py``'s replayed iterations (batched)
==================  ================================================================

They import nothing of the simulator but ``isa`` and ``trace`` (the ground floor), so no import
runs in a circle through a compiled module. The stages reach them only through this module:
:func:`use` is the pure-Python switch (``TILESCHED_PURE_PYTHON=1`` asks for the Python twins,
read at every call so a test can flip it), and a module that was not built is ``None`` here.
When one was not built, the pure-Python twin runs - the same results, several times slower - and
importing the simulator says so once on standard error, since the build only warns where
``pip install -v`` shows it.
"""

from __future__ import annotations

import os
import pathlib
import sys

try:
    from tilesched.sim.native import core
except ImportError:  # pragma: no cover - depends on the install
    core = None
try:
    from tilesched.sim.native import bound
except ImportError:  # pragma: no cover - depends on the install
    bound = None
try:
    from tilesched.sim.native import producers
except ImportError:  # pragma: no cover - depends on the install
    producers = None
try:
    from tilesched.sim.native import repeat
except ImportError:  # pragma: no cover - depends on the install
    repeat = None

HERE = pathlib.Path(__file__).parent


def pure_python() -> bool:
    """True when ``TILESCHED_PURE_PYTHON`` asks for the Python twins."""
    return bool(os.environ.get("TILESCHED_PURE_PYTHON"))


def use(module):
    """``module`` (one of this package's compiled modules, ``None`` when not built) unless the
    pure-Python twins are asked for; ``None`` then."""
    return None if module is None or pure_python() else module


def missing_native_modules() -> list[str]:
    """The compiled modules whose ``.pyx`` source has no built module."""
    built = {"core": core, "bound": bound, "producers": producers, "repeat": repeat}
    return [p.stem for p in sorted(HERE.glob("*.pyx")) if built.get(p.stem) is None]


if not pure_python() and (_missing := missing_native_modules()):
    print(f"tilesched: warning: the compiled simulator core was not built ({', '.join(_missing)} "
          "missing); using the pure-Python simulator, several times slower. Rebuild with "
          "'pip install -v .' (needs Cython and a C++ compiler) or 'python setup.py build_ext "
          "--inplace'; TILESCHED_PURE_PYTHON=1 silences this.", file=sys.stderr)
