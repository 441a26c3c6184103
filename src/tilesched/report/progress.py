"""A progress bar on stderr for simulations that take more than a second (rich).

Silent unless stderr is a terminal; ``tilesched sim --json`` does not create one. The engine calls
:meth:`SimProgress.tick` once per instruction chunk; every few hundred calls it looks at the clock,
and after the first second it shows ops done (including extrapolated ones) against an estimate of
the program's total, refined as loops are entered.
"""

from __future__ import annotations

import sys
import threading
import time

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

DELAY = 1.0  # seconds before the bar appears
EVERY = 256  # ticks between clock readings
PHASE_DELAY = 2.0  # seconds before report's and equiv's phase spinner appears


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


class PhaseProgress:
    """What a command that is not a streamed simulation (``report``, ``equiv``) is doing, on a
    terminal's stderr once it has run for :data:`PHASE_DELAY` seconds: the phase and the time
    spent (a spinner; these phases have no op count to show). ``with PhaseProgress(...) as p:
    p.phase("simulating")``; silent when not :func:`wanted`."""

    def __init__(self, command: str, json_output: bool = False, stream=None):
        self.command = command
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = wanted(json_output, self.stream)
        self.description = ""
        self.bar: Progress | None = None
        self.task = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(PHASE_DELAY, self._show) if self.enabled else None

    def __enter__(self) -> PhaseProgress:
        if self._timer is not None:
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def phase(self, description: str) -> None:
        with self._lock:
            self.description = description
            if self.bar is not None:
                self.bar.update(self.task, description=description)

    def _show(self) -> None:
        with self._lock:
            if self._timer is None:
                return  # closed meanwhile
            self.bar = Progress(SpinnerColumn(), TextColumn(f"{self.command}:"),
                                TextColumn("{task.description}"), TimeElapsedColumn(),
                                console=Console(file=self.stream), transient=True)
            self.task = self.bar.add_task(self.description, total=None)
            self.bar.start()

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self.bar is not None:
                self.bar.stop()
                self.bar = None
