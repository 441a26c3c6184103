"""The ops of the lowering: scalars, views, tile ops and sync ops, as the program executes them.

A mixin of :class:`~tilesched.sim.lowering.lower.Lowering` (split from ``lower.py``, moved
unchanged): scalar values are evaluated, views resolved to buffer regions, and each tile or sync
op registered once as a :class:`~tilesched.sim.lowering.lower.StaticOp` (its route, duration and
props) and lowered as ``(static op, operands)``.
"""

from __future__ import annotations

from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, MemRefType
from xdsl.ir import Operation, SSAValue

from tilesched.analysis.units import op_core, op_cycles
from tilesched.diagnostics import TileschedError
from tilesched.ir.arith_eval import EVALUATED, evaluate
from tilesched.ir.text import location_of
from tilesched.ir.tile import SlotOp, TileOp, ViewOp
from tilesched.ir.types import memory_space, memref_shape
from tilesched.sim.lowering.lowered import OPERAND_PROPS, StaticOp, View, plain_attr, tile_props
from tilesched.target.cores import qualified
from tilesched.target.model import Route


class OpLowering:
    """Evaluating and registering the ops a run executes (mixin of ``Lowering``)."""

    def value(self, value: SSAValue, user: Operation):
        """The current value of an SSA value."""
        try:
            return self.env[value]
        except KeyError:
            raise TileschedError(f"'{user.name}' uses a value the simulator cannot compute",
                                 location_of(user)) from None

    # -------------------------------------------------------------- index math

    def scalar_op(self, op: Operation):
        """Evaluate an ``arith`` op or ``affine.apply``."""
        if isinstance(op, arith.ConstantOp):
            attr = op.value
            if isinstance(attr, IntegerAttr):
                return attr.value.data
            if isinstance(attr, FloatAttr):
                return float(attr.value.data)
            raise TileschedError(f"unsupported constant {attr}", location_of(op))
        if isinstance(op, affine.ApplyOp):
            operands = [int(self.value(v, op)) for v in op.operands]
            dims = op.map.data.num_dims
            return op.map.data.eval(operands[:dims], operands[dims:])[0]
        values = [self.value(v, op) for v in op.operands]
        if op.name not in EVALUATED:
            raise TileschedError(f"the simulator does not evaluate '{op.name}'", location_of(op))
        try:
            return evaluate(op, values)
        except ZeroDivisionError:
            raise TileschedError(f"division by zero in '{op.name}'", location_of(op)) from None
        except (OverflowError, ValueError, TypeError) as err:  # shifts, float -> int of inf/nan
            shown = ", ".join(str(v) for v in values)
            raise TileschedError(f"'{op.name}' cannot be evaluated on ({shown}): {err}",
                                 location_of(op)) from None

    # -------------------------------------------------------------- views and tile ops

    def view(self, op: ViewOp | SlotOp) -> View:
        """Narrow the source view by a window (``tile.view``) or a slot (``tile.slot``)."""
        src = self.value(op.source, op)
        region = list(src.region)
        if isinstance(op, SlotOp):
            k = int(self.value(op.index, op))
            root_dim = src.dims[0]
            lo, hi = region[root_dim]
            if not 0 <= k < hi - lo:
                raise TileschedError(f"tile.slot index {k} is outside 0..{hi - lo - 1}", location_of(op))
            region[root_dim] = (lo + k, lo + k + 1)
            return View(src.buffer, tuple(region), src.dims[1:])
        offsets = [int(self.value(v, op)) for v in op.offsets]
        for root_dim, offset, size in zip(src.dims, offsets, op.size_list, strict=True):
            lo, hi = region[root_dim]
            if offset < 0 or lo + offset + size > hi:
                raise TileschedError(f"tile.view window [{offset}, {offset + size}) is outside its "
                                     f"source dimension of size {hi - lo}", location_of(op))
            region[root_dim] = (lo + offset, lo + offset + size)
        for root_dim, value, size in zip(src.dims, op.valid, op.size_list, strict=False):
            valid = int(self.value(value, op))  # a valid region: tile ops see only its elements
            if not 0 <= valid <= size:
                raise TileschedError(f"tile.view valid extent {valid} is outside 0..{size}",
                                     location_of(op))
            lo, _ = region[root_dim]
            region[root_dim] = (lo, lo + valid)
        return View(src.buffer, tuple(region), src.dims)

    def static_of(self, op: TileOp) -> StaticOp:
        """The static entry of a tile op (routed and timed on first use)."""
        info = self.static.get(op)
        return info if info is not None else self._route(op)

    def tile(self, op: TileOp) -> None:
        """Lower one execution of a tile op (routing and timing computed once per op)."""
        info = self.static.get(op)
        if info is None:
            info = self._route(op)
        env = self.env
        operands = []
        for value, shape in info.operands:
            current = env[value] if value in env else self.value(value, op)
            if shape is not None:
                operands.append((current.buffer, current.region))
            else:
                operands.append(current)
        self.ops.append((info.sid, tuple(operands)))

    def _register(self, op: Operation, **fields) -> StaticOp:
        """Add an op to the static table."""
        info = StaticOp(len(self.statics), issuer=self.issuer, **fields)
        self.statics.append(info)
        self.static[op] = info
        return info

    def _route(self, op: TileOp) -> StaticOp:
        """Unit, duration, queue and properties of a tile op on this target."""
        loc = str(location_of(op) or "?")
        mems = op.memref_operands
        # routing looks at the spaces of the source operands (all memref operands but the last;
        # in-place ops such as ``muls %x, %c, %x`` read their destination's space too)
        reads = tuple(memory_space(v.type) for v in mems[:-1]) if op.read_operands() else ()
        dst = memory_space(mems[-1].type) if mems else None
        rule = self.target.route(op.name, reads, dst)
        unit = op.pipe.data if op.pipe is not None else (rule.unit if rule else None)
        if self.target.cores and unit is not None and unit not in self.target.units:
            unit = qualified(op_core(op, self.target, unit), unit)  # its core's instance
        if unit is None or unit not in self.target.units:
            raise TileschedError(f"no unit of target '{self.target.name}' runs '{op.name}'",
                                 location_of(op))
        if rule is None or rule.unit != unit:
            rule = Route((op.name,), unit)
        duration = op_cycles(op, self.target, rule)
        kind = self.target.units[unit].kind
        queue = rule.async_queue if kind == "async" else None
        if kind == "async" and queue is None:
            queue = next((q for q, u in self.machine.async_queues.items() if u == unit), None)
        shapes = tuple(memref_shape(v.type) if isinstance(v.type, MemRefType) else None
                       for v in op.operands)
        info = self._register(op, name=op.name, unit=unit, duration=int(duration),
                              props=tile_props(op), loc=loc, async_queue=queue,
                              lds=kind == "lds", shapes=shapes)
        info.operands = tuple(zip(op.operands, shapes, strict=True))
        return info

    def sync(self, op: Operation) -> None:
        """Lower one execution of a sync op (its operand, a ``wait_group`` count or an event
        id, is evaluated: the lowered op carries the value)."""
        info = self.static.get(op)
        if info is None:
            props = {name: plain_attr(attr) for name, attr in op.properties.items()}
            info = self._register(op, name=op.name, unit=None, duration=0, props=props,
                                  loc=str(location_of(op) or "?"), async_queue=None, lds=False,
                                  shapes=())
            operand_prop = OPERAND_PROPS.get(op.name)
            if op.operands and operand_prop is not None and operand_prop not in props:
                info.operand_prop = operand_prop
        if info.operand_prop is not None:
            value = self.value(op.operands[0], op)
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if not isinstance(value, int):
                raise TileschedError(f"'{op.name}' {info.operand_prop} is {value!r}, not an "
                                     "integer", location_of(op))
            self.ops.append((info.sid, (int(value),)))
        else:
            self.ops.append((info.sid, ()))

    # -------------------------------------------------------------- whole traces
