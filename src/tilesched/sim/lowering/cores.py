"""Split-core targets (``ascend-a2-mix``): one program per core from the whole trace
(docs/simulator.md, "Split cores")."""

from __future__ import annotations

from dataclasses import replace

from tilesched.sim.trace import MachineModel, TraceError, TraceOp
from tilesched.target.cores import qualified


def split_cores(machine: MachineModel, ops: list[TraceOp]) -> dict[str, list[TraceOp]]:
    """The per-core programs of a split-core model (docs/simulator.md, "Split cores"): every
    core walks the same control flow but issues only its own ops, each in program order. A tile
    op goes to the core of its unit; ``set_flag`` / ``wait_flag`` / ``pipe_barrier`` to the core
    of the units they name; ``barrier_all`` to every core (it orders its own core only);
    ``cross_set`` becomes a ``set_flag`` on the source core, queued on the unit it names, and
    ``cross_wait`` a ``wait_flag`` of the destination core's issuer, both on the cross-core flag
    ``(src core, dst core, id)`` (``program.InstructionCompiler.cross_flag``)."""
    programs: dict[str, list[TraceOp]] = {issuer: [] for issuer in machine.issuers}
    for op in ops:
        props = op.props
        if op.name == "sync.cross_set" or op.name == "sync.cross_wait":
            src, dst = str(props.get("src")), str(props.get("dst"))
            if src not in machine.cores or dst not in machine.cores:
                raise TraceError(f"{op.loc}: {op.name} names an unknown core ({src} -> {dst})")
            setting = op.name == "sync.cross_set"
            issuer = machine.cores[src if setting else dst]
            flag = {"src": qualified(src, str(props.get("unit"))) if setting
                    else machine.cores[src], "dst": machine.cores[dst],
                    "event": props.get("id"), "cross": (src, dst)}
            name = "sync.set_flag" if setting else "sync.wait_flag"
            programs[issuer].append(TraceOp(name, issuer, None, 0, (), flag, op.loc))
            continue
        if op.name == "sync.barrier_all":
            for issuer in machine.issuers:
                programs[issuer].append(replace(op, issuer=issuer))
            continue
        if op.is_sync:
            named = props.get("src") if op.name == "sync.set_flag" else (
                props.get("dst") if op.name == "sync.wait_flag" else props.get("pipe"))
            unit = str(named)
        else:
            unit = str(op.unit)
        issuer = machine.issuer_of_unit(unit) or (unit if unit in machine.issuers else None)
        if issuer is None:
            raise TraceError(f"{op.loc}: {op.name} names {unit!r}, which is on no core of "
                             f"{machine.name} (units are named CORE.UNIT)")
        programs[issuer].append(replace(op, issuer=issuer))
    return programs
