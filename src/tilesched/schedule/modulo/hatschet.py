"""Load HatScheT modulo-scheduling instances: a GraphML graph plus a resource-model XML.

Format (``shared/benchmarks/hatschet/README.md``; HatScheT, Sittel/Oppermann et al.):

- GraphML ``<node id=...>`` with ``<data key="uses_resource">NAME</data>`` (and optionally
  ``name``); ``<edge source= target=>`` with ``delay`` (a few files say ``latency``), ``distance``
  and ``deptype``. Keys may also be declared with ``<key id=.. attr.name=..>``, as GraphML allows.
- Resource model ``<Resource name= limit= latency= blockingTime=/>``; ``limit="-1"`` is unlimited.

A node's latency and occupancy come from its resource; an edge's separation is the source's
latency plus the edge delay, which is exactly :class:`~tilesched.schedule.modulo.graph.ScheduleGraph`'s
convention. Malformed input raises :class:`~tilesched.diagnostics.TileschedError` located at
``file:line:col``; the parser is expat, so every element keeps its position.

Untrusted input stays cheap: a document type declaration is refused (as ``defusedxml`` does:
a DTD can declare entities that expand exponentially, the "billion laughs"), elements may nest
at most :data:`MAX_DEPTH` deep, and every number must be a finite integer within
:data:`LIMITS` (a delay of ``1e300`` is refused, not turned into a 300-digit schedule).
"""

from __future__ import annotations

import math
import pathlib
import re
import xml.parsers.expat
from dataclasses import dataclass, field

from tilesched.diagnostics import Location, TileschedError
from tilesched.schedule.modulo.graph import GraphError, ScheduleGraph

MAX_DEPTH = 64
"""Deepest element nesting accepted (GraphML needs 4 levels, resource models 3)."""

LIMITS = {"delay": (-10**6, 10**6), "latency": (0, 10**6), "distance": (0, 10**6),
          "limit": (-1, 10**6), "blockingTime": (0, 10**4)}
"""Accepted range of each number; ``blockingTime`` is a node's footprint length in cycles."""


class _Refused(Exception):
    """Raised from an expat handler to stop at input we do not accept."""


@dataclass
class _Element:
    """A parsed XML element with its source position (1-based line and column)."""

    tag: str
    attrs: dict[str, str]
    line: int
    column: int
    children: list[_Element] = field(default_factory=list)
    text: str = ""

    def iter(self, tag: str):
        """Yield descendants (and self) with local name ``tag``, in document order."""
        pending = [self]
        while pending:
            elem = pending.pop()
            if elem.tag == tag:
                yield elem
            pending.extend(reversed(elem.children))


def _parse_xml(path: pathlib.Path) -> _Element:
    """Parse ``path`` into :class:`_Element` s; namespace prefixes are dropped from tag names."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise TileschedError(f"cannot read '{path}': {err.strerror}", loc=str(path)) from None
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    root = _Element("#document", {}, 1, 1)
    stack = [root]

    def start(tag: str, attrs: dict[str, str]) -> None:
        if len(stack) > MAX_DEPTH:
            raise _Refused(f"elements nested deeper than {MAX_DEPTH} levels")
        local = tag.rsplit(" ", 1)[-1].rsplit(":", 1)[-1]
        attrs = {k.rsplit(" ", 1)[-1]: v for k, v in attrs.items()}
        elem = _Element(local, attrs, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
        stack[-1].children.append(elem)
        stack.append(elem)

    def end(_tag: str) -> None:
        stack.pop()

    def chars(text: str) -> None:
        stack[-1].text += text

    def doctype(*_args) -> None:
        raise _Refused("document type declarations (DTDs) are not accepted: they can declare "
                       "entities that expand without bound")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = doctype
    try:
        parser.Parse(data, True)
    except _Refused as err:
        loc = Location(str(path), parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
        raise TileschedError(str(err), loc=loc) from None
    except xml.parsers.expat.ExpatError as err:
        loc = Location(str(path), err.lineno, err.offset + 1)
        message = xml.parsers.expat.ErrorString(err.code)
        raise TileschedError(f"malformed XML: {message}", loc=loc) from None
    return root


def _loc(path: pathlib.Path, elem: _Element) -> Location:
    return Location(str(path), elem.line, elem.column)


def _int(path: pathlib.Path, elem: _Element, what: str, text: str | None) -> int:
    """Parse an integer attribute or data value within ``LIMITS[what]``, or raise a located
    error naming ``what``. Integral decimals (``2.0``, ``1e3``) are accepted."""
    if text is None:
        raise TileschedError(f"<{elem.tag}> has no '{what}'", loc=_loc(path, elem))
    text = text.strip()
    value: int | None = None
    if re.fullmatch(r"[+-]?\d{1,30}", text):
        value = int(text)
    else:
        try:
            number = float(text)
        except ValueError:
            number = None
        if number is not None and math.isfinite(number) and number.is_integer():
            value = int(number)
        elif number is not None or len(text) > 30:
            raise TileschedError(f"'{what}' must be a finite integer, got '{text[:40]}'",
                                 loc=_loc(path, elem))
    if value is None:
        raise TileschedError(f"'{what}' must be an integer, got '{text[:40]}'",
                             loc=_loc(path, elem))
    low, high = LIMITS.get(what, (-10**6, 10**6))
    if not low <= value <= high:
        raise TileschedError(f"'{what}' must be between {low} and {high}, got '{text[:40]}'",
                             loc=_loc(path, elem))
    return value


@dataclass(frozen=True)
class ResourceModel:
    """One ``<Resource>`` of a HatScheT resource model."""

    name: str
    limit: int | None
    latency: int
    blocking_time: int


def load_resource_model(path: str | pathlib.Path) -> dict[str, ResourceModel]:
    """Read a HatScheT resource-model XML into ``{name: ResourceModel}``. O(file size)."""
    path = pathlib.Path(path)
    root = _parse_xml(path)
    model: dict[str, ResourceModel] = {}
    for elem in root.iter("Resource"):
        name = elem.attrs.get("name")
        if not name:
            raise TileschedError("<Resource> has no 'name'", loc=_loc(path, elem))
        if name in model:
            raise TileschedError(f"resource '{name}' is defined twice", loc=_loc(path, elem))
        limit = _int(path, elem, "limit", elem.attrs.get("limit"))
        latency = _int(path, elem, "latency", elem.attrs.get("latency"))
        blocking = _int(path, elem, "blockingTime", elem.attrs.get("blockingTime", "1"))
        if limit < -1 or latency < 0 or blocking < 0:
            raise TileschedError(
                f"resource '{name}': limit must be >= -1, latency and blockingTime >= 0",
                loc=_loc(path, elem),
            )
        model[name] = ResourceModel(name, None if limit == -1 else limit, latency, blocking)
    if not model and root.children and root.children[0].tag != "ModelInformation":
        raise TileschedError("not a HatScheT resource model (no <Resource>)", loc=str(path))
    return model


def default_resource_path(graph_path: str | pathlib.Path) -> pathlib.Path:
    """``dir/graphN.graphml`` -> ``dir/graphN_RM.xml`` (the layout of the HatScheT benchmarks)."""
    graph_path = pathlib.Path(graph_path)
    stem = re.sub(r"\.graphml$", "", graph_path.name)
    return graph_path.with_name(stem + "_RM.xml")


def _data_values(elem: _Element, key_names: dict[str, str]) -> dict[str, tuple[str, _Element]]:
    """Map a node's or edge's ``<data>`` children to ``{attribute name: (text, element)}``."""
    values = {}
    for child in elem.children:
        if child.tag == "data" and "key" in child.attrs:
            key = child.attrs["key"]
            values[key_names.get(key, key)] = (child.text.strip(), child)
    return values


def load_graph(
    graph_path: str | pathlib.Path, resources_path: str | pathlib.Path | None = None
) -> ScheduleGraph:
    """Load a HatScheT instance into a :class:`ScheduleGraph`. O(file sizes).

    ``resources_path`` defaults to :func:`default_resource_path`. Node ids are the GraphML ids.
    """
    graph_path = pathlib.Path(graph_path)
    rm_path = pathlib.Path(resources_path) if resources_path else default_resource_path(graph_path)
    root = _parse_xml(graph_path)
    model = load_resource_model(rm_path)
    if not any(True for _ in root.iter("graph")):
        raise TileschedError("not a GraphML file (no <graph>)", loc=str(graph_path))
    key_names = {k.attrs["id"]: k.attrs.get("attr.name", k.attrs["id"])
                 for k in root.iter("key") if "id" in k.attrs}
    graph = ScheduleGraph()
    for res in model.values():
        graph.add_resource(res.name, res.limit)
    for elem in root.iter("node"):
        _add_node(graph, model, graph_path, rm_path, elem, key_names)
    for elem in root.iter("edge"):
        _add_edge(graph, graph_path, elem, key_names)
    return graph


def _add_node(graph, model, graph_path, rm_path, elem: _Element, key_names) -> None:
    """Add one GraphML ``<node>``; its resource must exist in the model."""
    node_id = elem.attrs.get("id")
    if node_id is None:
        raise TileschedError("<node> has no 'id'", loc=_loc(graph_path, elem))
    data = _data_values(elem, key_names)
    if "uses_resource" not in data:
        raise TileschedError(f"node '{node_id}' has no 'uses_resource' data",
                             loc=_loc(graph_path, elem))
    res_name = data["uses_resource"][0]
    res = model.get(res_name)
    if res is None:
        raise TileschedError(f"node '{node_id}' uses resource '{res_name}', which {rm_path} "
                             "does not define", loc=_loc(graph_path, elem))
    name = data.get("name", (node_id, None))[0] or node_id
    try:
        graph.add_node(node_id, res_name, latency=res.latency, occupancy=res.blocking_time,
                       name=name)
    except GraphError as err:
        raise TileschedError(str(err), loc=_loc(graph_path, elem)) from None


def _add_edge(graph: ScheduleGraph, graph_path, elem: _Element, key_names) -> None:
    """Add one GraphML ``<edge>`` with its ``delay``/``latency`` and ``distance``."""
    src, dst = elem.attrs.get("source"), elem.attrs.get("target")
    if src is None or dst is None:
        raise TileschedError("<edge> needs 'source' and 'target'", loc=_loc(graph_path, elem))
    data = _data_values(elem, key_names)
    where = f"edge {src} -> {dst}"
    if "delay" not in data and "latency" not in data:
        raise TileschedError(f"{where} has no 'delay' (or 'latency') data",
                             loc=_loc(graph_path, elem))
    if "distance" not in data:
        raise TileschedError(f"{where} has no 'distance' data", loc=_loc(graph_path, elem))
    delay_text, delay_elem = data.get("delay") or data["latency"]
    dist_text, dist_elem = data["distance"]
    delay = _int(graph_path, delay_elem, "delay", delay_text)
    distance = _int(graph_path, dist_elem, "distance", dist_text)
    try:
        graph.add_edge(src, dst, delay=delay, distance=distance)
    except GraphError as err:
        raise TileschedError(str(err), loc=_loc(graph_path, elem)) from None
