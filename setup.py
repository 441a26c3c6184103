"""Optional native (Cython) modules of the simulator's hot loops.

Every ``src/tilesched/**/*.pyx`` is compiled in place (the simulator's are in ``sim/native/``,
which names each one's pure-Python twin; they cimport ``sim/isa.pxd``). The extensions are
optional: when Cython or a C++ compiler is missing, or a build fails, the install
goes on and tilesched runs its pure-Python modules (same results, slower). Metadata lives in
pyproject.toml.
"""

from __future__ import annotations

import pathlib
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent


class OptionalBuildExt(build_ext):
    """``build_ext`` that warns instead of failing when an extension cannot be compiled."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any build failure means "use pure Python"
            _warn(f"native modules not built ({exc}); using the pure-Python simulator")

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            _warn(f"{ext.name} not built ({exc}); using its pure-Python module")


def _warn(text: str) -> None:
    print(f"tilesched setup: warning: {text}", file=sys.stderr)


def native_extensions() -> list:
    """The Cython extensions, or none when Cython is unavailable."""
    sources = sorted(HERE.glob("src/tilesched/**/*.pyx"))
    if not sources:
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        _warn("Cython is not installed; using the pure-Python simulator")
        return []
    paths = [str(p.relative_to(HERE)) for p in sources]
    extensions = cythonize(paths, compiler_directives={"language_level": 3}, quiet=True)
    hashes = _simulator_sources()
    for ext in extensions:  # the staleness guard: each twin records what it was built from
        name = ext.name.rpartition(".")[2]
        if ext.name.startswith("tilesched.sim.native.") and name in hashes:
            ext.define_macros.append(("TILESCHED_SOURCE_HASH", f'"{hashes[name]}"'))
    return extensions


def _simulator_sources() -> dict[str, str]:
    """``{compiled module: source hash}`` of sim/native (``sim/native/sources.py``, loaded by
    path: nothing of tilesched is importable before the build)."""
    import importlib.util

    path = HERE / "src" / "tilesched" / "sim" / "native" / "sources.py"
    spec = importlib.util.spec_from_file_location("_tilesched_native_sources", path)
    sources = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sources)
    return {p.stem: sources.source_hash(p.stem) for p in path.parent.glob("*.pyx")}


setup(ext_modules=native_extensions(), cmdclass={"build_ext": OptionalBuildExt})
