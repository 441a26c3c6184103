"""The simulator (docs/simulator.md): a tile program in, timing and its faults out.

Its folders are its stages, in the order data flows through them; each imports only the ones
listed before it (and the ground floor):

- ground floor: ``isa.py`` (+ ``isa.pxd``: opcodes, loop-boundary kinds, the layout of
  instructions and access tuples, limits every stage shares), ``trace.py`` (a machine model and
  the ops it runs, the form a hand-written or synthetic program takes), ``result.py`` (what a run
  found);
- ``native/``: the compiled twins of the hot loops and the one pure-Python switch
  (``TILESCHED_PURE_PYTHON=1``); importing this package warns once when they were not built;
- ``lowering/``: IR -> lowered ops (``lower.py`` with its mixins ``control_flow.py`` and
  ``ops.py``; ``lowered.py`` the types it hands on; on a split-core target the whole trace is split
  into one program per core, ``split_cores``), loop analysis and the replay of periodic
  iterations (``loop_analysis.py`` over ``periodic.py``, ``replay.py``), the op-count estimate
  commands check first (``op_estimate.py``);
- ``code/``: ops -> the engine's instruction lists: a whole trace (``program.py``) or chunk by
  chunk as the lowering runs (``stream.py`` with ``chunk_compiler.py``);
- ``engine/``: running instructions (``engine.py`` with ``issuers.py``, ``units.py``,
  ``flags.py``, ``happens_before.py``), the lower bound (``critical_path.py``), steady-state
  extrapolation (``steady.py`` over ``steady_maps.py``) and the verdict (``outcome.py``,
  ``sync_check.py``);
- ``run.py``: the entry points (``simulate``, ``FullRun``, one ``Runner`` interface for commands);
- values, beside timing: ``semantics.py`` (what each op computes), ``functional.py`` (running a
  program on values: equivalence), ``oracle.py`` (the fewest barriers a kernel needs) and
  ``synthetic.py`` (machine models and traces for tests and benchmarks).

Why this shape: the run entry points (``run.py``) sit above ``engine/`` because they pick
between the Python engine and the compiled core and make programs with ``code/``; the race
records live in ``result.py`` so the result does not import the engine; the compiled modules
import only the ground floor and have names of their own (``core.pyx``, ``repeat.pyx``), so no
import runs in a circle through them and no tool mistakes one for its Python twin.
"""

from tilesched.sim import native  # noqa: F401 - warns once when the compiled twins were not built
