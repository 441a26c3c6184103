"""One self-contained HTML file: the page skeleton, its style and script, and the data as JSON.

Nothing is loaded from anywhere when the file is opened: style and script are inlined from
``assets/``, the data sits in a ``<script type="application/json">`` element. Names from the
program (functions, buffers, file names) only ever reach the page as JSON strings: ``<``, ``>``
and ``&`` are written as ``\\u003c``, ``\\u003e``, ``\\u0026`` (non-ASCII as ``\\uXXXX``), so no
string can close the element or start markup, and the script puts text into the page with
``textContent`` and canvas ``fillText`` only, never as HTML. The page's Content-Security-Policy
allows no network access and only the page's own script (by its SHA-256), so even a mistake in
that escaping could neither run injected code nor load anything.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from importlib import resources

ASSETS = resources.files("tilesched.report.html") / "assets"


def embed_json(data) -> str:
    """JSON text safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(title: str, data: dict) -> str:
    """The whole HTML document."""
    script = (ASSETS / "report.js").read_text()
    style = (ASSETS / "report.css").read_text()
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    policy = (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; "
              "img-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)}</title>\n<style>\n{style}</style>\n</head>\n<body>\n"
        "<noscript>This report draws its timeline with JavaScript; please enable it.</noscript>\n"
        f"<script type=\"application/json\" id=\"report-data\">{embed_json(data)}</script>\n"
        f"<script>{script}</script>\n</body>\n</html>\n"
    )
