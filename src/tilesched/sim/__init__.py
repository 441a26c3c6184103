"""The simulator (docs/simulator.md).

Its hot loops have compiled twins (``native_*.pyx``, built by ``setup.py`` when Cython and a C++
compiler are available). When one was not built, the pure-Python twin runs - the same results,
several times slower - and importing this package says so once on standard error, since the
build only warns where ``pip install -v`` shows it. ``TILESCHED_PURE_PYTHON=1`` asks for the
pure-Python engine on purpose and silences the warning.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import sys


def missing_native_modules() -> list[str]:
    """The compiled modules of this package whose ``.pyx`` source has no built module."""
    here = pathlib.Path(__file__).parent
    return [p.stem for p in sorted(here.glob("native_*.pyx"))
            if importlib.util.find_spec(f"{__name__}.{p.stem}") is None]


if not os.environ.get("TILESCHED_PURE_PYTHON") and (_missing := missing_native_modules()):
    print(f"tilesched: warning: the compiled simulator core was not built ({', '.join(_missing)} "
          "missing); using the pure-Python simulator, several times slower. Rebuild with "
          "'pip install -v .' (needs Cython and a C++ compiler) or 'python setup.py build_ext "
          "--inplace'; TILESCHED_PURE_PYTHON=1 silences this.", file=sys.stderr)
