"""The page itself: JSON escaping, the content policy, listings and the lines a pipeline added."""

from __future__ import annotations

import base64
import hashlib
import json
import re

from tilesched.ir import parse_file, print_module
from tilesched.report.html.listing import mark_changes, relocate
from tilesched.report.html.page import embed_json, render_page
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

HOSTILE = ["</script><script>alert(1)</script>", "<!--", "<img src=x onerror=alert(2)>",
           "&lt;", "\u2028\u2029", "'\"`", "</SCRIPT >"]


def test_embedded_json_has_no_markup_and_round_trips():
    data = {"names": HOSTILE, "nested": {"<key>": HOSTILE[0]}}
    text = embed_json(data)
    assert not set(text) & {"<", ">", "&"} and text.isascii()
    assert json.loads(text) == data


def test_page_embeds_data_once_and_allows_only_its_own_script():
    page = render_page("t <b>", {"x": HOSTILE})
    assert "<title>t &lt;b&gt;</title>" in page
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    assert len(scripts) == 2  # the data and the page's script, nothing a name could add
    (attrs, data), (_, script) = scripts
    assert 'type="application/json"' in attrs and json.loads(data) == {"x": HOSTILE}
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    policy = re.search(r'Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert f"script-src 'sha256-{digest}'" in policy
    assert "default-src 'none'" in policy and "connect-src 'none'" in policy
    assert "http://" not in page and "https://" not in page  # nothing to fetch


def test_script_builds_text_nodes_only():
    """The page script never parses strings as HTML (names could carry markup)."""
    from tilesched.report.html.page import ASSETS

    script = (ASSETS / "report.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                 "new Function"):
        assert sink not in script


def test_mark_changes_tells_added_from_moved_lines():
    before = "a\nb\nc\nd\n"
    after = "a\nnew1\nc\nb\nd\nnew2\n"
    marks = dict(zip(after.splitlines(), mark_changes(before, after), strict=True))
    assert (marks["a"], marks["d"], marks["new1"], marks["new2"]) == ("", "", "added", "added")
    assert sorted((marks["b"], marks["c"])) == ["", "moved"]  # b and c swapped: one moved


def test_transformed_ops_are_located_in_the_listing_and_keep_their_origin():
    target = load_target("ascend-a2")
    module = parse_file("examples/ascend_gemm.mlir")
    printed = print_module(module)
    run_pipeline(module, parse_pass_pipeline("insert-sync"), TileContext(target))
    after, text, origins = relocate(module, "k.after.mlir")
    lines = text.splitlines()
    marks = mark_changes(printed, text)
    added = [line.strip() for line, mark in zip(lines, marks, strict=True) if mark == "added"]
    assert added and all(line.startswith("sync.") for line in added)
    for op in after.walk():
        if not op.name.startswith(("tile.", "sync.")):
            continue
        loc = op.location
        line = lines[loc.line.data - 1]
        assert loc.filename.data == "k.after.mlir" and op.name.split(".")[-1] in line
    load_locs = [k for k, v in origins.items() if v == "examples/ascend_gemm.mlir:28:7"]
    assert len(load_locs) == 1 and "tile.load" in lines[int(load_locs[0].split(":")[1]) - 1]
    # ops the pass created have no origin: the page says "added by the pipeline"
    sync_lines = {i + 1 for i, line in enumerate(lines) if line.strip().startswith("sync.")}
    assert not any(int(k.split(":")[1]) in sync_lines for k in origins)
