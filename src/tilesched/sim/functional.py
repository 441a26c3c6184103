"""Functional simulation: run a trace's tile ops on numpy data, and compare two programs.

- :func:`run_reference` is the *meaning* of a program: its ops in program order, each finishing
  before the next starts. Issuer groups that execute the same program (AMD) cooperate on every op,
  so the reference runs the program once, with whole-region writes.
- :func:`run_concurrent` executes the timeline the engine computed: every tile op reads its
  operands (and computes) at its start time and writes its destination at its end time, so a racy
  program can compute wrong numbers. Events at the same time: writes of ops ending then come
  first, then starts in the engine's order (a linear extension of happens-before). With several
  issuer groups, private-space buffers exist once per group and a group writes only its share of
  shared memory (:func:`~tilesched.sim.trace.group_share`).
- :func:`equivalent` runs A as reference and B concurrently on the same seeded inputs and
  compares the function-argument buffers (tolerances in :data:`TOLERANCE`);
  :func:`equivalent_to` takes A's memory already run, for many candidates of one program.

Inputs: argument ``k`` gets :func:`~tilesched.sim.semantics.random_values` from a generator
seeded with ``(seed, k)``; a local buffer gets values seeded by ``(seed, crc32(name))``, so reading
memory nobody wrote gives the same garbage in A and B only if the buffers have the same name.

Limits: a :class:`Memory` whose buffers would take more than ``max_bytes`` (default
:data:`DEFAULT_MAX_BYTES`; ``tilesched equiv --max-bytes``) is refused before anything is
allocated, naming the largest buffer. Two programs whose argument buffers differ in number,
shape or element type are not comparable: :func:`signature_mismatch` says how (``equiv``
exits 2 on it, as on any bad input).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field

import numpy as np

from tilesched.diagnostics import TileschedError
from tilesched.sim.result import SimResult
from tilesched.sim.run import simulate
from tilesched.sim.semantics import evaluate, random_values, storage_dtype, store
from tilesched.sim.trace import Access, Buffer, Trace, TraceOp, group_share

# Buffer data one program may allocate, in bytes (each program of an equiv run has its own).
DEFAULT_MAX_BYTES = 1 << 30

# (rtol, atol) per element type; integers and booleans compare exactly.
TOLERANCE = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (1e-5, 1e-6),
             "float64": (1e-12, 1e-12)}


class Memory:
    """Numpy arrays for every buffer of a trace (plus per-group copies of private buffers)."""

    def __init__(self, trace: Trace, seed: int = 0, groups: int = 1,
                 max_bytes: int = DEFAULT_MAX_BYTES):
        if seed < 0:
            raise TileschedError(f"the seed must be a non-negative integer, got {seed}")
        self.trace = trace
        self.arrays: dict[tuple[int, int], np.ndarray] = {}
        self.private = {b.id for b in trace.buffers
                        if groups > 1 and b.space in trace.machine.private_spaces}
        check_memory(trace, max_bytes, {b: groups for b in self.private})
        arg_index = 0
        for buf in trace.buffers:
            if buf.is_argument:
                values = random_values(buf.shape, buf.dtype, np.random.default_rng([seed, arg_index]))
                arg_index += 1
            else:
                rng = np.random.default_rng([seed, zlib.crc32(buf.name.encode())])
                values = random_values(buf.shape, buf.dtype, rng)
            copies = range(groups) if buf.id in self.private else (0,)
            for group in copies:
                self.arrays[(buf.id, group)] = values.copy()
        # elements a last-use flag declared dead and nothing wrote since (see poison_dead)
        self.undefined: dict[tuple[int, int], np.ndarray] = {}

    def root(self, buffer: int, group: int) -> np.ndarray:
        """The array of a buffer (the group's own copy for private buffers)."""
        return self.arrays[(buffer, group if buffer in self.private else 0)]

    def read(self, access: Access, group: int = 0) -> np.ndarray:
        """A copy of the operand's view, in the operand's shape."""
        view = self.root(access.buffer, group)[_slices(access.region)]
        return view.reshape(access.shape).copy()

    def write(self, access: Access, value: np.ndarray, group: int = 0, groups: int = 1) -> None:
        """Store ``value`` (operand-shaped) into the operand's region (a group's share of it)."""
        buf = self.trace.buffers[access.buffer]
        region = access.region
        share = region if access.buffer in self.private else group_share(region, group, groups)
        if share is None:
            return
        full = np.asarray(value).reshape(tuple(hi - lo for lo, hi in region))
        part = full[tuple(slice(lo - flo, hi - flo) for (lo, hi), (flo, _) in
                          zip(share, region, strict=True))]
        store(self.root(access.buffer, group), _slices(share), part, buf.dtype)
        undefined = self.undefined.get(self._key(access.buffer, group))
        if undefined is not None:
            undefined[_slices(share)] = False

    def _key(self, buffer: int, group: int) -> tuple[int, int]:
        return (buffer, group if buffer in self.private else 0)

    def declare_dead(self, access: Access, group: int, keep: Access | None = None) -> None:
        """Poison the operand's region (its contents become undefined) and remember it; the
        elements of ``keep`` (the op's own destination, already written) stay."""
        root = self.root(access.buffer, group)
        mask = np.zeros(root.shape, dtype=bool)
        mask[_slices(access.region)] = True
        if keep is not None and keep.buffer == access.buffer:
            mask[_slices(keep.region)] = False
        kind = root.dtype.kind
        root[mask] = np.nan if kind == "f" else np.iinfo(root.dtype).min if kind in "iu" else False
        key = self._key(access.buffer, group)
        if key not in self.undefined:
            self.undefined[key] = np.zeros(root.shape, dtype=bool)
        self.undefined[key] |= mask

    def defined(self, buffer: Buffer) -> np.ndarray | None:
        """Which elements of an argument buffer hold a value at the end (None: all): an on-chip
        argument of a kernel entry may be declared dead by a last-use flag, after which its
        contents are undefined (its buffers do not outlive the kernel)."""
        undefined = self.undefined.get(self._key(buffer.id, 0))
        return None if undefined is None else ~undefined

    def arguments(self) -> list[tuple[Buffer, np.ndarray]]:
        """Function-argument buffers with their final contents, in argument order."""
        return [(b, self.arrays[(b.id, 0)]) for b in self.trace.arguments]


def buffer_bytes(buffer: Buffer) -> int:
    """Bytes of one buffer's data as the functional simulator stores it."""
    return math.prod(buffer.shape) * storage_dtype(buffer.dtype).itemsize


def check_memory(trace: Trace, max_bytes: int, copies: dict[int, int] | None = None) -> None:
    """Refuse (exit 2) a program whose buffers need more than ``max_bytes`` of data; ``copies``
    gives buffers held more than once (per issuer group)."""
    sizes = [(buffer_bytes(b) * (copies or {}).get(b.id, 1), b) for b in trace.buffers]
    total = sum(size for size, _ in sizes)
    if total <= max_bytes:
        return
    size, largest = max(sizes, key=lambda item: item[0])
    kind = "argument" if largest.is_argument else "buffer"
    shape = "x".join(map(str, largest.shape)) or "scalar"
    raise TileschedError(
        f"the program's buffers need {_bytes(total)} of data, more than the limit of "
        f"{_bytes(max_bytes)} (--max-bytes); the largest is {kind} %{largest.name} "
        f"({shape} {largest.dtype}, {_bytes(size)})")


def _bytes(count: int) -> str:
    """``1.5 GiB``, ``512 B``."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            value = count / scale
            return f"{value:.1f} {unit}" if value < 10_000 else f"{value:.3g} {unit}"
    return f"{count} B"


def signature_mismatch(reference: Trace, candidate: Trace) -> str | None:
    """How the argument buffers of two programs differ (number, shape, element type), or None
    when every argument matches by position."""
    ref_args, cand_args = reference.arguments, candidate.arguments
    if len(ref_args) != len(cand_args):
        return f"A takes {len(ref_args)} buffer arguments and B takes {len(cand_args)}"
    for k, (a, b) in enumerate(zip(ref_args, cand_args, strict=True)):
        if a.shape != b.shape or a.dtype != b.dtype:
            return (f"buffer argument {k} is %{a.name}: {a.dtype}{list(a.shape)} in A but "
                    f"%{b.name}: {b.dtype}{list(b.shape)} in B")
    return None


def _slices(region) -> tuple[slice, ...]:
    """Numpy index of a region."""
    return tuple(slice(lo, hi) for lo, hi in region)


def _compute(op: TraceOp, memory: Memory, group: int) -> np.ndarray | None:
    """Read an op's operands from memory and evaluate it."""
    mems = [o for o in op.operands if isinstance(o, Access)]
    scalars = [o for o in op.operands if not isinstance(o, Access)]
    if not mems:
        return None
    dst = mems[-1]
    reads = mems[:-1]
    if op.name == "tile.matmul" and op.props.get("accumulate"):
        reads = mems
    inputs = [memory.read(a, group) for a in reads]
    out_dtype = storage_dtype(memory.trace.buffers[dst.buffer].dtype)
    return evaluate(op.name, inputs, scalars, op.props, dst.shape, out_dtype)


def poison_dead(op: TraceOp, memory: Memory, group: int, written: bool = False) -> None:
    """What ``op``'s ``tile.last_use`` flags declare dead after it becomes undefined: NaN for
    floats, the most negative value for integers (DESIGN.md §2, Fusion contract: a read slot
    flagged last use is not read again before it is overwritten). A wrong flag then shows up as
    a difference in ``equiv`` instead of passing silently. Called after ``op`` read its
    operands, before it writes (its own write may overwrite what it declared dead), or, with
    ``written``, after its write (which then stays)."""
    flags = op.props.get("last_use")
    if not flags or not any(flags):
        return
    mems = [o for o in op.operands if isinstance(o, Access)]
    for access, dead in zip(mems[:-1], flags, strict=False):
        if dead:
            memory.declare_dead(access, group, mems[-1] if written else None)


def _destination(op: TraceOp) -> Access:
    """The operand a tile op writes (its last memref operand)."""
    return [o for o in op.operands if isinstance(o, Access)][-1]


def run_reference(trace: Trace, seed: int = 0, max_bytes: int = DEFAULT_MAX_BYTES) -> Memory:
    """Execute the program in order, each op completing before the next (no concurrency)."""
    memory = Memory(trace, seed, max_bytes=max_bytes)
    first = trace.machine.issuers[0]
    ops = trace.program_order if trace.program_order is not None else trace.programs.get(first, [])
    for op in ops:
        if op.is_sync or op.name.startswith("sync."):
            continue
        value = _compute(op, memory, 0)
        poison_dead(op, memory, 0)
        if value is not None:
            memory.write(_destination(op), value)
    return memory


def run_concurrent(trace: Trace, seed: int = 0, check_races: bool = True,
                   max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[SimResult, Memory]:
    """Simulate the trace's timing, then replay its tile ops on data at their simulated times."""
    groups = trace.machine.sharing_groups
    private = {b.id: groups for b in trace.buffers
               if groups > 1 and b.space in trace.machine.private_spaces}
    check_memory(trace, max_bytes, private)  # before the simulation, not after it
    result = simulate(trace, check_races=check_races, record=True)
    memory = Memory(trace, seed, groups, max_bytes)
    ops = result.timeline.op_table
    issuer_index = {name: k for k, name in enumerate(trace.machine.issuers)}
    events = []
    for order, (_, start, end, op_index) in enumerate(result.timeline.ops):
        events.append((start, 1, order, op_index, end == start))
        if end > start:
            events.append((end, 0, order, op_index, False))
    events += _poison_events(trace, result.timeline.ops, ops)
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    pending: dict[int, np.ndarray | None] = {}
    for _, phase, order, op_index, instant in events:
        op = ops[op_index]
        group = issuer_index[op.issuer]
        if phase == -1:
            poison_dead(op, memory, group, written=instant)
            continue
        if phase == 1:
            value = _compute(op, memory, group)
            if instant:
                if value is not None:
                    memory.write(_destination(op), value, group, groups)
            else:
                pending[order] = value
        else:
            value = pending.pop(order)
            if value is not None:
                memory.write(_destination(op), value, group, groups)
    return result, memory


def _poison_events(trace: Trace, timeline: list, ops: list) -> list[tuple]:
    """When what each op's ``tile.last_use`` flags declare dead becomes undefined in a concurrent
    run: once the op has finished AND every access to those buffers issued before it (in its
    issuer's program order) has finished. A read flagged last use on one unit does not end
    another unit's earlier read of the same tile (a store on MTE3 still in its queue); a read
    issued after it, which a wrong flag forgets, sees the poison (phase -1: before the writes
    and starts of that cycle)."""
    flagged = {id(op) for op in ops if any(op.props.get("last_use") or ())}
    if not flagged:
        return []
    index = {id(op): k for k, op in enumerate(ops)}
    ends: dict[int, int] = {}
    for _, _start, end, op_index in timeline:
        ends[op_index] = end
    events = []
    for program in trace.programs.values():
        last_end: dict[int, int] = {}  # buffer -> latest end of its accesses so far
        for op in program:
            k = index.get(id(op))
            if k is None or k not in ends:
                continue
            buffers = {a.buffer for a in op.operands if isinstance(a, Access)}
            if id(op) in flagged:
                mems = [a for a in op.operands if isinstance(a, Access)]
                dead = {a.buffer for a, flag in zip(mems[:-1], op.props["last_use"],
                                                    strict=False) if flag}
                when = max([ends[k]] + [last_end.get(b, 0) for b in dead])
                events.append((when, -1, -1, k, when > ends[k]))  # after its own write?
            for b in buffers:
                last_end[b] = max(last_end.get(b, 0), ends[k])
    return events


@dataclass
class Mismatch:
    """One argument buffer whose contents differ between the two programs."""

    buffer: str
    elements: int
    max_abs_diff: float
    first_index: tuple[int, ...] | None

    def to_json(self) -> dict:
        return {"buffer": self.buffer, "elements": self.elements,
                "max_abs_diff": self.max_abs_diff, "first_index": self.first_index}


@dataclass
class Equivalence:
    """The verdict of :func:`equivalent` and the candidate's simulation."""

    equivalent: bool
    mismatches: list[Mismatch]
    candidate: SimResult
    problems: list[str] = field(default_factory=list)


def compare(reference: Memory, candidate: Memory) -> tuple[list[Mismatch], list[str]]:
    """Compare argument buffers by position; returns mismatches and structural problems."""
    ref_args, cand_args = reference.arguments(), candidate.arguments()
    problems = []
    if len(ref_args) != len(cand_args):
        problems.append(f"the programs take {len(ref_args)} and {len(cand_args)} buffer arguments")
    mismatches = []
    for (buf_a, a), (buf_b, b) in zip(ref_args, cand_args, strict=False):
        if a.shape != b.shape or buf_a.dtype != buf_b.dtype:
            problems.append(f"argument {buf_a.name} is {buf_a.dtype}{list(a.shape)} in A but "
                            f"{buf_b.dtype}{list(b.shape)} in B")
            continue
        found = _differences(buf_a, a, b, _both(reference.defined(buf_a), candidate.defined(buf_b)))
        if found is not None:
            mismatches.append(found)
    return mismatches, problems


def _both(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    """Elements defined in both memories (None: all)."""
    if a is None or b is None:
        return b if a is None else a
    return a & b


def _differences(buf: Buffer, a: np.ndarray, b: np.ndarray,
                 defined: np.ndarray | None = None) -> Mismatch | None:
    """A Mismatch when ``a`` and ``b`` differ beyond the element type's tolerance where both
    are ``defined`` (elements a last-use flag left undefined are not compared)."""
    if buf.dtype in TOLERANCE:
        rtol, atol = TOLERANCE[buf.dtype]
        close = np.isclose(b, a, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = a == b
    if defined is not None:
        close |= ~defined
    if close.all():
        return None
    bad = np.argwhere(~close)
    with np.errstate(all="ignore"):
        diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
    finite = diff[np.isfinite(diff)]
    return Mismatch(buf.name, int(bad.shape[0]), float(finite.max()) if finite.size else float("inf"),
                    tuple(int(i) for i in bad[0]))


def equivalent(reference: Trace, candidate: Trace, seed: int = 0,
               max_bytes: int = DEFAULT_MAX_BYTES) -> Equivalence:
    """Run ``reference`` in program order and ``candidate`` with its concurrency; compare."""
    return equivalent_to(run_reference(reference, seed, max_bytes), candidate, seed,
                         max_bytes=max_bytes)


def equivalent_to(reference: Memory, candidate: Trace, seed: int = 0,
                  check_races: bool = True, max_bytes: int = DEFAULT_MAX_BYTES) -> Equivalence:
    """:func:`equivalent` against a reference already run (:func:`run_reference` with the same
    seed), e.g. for many candidates of one program."""
    result, cand_memory = run_concurrent(candidate, seed, check_races, max_bytes)
    mismatches, problems = compare(reference, cand_memory)
    if result.deadlock is not None:
        problems.append("the candidate deadlocks, so it does not finish its work")
    return Equivalence(not mismatches and not problems, mismatches, result, problems)
