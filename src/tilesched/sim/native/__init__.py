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
``pip install -v`` shows it. A module built from other sources than the ones on disk (an edit
not rebuilt: ``sources.py`` hashes them, ``setup.py`` compiles the hash in) is said too, with a
:class:`StaleBuildWarning`, and ``tests/sim/native/test_twins.py`` fails on it.

Every compiled function and method names its Python twin in its docstring (``Python twin:``) and
the twin names it back (``Compiled twin:``); ``tests/sim/native/test_twins.py`` checks the map
without a build. docs/simulator.md "Changing simulator semantics" says what to edit.
"""

from __future__ import annotations

import os
import pathlib
import sys
import warnings

from tilesched.sim.native.sources import source_hash

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


class StaleBuildWarning(UserWarning):
    """A compiled twin was built from other sources than the ones on disk."""


def stale_modules() -> list[str]:
    """The built compiled modules whose recorded source hash is not that of the files here."""
    built = {"core": core, "bound": bound, "producers": producers, "repeat": repeat}
    return [name for name, module in built.items()
            if module is not None and getattr(module, "SOURCE_HASH", "") != source_hash(name)]


if not pure_python() and (_stale := stale_modules()):
    warnings.warn(f"tilesched: the compiled simulator modules {', '.join(_stale)} were built from "
                  "other sources than the ones in sim/native/ (an edit not rebuilt?); rebuild with "
                  "'python setup.py build_ext --inplace'", StaleBuildWarning, stacklevel=2)

if not pure_python() and (_missing := missing_native_modules()):
    print(f"tilesched: warning: the compiled simulator core was not built ({', '.join(_missing)} "
          "missing); using the pure-Python simulator, several times slower. Rebuild with "
          "'pip install -v .' (needs Cython and a C++ compiler) or 'python setup.py build_ext "
          "--inplace'; TILESCHED_PURE_PYTHON=1 silences this.", file=sys.stderr)
