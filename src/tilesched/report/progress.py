"""A progress bar on stderr for simulations that take more than a second (rich).

Silent unless stderr is a terminal; ``tilesched sim --json`` does not create one. The engine calls
:meth:`SimProgress.tick` once per instruction chunk; every few hundred calls it looks at the clock,
and after the first second it shows ops done (including extrapolated ones) against an estimate of
the program's total, refined as loops are entered.
"""

from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

DELAY = 1.0  # seconds before the bar appears
EVERY = 256  # ticks between clock readings


class SimProgress:
    """Progress of one streamed simulation (see the module docstring)."""

    def __init__(self, program, stream=None):
        self.program = program
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.monotonic()
        self.ticks = 0
        self.bar: Progress | None = None
        self.task = None

    def tick(self, engine) -> None:
        """Called by the engine often; cheap unless it is time to redraw."""
        self.ticks += 1
        if self.ticks % EVERY:
            return
        now = time.monotonic()
        if self.bar is None:
            if now - self.start < DELAY:
                return
            self.bar = Progress(TextColumn("simulating"), BarColumn(), TextColumn("{task.description}"),
                                TimeElapsedColumn(), console=Console(file=self.stream),
                                transient=True)
            self.task = self.bar.add_task("", total=None)
            self.bar.start()
        done, total = self.program.progress()
        simulated = self.program.simulated
        self.bar.update(self.task, completed=done, total=total,
                        description=f"{done:,} / ~{total:,} ops ({simulated:,} simulated)")

    def close(self) -> None:
        """Remove the bar (if it was shown)."""
        if self.bar is not None:
            self.bar.stop()


def wanted(json_output: bool, stream=None) -> bool:
    """A bar is shown only on a terminal and never with ``--json``."""
    stream = stream if stream is not None else sys.stderr
    return not json_output and hasattr(stream, "isatty") and stream.isatty()
