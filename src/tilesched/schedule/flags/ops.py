"""What the flag planner reads and writes: items in program order in, sync ops out."""

from __future__ import annotations

from dataclasses import dataclass

SET, WAIT, PIPE_BARRIER, BARRIER_ALL = "set", "wait", "pipe_barrier", "barrier_all"


@dataclass(frozen=True)
class Item:
    """One op in program order: its unit, and whether it runs inline on the issuer."""

    unit: str | None
    inline: bool = False


@dataclass
class SyncOp:
    """A sync op to insert *before* item ``position`` (``len(items)`` = at the end).

    ``order`` breaks ties among inserts at one position (lower first).
    """

    position: int
    kind: str
    src: str = ""
    dst: str = ""
    event: int = -1
    order: float = 0
    fallback: bool = False  # a widened set or a barrier_all: a pair ran out of event ids
    # A rolled loop's per-iteration id: ``event + (i + shift) mod modulus`` for iteration ``i``
    # (0 = a constant id). Presets take ``i`` = 0, drains the trip count.
    modulus: int = 0
    shift: int = 0

    def event_at(self, iteration: int) -> int:
        """The id this op uses in ``iteration`` (its constant id unless rotating)."""
        if not self.modulus:
            return self.event
        return self.event + (iteration + self.shift) % self.modulus

    @property
    def pair(self) -> tuple[str, str]:
        return self.src, self.dst


def count_fallbacks(ops: list[SyncOp]) -> int:
    """How often a plan ran out of event ids: a widened flag (one set covering two
    dependences of a pair, marked ``fallback``) or a drain (early waits, then a
    ``barrier_all`` marked ``fallback``); barriers that an inline consumer needs and the
    per-iteration serialization of a loop are not counted."""
    return sum(1 for s in ops if s.fallback)


def ids_used(ops: list[SyncOp]) -> dict[str, int]:
    """Distinct event ids each directed pair uses (highest id + 1) in a plan."""
    used: dict[str, int] = {}
    for s in ops:
        if s.kind == SET:
            key = f"{s.src}->{s.dst}"
            used[key] = max(used.get(key, 0), s.event + max(s.modulus, 1))
    return used
