"""Located diagnostics for schedules the software-pipeline pass cannot honour.

- a dependence the schedule reverses: a consumer in an earlier stage than its
  producer, a dependent pair reversed inside a stage, or a loop-carried
  dependence that would run backwards (with the reason the buffer cannot get
  more versions);
- an SSA value crossing stages (values live one iteration; pass data through memory);
- ``tile.async`` / ``tile.async_stages`` on ops the target runs inline (a warning).
"""

from __future__ import annotations

from xdsl.ir import Operation

from tilesched.diagnostics import TileschedError
from tilesched.ir.text import location_of
from tilesched.schedule.pipeline.stages import Violation
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.software_pipeline.analysis import LoopModel
from tilesched.transforms.software_pipeline.annotations import async_stages, declared_async, is_pure

_KIND_WORDS = {"RAW": "reads", "WAR": "overwrites", "WAW": "overwrites", "UNKNOWN": "may touch"}


def _describe(op: Operation, model: LoopModel, index: int) -> str:
    staged = model.ops[index]
    return f"'{op.name}' (stage {staged.stage}, order {staged.order})"


def raise_violations(model: LoopModel, violations: list[Violation]) -> None:
    """Raise a located error for the first violated dependence, if any."""
    if not violations:
        return
    edge, why = violations[0].edge, violations[0].why
    staged = model.parts.staged
    src, dst = staged[edge.src], staged[edge.dst]
    a, b = _describe(src, model, edge.src), _describe(dst, model, edge.dst)
    buffer = model.edge_buffer.get(edge, "memory")
    verb = _KIND_WORDS.get(edge.kind, "touches")
    if why == "stage":
        message = (f"{b} {verb} {buffer} after {a} in the same iteration, but is in an earlier "
                   f"stage: a consumer cannot run in an earlier stage than its producer")
    elif why == "order":
        message = (f"{b} {verb} {buffer} after {a} in the same iteration, but both are in stage "
                   f"{model.ops[edge.src].stage} and its order puts it first: the dependent pair "
                   f"is reversed within the stage")
    else:
        message = (f"loop-carried {edge.kind} dependence on {buffer} (distance {edge.distance}): "
                   f"{b} of iteration i+{edge.distance} must follow {a} of iteration i, but the "
                   f"schedule runs it earlier")
        root = model.edge_root.get(edge)
        if root is not None and root in model.why_single:
            message += f"; {buffer} cannot be multi-buffered: {model.why_single[root]}"
    raise TileschedError(message, location_of(dst), note=f"{location_of(src)}: note: {a} is here")


def check_value_flow(model: LoopModel) -> None:
    """SSA results of staged ops may only be used later in the same stage."""
    staged = model.parts.staged
    index = {id(op): i for i, op in enumerate(staged)}
    body = model.loop.body.block
    for i, op in enumerate(staged):
        for result in op.results:
            for user in _staged_users(result, body):
                j = index.get(id(user))
                if j is None:
                    continue
                if model.ops[j].stage != model.ops[i].stage or model.ops[j].key < model.ops[i].key:
                    raise TileschedError(
                        f"{_describe(user, model, j)} uses a value computed by "
                        f"{_describe(op, model, i)}: SSA values cannot cross stages or run "
                        f"before their definition (pass the data through a buffer)",
                        location_of(user))


def _staged_users(value, body) -> list[Operation]:
    """Body-level ops using ``value``, looking through pure ops."""
    out = []
    for use in value.uses:
        op = use.operation
        while op.parent_block() is not body and op.parent_op() is not None:
            op = op.parent_op()
        if op.parent_block() is not body:
            continue
        if is_pure(op):
            for result in op.results:
                out.extend(_staged_users(result, body))
        else:
            out.append(op)
    return out


def warn_async_marks(model: LoopModel, env: TileContext) -> None:
    """On group targets, warn about ops marked asynchronous that the target runs inline."""
    if env.target.sync != "groups":
        return
    stages = async_stages(model.loop)
    for i, op in enumerate(model.parts.staged):
        if declared_async(op, stages) and not model.ops[i].queues:
            env.warn(f"'{op.name}' is marked asynchronous (stage {model.ops[i].stage}), but "
                     f"target '{env.target.name}' runs it on the issuer: it completes before the "
                     f"next op is issued and needs no wait_group", op)
