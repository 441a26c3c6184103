"""The results table of ``tilesched tune --results OUT``: every evaluated candidate, one row each.

Columns (:data:`COLUMNS`): kernel, target, trial (the search trial that first proposed it),
pipeline, options (JSON: pass -> searched option -> value), cycles, bound, verdict, reason,
seconds, and fingerprint (:meth:`SearchSpace.fingerprint`: the space, the kernel text and the
target model). A file ending in ``.parquet`` is written with pyarrow, one ending in ``.csv`` as
CSV. The file is an evaluation cache: a rerun finds every (fingerprint, pipeline) already on disk
and does not evaluate it again, so it resumes an interrupted search and extends a finished one.

Never mixed: rows of a kernel on a target whose fingerprint differs from the current search
space (the kernel, the target or a pass's declared options changed) make the file refused.
Rows of other kernels are kept as they are. Every save writes a temporary file beside the
target and renames it over it, so an interrupted save never leaves half a table.
"""

from __future__ import annotations

import csv
import json
import math
import pathlib
from typing import Any

from tilesched.diagnostics import TileschedError
from tilesched.output_files import write_replacing
from tilesched.tune.evaluate import Evaluation

COLUMNS = ("kernel", "target", "trial", "pipeline", "options", "cycles", "bound", "verdict",
           "reason", "seconds", "fingerprint")
_INTS = ("trial", "cycles", "bound")
SUFFIXES = (".parquet", ".csv")


class ResultsStore:
    """Rows on disk (or in memory only when ``path`` is None), looked up by fingerprint and
    pipeline."""

    def __init__(self, path: str | None):
        self.path = pathlib.Path(path) if path else None
        if self.path is not None and self.path.suffix not in SUFFIXES:
            raise TileschedError(f"results file '{path}' must end in .parquet or .csv")
        self.rows: list[dict[str, Any]] = []
        self._index: dict[tuple[str, str], dict[str, Any]] = {}
        self._unsaved = 0
        self.added = 0  # evaluations added by this run
        if self.path is not None and self.path.exists():
            for row in _read(self.path):
                self._remember(row)

    def check_space(self, kernel: str, target: str, fingerprint: str) -> None:
        """Refuse a file holding rows of ``kernel`` on ``target`` from another search space."""
        for row in self.rows:
            if (row["kernel"], row["target"]) == (kernel, target) and row["fingerprint"] != fingerprint:
                raise TileschedError(
                    f"results file holds trials of {kernel} on {target} from another search "
                    f"space (fingerprint {row['fingerprint']}, now {fingerprint}: the kernel, the "
                    "target or the passes' options changed); give another --results file or "
                    "remove this one", str(self.path))

    def lookup(self, fingerprint: str, pipeline: str) -> Evaluation | None:
        """The stored evaluation of ``pipeline`` in that space, if any."""
        row = self._index.get((fingerprint, pipeline))
        if row is None:
            return None
        return Evaluation(row["pipeline"], row["verdict"], row["cycles"], row["bound"],
                          row["reason"] or "", row["seconds"])

    def add(self, kernel: str, target: str, trial: int, options: dict, fingerprint: str,
            outcome: Evaluation) -> None:
        """Record one new evaluation (saved by the next :meth:`save`)."""
        self._remember({"kernel": kernel, "target": target, "trial": trial,
                        "pipeline": outcome.pipeline, "options": json.dumps(options),
                        "cycles": outcome.cycles, "bound": outcome.bound,
                        "verdict": outcome.verdict, "reason": outcome.reason,
                        "seconds": round(outcome.seconds, 6), "fingerprint": fingerprint})
        self._unsaved += 1
        self.added += 1

    def save(self) -> None:
        """Write every row (atomically) if anything new was added."""
        if self.path is None or not self._unsaved:
            return
        try:
            write_replacing(self.path, lambda tmp: _write(tmp, self.path.suffix, self.rows))
        except OSError as err:
            raise TileschedError(f"cannot write results: {err.strerror or err}",
                                 str(self.path)) from None
        self._unsaved = 0

    def _remember(self, row: dict[str, Any]) -> None:
        key = (row["fingerprint"], row["pipeline"])
        if key not in self._index:
            self.rows.append(row)
            self._index[key] = row


def _write(path: pathlib.Path, suffix: str, rows: list[dict[str, Any]]) -> None:
    if suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        types = {"trial": pa.int64(), "cycles": pa.int64(), "bound": pa.int64(),
                 "seconds": pa.float64()}
        schema = pa.schema([(c, types.get(c, pa.string())) for c in COLUMNS])
        table = pa.Table.from_pylist([{c: r[c] for c in COLUMNS} for r in rows], schema=schema)
        pq.write_table(table, path)
        return
    with path.open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({c: "" if row[c] is None else row[c] for c in COLUMNS})


def _read(path: pathlib.Path) -> list[dict[str, Any]]:
    """The rows of a results file; a file that is not one is refused with its name."""
    try:
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq

            rows = pq.read_table(path).to_pylist()
        else:
            with path.open(newline="") as src:
                rows = list(csv.DictReader(src))
    except Exception as err:  # OSError, csv's and pyarrow's own errors: they say what is wrong
        raise TileschedError(f"cannot read results: {_short(err)}", str(path)) from None
    if rows and set(COLUMNS) - set(rows[0]):
        missing = ", ".join(sorted(set(COLUMNS) - set(rows[0])))
        raise TileschedError(f"not a tilesched tune results file (no column {missing})", str(path))
    return [_typed(row, path) for row in rows]


def _typed(row: dict[str, Any], path: pathlib.Path) -> dict[str, Any]:
    """CSV cells are text: numbers back to numbers, empty cells to None."""
    typed = {c: (None if row[c] == "" else row[c]) for c in COLUMNS}
    try:
        for column in _INTS:
            if typed[column] is not None:
                typed[column] = int(typed[column])
        seconds = typed["seconds"]
        typed["seconds"] = float(seconds) if seconds is not None else math.nan
    except (TypeError, ValueError):
        raise TileschedError(f"malformed row {row!r}", str(path)) from None
    return typed


def _short(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__
