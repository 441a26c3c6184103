"""``tilesched report`` pages in a real headless Chromium (Debian's, driven by Playwright).

The reports are opened from disk with every non-file request blocked. One browser serves the
module; each test gets a fresh page. In CI (``CI`` set) a missing Chromium or Playwright is a
failure; elsewhere the module is skipped with the reason.
"""

from __future__ import annotations

import io
import os
import pathlib
import shutil

import numpy as np
import pytest

from tilesched.cli import main

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
HOSTILE_FUNCTION = "</script><script>window.__pwned=1</script>"
HOSTILE_FILE = "k<img src=x onerror=window.__pwned=2>.mlir"
HOSTILE_CALLEE = "<b onmouseover=window.__pwned=3>x</b>"


def _require_browser():
    missing = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "playwright is not installed (pip install -e '.[dev]')"
    if missing is None and not shutil.which(CHROMIUM):
        missing = f"{CHROMIUM} not found (apt-get install chromium)"
    if missing and os.environ.get("CI"):
        pytest.fail(missing)
    if missing:
        pytest.skip(missing, allow_module_level=True)


_require_browser()

from playwright.sync_api import sync_playwright  # noqa: E402


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """The demo kernel before/after insert-sync (the input races), and a hostile-names kernel."""
    folder = tmp_path_factory.mktemp("reports")
    gemm = folder / "gemm.html"
    assert main(["report", str(EXAMPLES / "ascend_gemm.mlir"), "-p", "insert-sync",
                 "-o", str(gemm)]) == 0
    hostile_src = folder / HOSTILE_FILE
    hostile_src.write_text(
        "builtin.module {\n"
        f'  func.func @"{HOSTILE_FUNCTION}"(%a: memref<16x16xf16, "GM">) {{\n'
        '    %x = memref.alloc() : memref<16x16xf16, "UB">\n'
        '    tile.load %a, %x : memref<16x16xf16, "GM">, memref<16x16xf16, "UB">\n'
        f'    "tile.call"(%x) {{callee = "{HOSTILE_CALLEE}"}} : (memref<16x16xf16, "UB">) -> ()\n'
        '    tile.exp %x, %x : memref<16x16xf16, "UB">, memref<16x16xf16, "UB">\n'
        "    func.return\n  }\n}\n")
    hostile = folder / "hostile.html"
    assert main(["report", str(hostile_src), "-o", str(hostile)]) == 1  # it races
    return {"gemm": gemm, "hostile": hostile, "hostile_src": hostile_src}


class Page:
    """A page opened from disk with the network blocked, collecting errors and requests."""

    def __init__(self, browser, path: pathlib.Path):
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.blocked: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("body[data-ready='1']", timeout=15000)

    def _route(self, route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def js(self, expression: str, arg=None):
        return self.page.evaluate(expression, arg)

    def close(self):
        self.context.close()


@pytest.fixture
def open_page(browser):
    pages = []

    def opener(path):
        page = Page(browser, path)
        pages.append(page)
        return page

    yield opener
    for page in pages:
        page.close()


def _png_pixels(png: bytes) -> np.ndarray:
    """The RGB pixels of a PNG screenshot, as a (height, width, 3) array."""
    from PIL import Image  # installed with matplotlib

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_loads_offline_without_errors_with_one_row_per_unit_and_both_runs(reports, open_page):
    view = open_page(reports["gemm"])
    assert view.errors == [] and view.blocked == [] and view.dialogs == []
    data = view.js("window.tilesched.data")
    assert [run["label"] for run in data["runs"]] == ["before", "after"]
    for index, run in enumerate(data["runs"]):
        shown = view.js("(i) => Array.from(document.querySelectorAll("
                        "`.tl-row-label[data-run='${i}'][data-row]`), n => n.textContent)", index)
        assert shown == [row["name"] for row in run["rows"]] == ["S", "MTE2", "MTE1", "M", "V",
                                                                  "FIX", "MTE3"]
    summary = view.page.inner_text("#summary-table")
    assert "before" in summary and "after" in summary and "difference" in summary
    # the page shows the runs' own figures: cycles, their difference, microseconds at 1.85 GHz
    before, after = (run["summary"]["cycles"] for run in data["runs"])
    cycles_row = view.page.inner_text("#summary-table tr[data-key='cycles']")
    assert f"{before:,}" in cycles_row and f"{after:,}" in cycles_row
    assert f"{after - before:+,}" in cycles_row
    time_row = view.page.inner_text("#summary-table tr[data-key='time (\u00b5s)']")
    assert f"{before / 1850:.3f}" in time_row and f"{after / 1850:.3f}" in time_row
    added = data["listings"][1]["marks"].count("added")
    assert added > 0 and f"{added} lines added" in view.page.inner_text("#listing-marks")


def test_hovering_an_op_shows_its_location_times_and_what_it_waited_for(reports, open_page):
    view = open_page(reports["gemm"])
    copies = view.js("window.tilesched.find(1, (x) => x.name === 'tile.copy')")
    target = copies[3]
    op = view.js("(e) => window.tilesched.event(1, e)", target)
    view.js("(e) => window.tilesched.zoomTo(window.tilesched.event(1, e).s - 400, "
            "window.tilesched.event(1, e).e + 400)", target)
    view.page.locator("#timeline").scroll_into_view_if_needed()
    point = view.js("(e) => window.tilesched.locate(1, e)", target)
    view.page.mouse.move(point["x"], point["y"])
    tooltip = view.page.locator("#tooltip")
    tooltip.wait_for(state="visible")
    text = tooltip.inner_text()
    assert op["loc"] in text and op["loc"].startswith(str(EXAMPLES / "ascend_gemm.after.mlir"))
    assert f"from {op['origin']}" in text and op["origin"].endswith(("ascend_gemm.mlir:31:7",
                                                                     "ascend_gemm.mlir:32:7"))
    assert f"start {op['s']:,}" in text and f"end {op['e']:,}" in text
    assert "waited for:" in text and "wait_flag MTE2 -> MTE1" in text
    view.page.mouse.click(point["x"], point["y"])
    details = view.page.inner_text("#details")
    assert "flag edge from" in details and op["loc"] in details
    assert view.errors == []


def test_a_racy_kernel_highlights_both_racing_ops(reports, open_page):
    view = open_page(reports["gemm"])
    race = view.js("window.tilesched.data.runs[0].findings.races[0]")
    view.page.click(".findings li.race[data-run='0'][data-race='0']")
    highlighted = set(view.js("window.tilesched.highlighted(0)"))
    assert set(race["first"]["events"]) | set(race["second"]["events"]) == highlighted
    focused = view.js("window.tilesched.focused(0)")
    sides = {view.js("(e) => window.tilesched.event(0, e).loc", e) for e in focused}
    assert sides == {race["first"]["loc"], race["second"]["loc"]}
    view.page.wait_for_timeout(100)  # the next animation frame draws the outlines
    shot = _png_pixels(view.page.screenshot())
    for e in focused:  # a red outline around each of the two ops, both in view
        point = view.js("(e) => window.tilesched.locate(0, e)", e)
        x, y = int(point["x"]), int(point["y"])
        around = shot[y - 13:y + 14, max(0, x - 60):x + 61]
        reds = int(((around[..., 0] > 180) & (around[..., 1] < 90) & (around[..., 2] < 90)).sum())
        assert reds > 10, (e, reds)
    assert race["first"]["loc"] in view.page.inner_text(".findings li.race.active")


def test_screenshot_of_the_timeline_is_not_blank(reports, open_page):
    view = open_page(reports["gemm"])
    png = view.page.locator("#timeline-canvas").screenshot()
    pixels = _png_pixels(png)
    height, width, _ = pixels.shape
    assert width > 600 and height > 300
    colors = len(np.unique(pixels.reshape(-1, 3), axis=0))
    not_white = float((pixels.min(axis=2) < 235).mean())
    assert colors > 50 and not_white > 0.2, (colors, not_white)
    r, g, b = (pixels[..., k].astype(int) for k in range(3))
    assert int(((abs(r - 0x4E) < 12) & (abs(g - 0x79) < 12) & (abs(b - 0xA7) < 12)).sum()) > 1000


def test_hostile_names_are_shown_as_text_and_never_run(reports, open_page):
    view = open_page(reports["hostile"])
    assert view.js("typeof window.__pwned") == "undefined"
    assert view.dialogs == [] and view.errors == [] and view.blocked == []
    header = view.page.inner_text("header")
    assert HOSTILE_FUNCTION in header and HOSTILE_FILE in header
    assert HOSTILE_FILE in view.page.inner_text("#findings")
    assert view.js("document.querySelectorAll('script').length") == 2
    assert view.js("document.querySelectorAll('img, b, iframe, object').length") == 0
    call = view.js("window.tilesched.find(0, (x) => x.name === 'tile.call')")[0]
    view.page.locator("#timeline").scroll_into_view_if_needed()
    view.js("(e) => window.tilesched.zoomTo(window.tilesched.event(0, e).s - 20, "
            "window.tilesched.event(0, e).e + 20)", call)
    point = view.js("(e) => window.tilesched.locate(0, e)", call)
    view.page.mouse.move(point["x"], point["y"])
    view.page.locator("#tooltip").wait_for(state="visible")
    assert HOSTILE_CALLEE in view.page.inner_text("#tooltip")
    view.page.mouse.click(point["x"], point["y"])
    assert HOSTILE_CALLEE in view.page.inner_text("#details")
    assert view.js("typeof window.__pwned") == "undefined"
