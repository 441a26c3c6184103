"""``tilesched report``: one self-contained HTML page explaining a simulated schedule.

The page (DESIGN.md §2 "Reports and tuning", ``docs/report.md``) shows, per run: a timeline per
issuer and unit instance with zoom and pan, the sync edges that ordered each op, stall attribution,
the critical path, counter tracks (live events per unit pair, outstanding groups, barrier phases),
a summary, and every race, deadlock and violation at its ``file:line:col``; with a pass pipeline,
the run before and after it on one time axis and the transformed IR with the lines the passes
added marked. The modules split by concern:

- ``events``: the event table and what ordered each event (causes, sync edges, critical path);
- ``stalls``: busy / flag / group / barrier / idle cycles per row;
- ``counters``: the counter tracks;
- ``findings``: races, deadlock and violations tied to events;
- ``listing``: the IR listings and the lines a pipeline added;
- ``model``: the JSON the page embeds; ``page``: the HTML document (escaping, CSP);
- ``assets/``: the page's script and style.
"""

from __future__ import annotations

from tilesched.gc_pause import paused_gc
from tilesched.report.html.model import RunInput, Strings, run_data
from tilesched.report.html.page import render_page


def report_html(title: str, runs: list[RunInput], listings: list[dict], meta: dict) -> str:
    """The report page for one or two runs (before and after a pipeline).

    The cyclic garbage collector is paused meanwhile, as during simulation: building the page
    allocates millions of small objects and no cycles, and full collections over a 100k-op
    trace would dominate.
    """
    with paused_gc():
        strings = Strings()
        data = {"meta": meta, "runs": [run_data(run, strings) for run in runs],
                "listings": listings, "strings": strings.items}
        return render_page(title, data)


__all__ = ["RunInput", "report_html"]
