"""Open a report in headless Chromium: screenshots for the docs, load and draw times for benchmarks.

``python -m tilesched.report.html.browser REPORT.html OUT.png [--hash race=0:0]`` writes a PNG of
the page as Debian's Chromium (``/usr/bin/chromium``) draws it, driven by Playwright (the ``dev``
extra); the network is blocked, as when a user opens the file from disk. ``--hash`` selects what
the page shows first: a section (``timeline``), a race (``race=RUN:I``) or an op (``op=RUN:E``).
"""

from __future__ import annotations

import argparse
import contextlib
import pathlib
import sys

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextlib.contextmanager
def open_report(path: str | pathlib.Path, fragment: str = "", width: int = 1400,
                height: int = 1000):
    """A Playwright page showing the report, ready (drawn), with every non-file request blocked."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            context.route("**/*", lambda route: route.continue_()
                          if route.request.url.startswith("file://") else route.abort())
            page = context.new_page()
            url = pathlib.Path(path).resolve().as_uri() + (f"#{fragment}" if fragment else "")
            page.goto(url)
            page.wait_for_selector("body[data-ready='1']", timeout=60_000)
            page.evaluate("() => new Promise(requestAnimationFrame)")  # the first draw
            yield page
        finally:
            browser.close()


def screenshot(report: str, out: str, fragment: str = "", width: int = 1400,
               height: int = 1000) -> None:
    """Write a PNG of the report's viewport (scrolled to ``fragment``, if given)."""
    with open_report(report, fragment, width, height) as page:
        page.wait_for_timeout(200)
        page.screenshot(path=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tilesched.report.html.browser",
                                     description="PNG of a tilesched report in headless Chromium")
    parser.add_argument("report", metavar="REPORT.html")
    parser.add_argument("out", metavar="OUT.png")
    parser.add_argument("--hash", default="", help="what to show first: timeline, race=0:0, op=1:5")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1000)
    args = parser.parse_args(argv)
    try:
        screenshot(args.report, args.out, args.hash, args.width, args.height)
    except ImportError:
        print("error: needs Playwright (pip install -e '.[dev]') and Debian's chromium",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
