"""Hand-written ``tile.last_use`` flags checked against the element-exact liveness (issue 28 §6).

A flag says "this read slot's elements are not read again before being overwritten" (DESIGN.md
§2, Fusion contract); code generation frees or reuses the buffer on its strength. ``fuse-tiles``
writes the flags from :func:`~tilesched.analysis.fusion_liveness.function_liveness`; a flag
written by hand (or by another tool) is checked against the same analysis, so a flag that claims
a buffer dead while it is read later is a located error (exit 2) in every command that reads
the IR, instead of being printed by ``emit-cpp`` as it is. A ``false`` flag is always allowed
(it only forgoes a reuse); a ``true`` flag must be one the analysis proves. One op that flags the
same operand value both dead and live contradicts itself and is an error too.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, MemRefType, ModuleOp
from xdsl.ir import Operation

from tilesched.analysis.fusion_annotations import global_spaces
from tilesched.analysis.fusion_liveness import function_liveness
from tilesched.diagnostics import TileschedError
from tilesched.ir.blocks import functions
from tilesched.ir.text import location_of
from tilesched.ir.tile import LAST_USE
from tilesched.target.model import Target


def last_use_errors(module: ModuleOp, target: Target | None = None) -> list[TileschedError]:
    """``tile.last_use`` flags that the liveness analysis does not prove, in program order
    (flags of the wrong form are :func:`fusion_annotations.annotation_errors`' to report). With
    the ``target``, on-chip arguments of a kernel entry count as its own (as fuse-tiles marks them)."""
    errors: list[TileschedError] = []
    for function in functions(module):
        flagged = [op for op in function.walk() if isinstance(op.attributes.get(LAST_USE),
                                                               DenseArrayBase)]
        if not any(any(op.attributes[LAST_USE].get_values()) for op in flagged):
            continue  # all false: nothing to prove
        facts = function_liveness(function, global_spaces=global_spaces(target))
        for op in flagged:
            if message := _flag_error(op, facts):
                errors.append(TileschedError(message, location_of(op)))
    return errors


def _flag_error(op: Operation, facts) -> str | None:
    flags = [bool(f) for f in op.attributes[LAST_USE].get_values()]
    memrefs = [v for v in op.operands if isinstance(v.type, MemRefType)]
    if len(flags) != len(memrefs):
        return None  # malformed: reported by annotation_errors
    for k, value in enumerate(memrefs[:-1]):  # read slots (the written one is never flagged)
        for j in range(k):
            if memrefs[j] is value and flags[j] != flags[k]:
                return (f"'tile.last_use' flags operands #{j} and #{k} of '{op.name}', the same "
                        f"buffer {_name(value)}, dead and live at once")
    if op not in facts.last_use:
        return None  # never runs
    proven = facts.flags(op)
    for k, (flag, dead) in enumerate(zip(flags, proven, strict=True)):
        if flag and not dead:
            return (f"'tile.last_use' flags operand #{k} ({_name(memrefs[k])}) of '{op.name}' "
                    "as its last use, but its elements may be read again before they are "
                    "overwritten (element-exact liveness, as fuse-tiles computes it); set the "
                    "flag to false, or let fuse-tiles write the flags")
    return None


def _name(value) -> str:
    return f"%{value.name_hint}" if value.name_hint else "a buffer"
