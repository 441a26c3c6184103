"""``paused_gc``: pause Python's cyclic garbage collector around work that builds a large heap.

Parsing 50k ops, or a pass building graphs and plans over a block of 10k+ ops, allocates millions
of objects; each full collection walks all of them, so collections grow faster than the work.
Reference counting still frees what it can; collection resumes afterwards.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic collector inside the ``with`` block (re-entrant: only the outermost
    block enables it again, and only if it was enabled)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
