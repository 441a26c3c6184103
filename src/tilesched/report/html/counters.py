"""Counter tracks under the timeline: the sync resource each family runs out of, over time.

- *flags* (Ascend): live events per directed unit pair (set and not yet consumed), against the
  target's event-id limit; the peak equals ``sim``'s ``peak_live_events`` (same tie rule: at one
  instant, clears of earlier sets, then sets, then clears of flags set at that instant);
- *groups* (CUDA): committed cp.async groups not yet complete, per queue instance;
- *barriers* (AMD): barriers passed by each issuer group; the gap between the two lines is the
  phase shift of warp pipelining.

A track is ``{title, limit, series: [{name, t: [...], v: [...]}]}``: ``v[k]`` holds from ``t[k]``
to ``t[k+1]`` (equal times draw a spike).
"""

from __future__ import annotations

from tilesched.report.html.events import BARRIERS, EventTable


def counter_tracks(timeline, table: EventTable, event_limit: int | None) -> list[dict]:
    """Every counter track that applies to this run (none for a program without sync)."""
    tracks = []
    live = live_events(timeline)
    if live:
        tracks.append({"title": "live events per unit pair", "limit": event_limit,
                       "series": live})
    groups = outstanding_groups(table)
    if groups:
        tracks.append({"title": "outstanding cp.async groups", "limit": None, "series": groups})
    phases = barrier_phases(table)
    if phases:
        tracks.append({"title": "barriers passed per issuer group", "limit": None,
                       "series": phases})
    return tracks


def live_events(timeline) -> list[dict]:
    """Per ``SRC->DST`` pair: how many of its flags are set and not yet consumed."""
    changes: dict[str, list[tuple]] = {}
    for flag, (sets, waits) in zip(timeline.flag_table, timeline.flags, strict=True):
        out = changes.setdefault(flag.pair, [])
        for k, (set_time, _, _) in enumerate(sets):
            out.append((set_time, 1, 1))
            if k < len(waits):
                clear = waits[k][0]
                out.append((clear, 2 if clear == set_time else 0, -1))
    return [_series(pair, steps) for pair, steps in sorted(changes.items()) if steps]


def outstanding_groups(table: EventTable) -> list[dict]:
    """Per group queue instance: committed groups whose ops have not all finished.

    A commit closes the ops enqueued to the queue's unit since the previous commit; the group is
    complete when the last of them ends (an empty group: when the group before it is).
    """
    commits: dict[int, list[int]] = {}
    for e in sorted(table.queue_of, key=table.op.__getitem__):
        if table.name(e) == "sync.commit_group":
            commits.setdefault(table.queue_of[e], []).append(e)
    series = []
    for unit, events in sorted(commits.items()):
        steps, last_end, cursor = [], 0, 0
        enqueued = table.by_row[unit]
        for e in events:
            while cursor < len(enqueued) and table.op[enqueued[cursor]] < table.op[e]:
                last_end = max(last_end, table.end[enqueued[cursor]])
                cursor += 1
            if last_end > table.start[e]:
                steps += [(table.start[e], 1, 1), (last_end, 0, -1)]
        series.append(_series(table.rows[unit], steps))
    return series


def barrier_phases(table: EventTable) -> list[dict]:
    """Per issuer group: the number of barriers it has passed, over time."""
    series = []
    for a, kind in enumerate(table.row_kinds):
        if kind != "issuer":
            continue
        passed = [table.end[e] for e in table.by_row[a]
                  if table.sync[e] and table.name(e) in BARRIERS]
        if passed:
            series.append(_series(table.rows[a], [(t, 1, 1) for t in passed]))
    return series


def _series(name: str, steps: list[tuple]) -> dict:
    """Turn ``(time, order, delta)`` changes into a step series, one point per (time, order)."""
    steps.sort(key=lambda s: (s[0], s[1]))
    times, values = [0], [0]
    level = 0
    for k, (time, order, delta) in enumerate(steps):
        level += delta
        following = steps[k + 1] if k + 1 < len(steps) else None
        if following is not None and following[:2] == (time, order):
            continue
        times.append(int(time))
        values.append(level)
    return {"name": name, "t": times, "v": values, "peak": max(values)}
