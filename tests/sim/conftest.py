"""tests/sim/ mirrors src/tilesched/sim/: a folder per stage. Tests of one stage reuse the
strategies and checks of another (``test_sim_properties.programs``, ``test_sim_steady.assert_same``,
``nested_programs``), imported by module name: every folder of tests/sim/ is on the path."""

from __future__ import annotations

import pathlib
import sys

HERE = pathlib.Path(__file__).parent
for folder in [HERE, *sorted(p for p in HERE.iterdir() if p.is_dir() and p.name != "data")]:
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
