"""Why an op could not be seated at a candidate II: :class:`PlacementFailure` and how it is built.

A failure names the op, its footprint, its dependence window, the full table rows it met over
its candidate starts (with their occupants), and the resource or pool that refused it most
often; the source document's list of "useful diagnostics" for a failed placement.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilesched.schedule.modulo.bounds import PROOF_RULES, Refutation
from tilesched.schedule.modulo.graph import CompiledGraph
from tilesched.schedule.modulo.reservation_table import (
    Footprint,
    ModuloReservationTable,
    set_bits,
)

OVERLAP = "self-overlap"
"""The stage of a footprint that overlaps itself modulo II (a proof, like :data:`PROOF_RULES`)."""


@dataclass(frozen=True)
class PlacementFailure:
    """Why one op could not be seated at one candidate II (structured, plus :meth:`text`)."""

    ii: int
    node: str
    footprint: tuple[tuple[int, str], ...]
    window: tuple[int | None, int | None]
    rows: dict[int, dict[str, tuple[str, ...]]]
    refused_by: str | None
    refused_by_pool: bool
    stage: str
    note: str = ""

    @property
    def proven(self) -> bool:
        """Whether this records a proof that the II is infeasible (not a heuristic miss)."""
        return self.stage in PROOF_RULES or self.stage == OVERLAP

    def text(self, max_rows: int = 8) -> str:
        """A multi-line human-readable account (at most ``max_rows`` table rows)."""
        if self.proven:
            return f"II {self.ii}: proved infeasible ({self.stage}): {self.note}"
        foot = _footprint_text(self.footprint)
        lo, hi = self.window
        window = "unbounded" if lo is None else f"[{lo}, {hi}]"
        lines = [f"II {self.ii}: cannot place {self.node} ({self.stage}): footprint {foot}; "
                 f"dependence window {window}"]
        cells = [(row, col, occ) for row, cols in sorted(self.rows.items())
                 for col, occ in sorted(cols.items())]
        for row, col, occ in cells[:max_rows]:
            lines.append(f"  row {row}: {col} full ({', '.join(occ)})")
        if len(cells) > max_rows:
            lines.append(f"  ... {len(cells) - max_rows} more full rows")
        if self.refused_by:
            kind = "capacity pool" if self.refused_by_pool else "resource"
            lines.append(f"  refused by {kind} {self.refused_by}")
        if self.note:
            lines.append(f"  {self.note}")
        return "\n".join(lines)


def _footprint_text(footprint: tuple[tuple[int, str], ...]) -> str:
    """``res@+0, res@+1``; runs of three or more cycles of one resource as ``res@+0..+99``."""
    if not footprint:
        return "none"
    parts, runs = [], []
    for off, res in footprint:
        if runs and runs[-1][0] == res and runs[-1][2] == off - 1:
            runs[-1][2] = off
        else:
            runs.append([res, off, off])
    for res, first, last in runs:
        if last - first >= 2:
            parts.append(f"{res}@+{first}..+{last}")
        else:
            parts.extend(f"{res}@+{off}" for off in range(first, last + 1))
    return ", ".join(parts)


def proof_failure(cg: CompiledGraph, ii: int, proof: Refutation) -> PlacementFailure:
    """A refutation of ``ii`` as a failure record."""
    pools = {cg.columns[c] for c in cg.pool_columns}
    columns = proof.column.split("/")
    return PlacementFailure(ii, proof.hub, (), proof.window, {}, proof.column,
                            any(c in pools for c in columns), proof.rule, note=proof.detail)


def failure_at(cg: CompiledGraph, table: ModuloReservationTable, v: int, footprint: Footprint,
               window: tuple[int | None, int | None], starts: int, stage: str,
               note: str = "") -> PlacementFailure:
    """The failure of op ``v`` over the candidate start rows ``starts`` (a bit set)."""
    rows: dict[int, dict[str, tuple[str, ...]]] = {}
    for col, full in sorted(table.full_rows_met(footprint, starts).items()):
        name = cg.columns[col]
        for row in set_bits(full):
            rows.setdefault(row, {})[name] = tuple(cg.ids[u] for u in table.occupants(row, col))
    refusals = table.refusals(footprint, starts)
    col = max(refusals, key=lambda c: (refusals[c], -c), default=None)
    named = tuple((off, cg.columns[c]) for off, c in cg.usage[v])
    return PlacementFailure(
        ii=table.ii, node=cg.ids[v], footprint=named, window=window, rows=rows,
        refused_by=None if col is None else cg.columns[col],
        refused_by_pool=col in cg.pool_columns, stage=stage, note=note)
