"""The source hash a compiled twin is built from (read by ``setup.py`` and by ``__init__.py``).

A compiled module records, when it is built, the hash of the sources it was made from: its own
``.pyx`` and every declaration it can cimport (the ``.pxd`` and ``.h`` files here and
``sim/isa.pxd``). Importing the simulator compares it with the files on disk, so an edit that
was not rebuilt is said (``native.stale_modules``) instead of silently running old code. This
module imports nothing of tilesched: ``setup.py`` loads it by path before anything is built.
"""

from __future__ import annotations

import hashlib
import pathlib

HERE = pathlib.Path(__file__).resolve().parent


def source_files(name: str) -> list[pathlib.Path]:
    """The files compiled module ``name`` (``core``, ``bound``, ...) is built from."""
    shared = sorted([*HERE.glob("*.pxd"), *HERE.glob("*.h"), HERE.parent / "isa.pxd"])
    return [HERE / f"{name}.pyx", *shared]


def source_hash(name: str) -> str:
    """The hash of :func:`source_files` (contents and names), hex."""
    digest = hashlib.sha256()
    for path in source_files(name):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
