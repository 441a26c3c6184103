"""The simulator's run entry points: one small interface, whatever engine runs the program.

A :class:`Runner` is what a command holds while a simulation runs: ``p`` (the program being
run, ``None`` before it was made), ``run()`` (the :class:`~tilesched.sim.result.SimResult`),
``so_far()`` (what an interrupted run got through) and ``close()`` (remove its progress display).
Two runners implement it:

- :class:`FullRun`: every op of the program, by the compiled core (``native/core.pyx``) when it
  can, else by the Python engine;
- :class:`EngineRun`: the Python engine (``engine/engine.py``) over one program, with steady-state
  extrapolation (``engine/steady.py``) or recording when asked.

:func:`runner` picks one for a command line; :func:`simulate` (a trace) and
:func:`simulate_program` (a compiled program) run one at once.
"""

from __future__ import annotations

from typing import Protocol

from tilesched.gc_pause import paused_gc
from tilesched.sim import native
from tilesched.sim.code.program import Program, compile_trace
from tilesched.sim.engine.critical_path import new_bound_tracker
from tilesched.sim.engine.engine import Engine
from tilesched.sim.engine.outcome import native_result
from tilesched.sim.result import SimResult
from tilesched.sim.trace import Trace


class Runner(Protocol):
    """A simulation a command runs (see the module docstring)."""

    p: Program | None

    def run(self) -> SimResult: ...

    def so_far(self) -> tuple[int, int, int]: ...

    def close(self) -> None: ...


def runner(make_program, full: bool, record: bool = False, loops: bool = True,
           progress_for=None) -> Runner:
    """The runner for a command line: every op through :class:`FullRun` when ``full`` or the
    program has no ``loops`` (nothing to extrapolate), unless recording, which needs the Python
    engine's timeline; else :class:`EngineRun`, with steady-state extrapolation unless ``full``.
    ``make_program()`` returns a fresh program; ``progress_for`` (program -> an object with
    ``tick(engine)`` and ``close()``, or ``None``) draws progress."""
    if not record and (full or not loops):
        return FullRun(make_program, progress_for=progress_for)
    return EngineRun(make_program(), record=record, steady=not full, progress_for=progress_for)


def simulate(trace: Trace, check_races: bool = True, record: bool = False,
             bound: bool = True) -> SimResult:
    """Simulate a trace: timing, races (unless disabled), deadlock and sync violations."""
    pipelined = any(spec.pipelined for spec in trace.machine.units.values())
    # an AMD group's own LDS results complete when it consumes them: timing reads the accesses
    accesses = check_races or bound or pipelined or trace.machine.lds_unit is not None
    with paused_gc():  # (around the run's end too: the program is freed before it resumes)
        if not record:
            return FullRun(lambda: compile_trace(trace, with_accesses=accesses), check_races,
                           bound).run()
        program = compile_trace(trace, with_accesses=accesses)
        return Engine(program, check_races=check_races, record=record, bound=bound).run()


def simulate_program(program: Program, check_races: bool = True, record: bool = False,
                     bound: bool = True, steady: bool = False) -> SimResult:
    """Simulate a compiled program (a trace's, or a streamed lowering's); with ``steady``, a
    streamed program's loops may be extrapolated once their state repeats (``steady.py``)."""
    with paused_gc():
        return Engine(program, check_races=check_races, record=record, bound=bound,
                      steady=steady).run()


def run_engine(engine: Engine) -> SimResult:
    """Run an engine built by the caller (who keeps it, e.g. to inspect it afterwards)."""
    with paused_gc():
        return engine.run()


class EngineRun:
    """The Python engine over one program (made at once), as a :class:`Runner`."""

    def __init__(self, program: Program, record: bool = False, steady: bool = True,
                 progress_for=None):
        self.p = program
        self.engine = Engine(program, record=record, steady=steady)
        self.engine.progress = progress_for(program) if progress_for else None

    def run(self) -> SimResult:
        return run_engine(self.engine)

    def so_far(self) -> tuple[int, int, int]:
        return self.engine.so_far()

    def close(self) -> None:
        self.engine.close()


class FullRun:
    """A simulation of every op of a program, by the compiled core when it can.

    ``make_program()`` returns a fresh program each time it is called. The compiled core
    (``native/core.pyx``) runs it first; when it meets anything the Python engine must report
    (a race, a violation, a deadlock) or cannot represent, the program is made again and the
    Python engine runs it, so results are the Python engine's in every case. ``progress_for``
    (program -> an object with ``tick(engine)`` and ``close()``, or ``None``) draws progress.
    """

    def __init__(self, make_program, check_races: bool = True, bound: bool = True,
                 progress_for=None):
        self.make_program = make_program
        self.check_races = check_races
        self.bound = bound
        self.progress_for = progress_for or (lambda program: None)
        self.p = None
        self.engine = None  # the engine running now (native or Python)
        self.python = False  # is it the Python engine
        self.progress = None

    def run(self) -> SimResult:
        with paused_gc():
            self.p = self.make_program()
            compiled = native.use(native.core)
            if compiled is not None and not self.p.static_violations:
                result = self._native(compiled)
                if result is not None:
                    return result
                self.p = self.make_program()
            engine = self.engine = Engine(self.p, check_races=self.check_races, bound=self.bound)
            self.python = True
            engine.progress = self._new_progress()
            return engine.run()

    def _native(self, compiled) -> SimResult | None:
        """The compiled core's result, or ``None`` when the Python engine must run."""
        self.p.replay_periodic_iterations()
        self.p.batch_replayed_iterations()  # no steady state: no per-iteration marks
        tracker = new_bound_tracker(self.p) if self.bound else None
        run = self.engine = compiled.NativeEngine(self.p, self.check_races, tracker)
        run.progress = self._new_progress()
        try:
            run.run()
        except (compiled.NeedsPythonEngine, OverflowError):
            return None
        found = tracker.bound() if tracker is not None else (0, "not computed")
        return native_result(self.p, run.summary(), found)

    def _new_progress(self):
        self.close()
        self.progress = self.progress_for(self.p)
        return self.progress

    def close(self) -> None:
        """Remove the progress display, if any."""
        if self.progress is not None:
            self.progress.close()
            self.progress = None

    def so_far(self) -> tuple[int, int, int]:
        """``(cycle reached, races found, violation kinds found)`` of the run in progress."""
        if self.engine is None:
            return 0, 0, 0
        if self.python:
            return self.engine.so_far()
        return max(self.engine.clocks, default=0), 0, 0  # the compiled core stops at a finding
