// tilesched report: draws the data embedded in #report-data. No network, no HTML from data:
// every string from the program reaches the page through textContent or canvas fillText.
(function () {
  'use strict';

  const DATA = JSON.parse(document.getElementById('report-data').textContent);
  const STR = DATA.strings;
  const RUNS = DATA.runs;
  const ROW_H = 24, HEAD_H = 22, COUNTER_H = 76, AXIS_H = 22, LABEL_W = 170;
  const KIND_COLORS = {
    load: '#4e79a7', store: '#59a14f', copy: '#76b7b2', matmul: '#e15759', call: '#b07aa1',
    fill: '#9c755f', reduce: '#d4a017', vector: '#f28e2b', other: '#8c8c8c',
  };
  const EDGE_COLORS = { flag: '#e8590c', group: '#7b3fb8', barrier: '#0b8a8a', drain: '#555e6e',
    issue: '#8a94a6', unit: '#8a94a6', resource: '#c2185b', start: '#8a94a6' };
  const STALL_COLORS = { busy: '#4e79a7', flag: '#e8590c', group: '#7b3fb8', barrier: '#0b8a8a',
    idle: '#d6dae2' };
  const SERIES_COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf',
    '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];
  const RACE = '#d62728', CRIT = '#f0a800';

  // ------------------------------------------------------------------ small helpers

  function el(tag, props, children) {
    const node = document.createElement(tag);
    if (props) {
      for (const key of Object.keys(props)) {
        const value = props[key];
        if (key === 'text') node.textContent = value;
        else if (key === 'cls') node.className = value;
        else if (key === 'style') node.style.cssText = value;
        else if (key === 'data') for (const d of Object.keys(value)) node.dataset[d] = value[d];
        else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
        else node[key] = value;
      }
    }
    for (const child of children || []) {
      if (child !== null && child !== undefined) {
        node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
      }
    }
    return node;
  }
  const fmt = (n) => (n === null || n === undefined) ? '-' :
    typeof n === 'number' ? n.toLocaleString('en-US') : String(n);
  const pct = (x) => (x * 100).toFixed(1) + '%';
  const shortName = (name) => name.replace(/^(tile|sync)\./, '');

  function kindOf(name) {
    const op = shortName(name);
    if (op === 'load' || op === 'store' || op === 'copy' || op === 'matmul' || op === 'call' ||
        op === 'fill') return op;
    if (op.startsWith('row')) return 'reduce';
    if (name.startsWith('tile.')) return 'vector';
    return 'other';
  }

  // ------------------------------------------------------------------ per-run indexes

  for (const run of RUNS) {
    const ev = run.ev, n = ev.s.length;
    run.n = n;
    run.sync = new Uint8Array(n);
    run.color = new Array(n);
    for (let e = 0; e < n; e++) {
      const name = STR[ev.name[e]];
      run.sync[e] = name.startsWith('sync.') ? 1 : 0;
      run.color[e] = KIND_COLORS[kindOf(name)];
    }
    run.maxDur = [];
    for (let r = 0; r < run.rows.length; r++) {
      let m = 0;
      for (let e = run.rowStart[r]; e < run.rowStart[r + 1]; e++) m = Math.max(m, ev.e[e] - ev.s[e]);
      run.maxDur.push(m);
    }
    run.maxDurAll = Math.max(0, ...run.maxDur);
    run.inEdges = csr(n, run.edges.to, run.edges.from, run.edges.kind);
    run.outEdges = csr(n, run.edges.from, run.edges.to, run.edges.kind);
    run.chain = run.critical; // the critical path in causal order
    run.crit = run.chain.slice().sort((a, b) => ev.s[a] - ev.s[b]);
    run.highlight = new Set();
    run.focus = [];
  }

  function csr(n, keys, values, kinds) {
    const count = new Int32Array(n + 1);
    for (const k of keys) count[k + 1]++;
    for (let i = 0; i < n; i++) count[i + 1] += count[i];
    const fill = count.slice(0, n), vals = new Int32Array(keys.length), ks = new Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const at = fill[keys[i]]++;
      vals[at] = values[i];
      ks[at] = kinds[i];
    }
    return { start: count, vals: vals, kinds: ks };
  }

  function edgesOf(index, e) {
    const out = [];
    for (let i = index.start[e]; i < index.start[e + 1]; i++) out.push([index.vals[i], index.kinds[i]]);
    return out;
  }

  const ev = (run, e) => ({
    name: STR[run.ev.name[e]], loc: STR[run.ev.loc[e]], args: STR[run.ev.args[e]],
    s: run.ev.s[e], e: run.ev.e[e], row: run.rows[run.ev.row[e]].name,
    origin: run.ev.origin && run.ev.origin[e] >= 0 ? STR[run.ev.origin[e]] : null,
  });

  // ------------------------------------------------------------------ what ordered an event

  function gatingSyncs(run, e) {
    // sync events run right before a tile op on its row (what the unit executed to get there)
    const out = [], row = run.ev.row[e], first = run.rowStart[row];
    for (let g = e - 1; g >= first && run.sync[g]; g--) out.push(g);
    return out;
  }

  function describeShort(run, e) {
    const x = ev(run, e);
    return shortName(x.name) + (x.args ? ' ' + x.args : '') + ' on ' + x.row + ' (' + x.loc + ')';
  }

  function causeText(run, e, depth) {
    const dep = run.ev.dep[e], kind = STR[run.ev.dk[e]], x = ev(run, e);
    if (dep < 0) return ['nothing: ready at cycle ' + fmt(x.s)];
    const d = ev(run, dep);
    const blocked = run.sync[dep] && d.e > d.s;
    let text;
    switch (kind) {
      case 'unit':
        text = blocked ? x.row + ' was waiting at ' + describeShort(run, dep) + ' until ' + fmt(d.e)
          : x.row + ' was busy with ' + describeShort(run, dep) + ' until ' + fmt(d.e);
        break;
      case 'pipe':
        text = x.row + ' (pipelined) starts an op one cycle after the previous one started: ' +
          describeShort(run, dep) + ' at ' + fmt(d.s);
        break;
      case 'issue':
        text = 'issued by ' + d.row + ' after ' + describeShort(run, dep) + ' (ended ' + fmt(d.e) + ')';
        break;
      case 'resource':
        text = 'shared unit busy with ' + describeShort(run, dep) + ' until ' + fmt(d.e);
        break;
      case 'flag':
        text = 'flag set at ' + fmt(d.e) + ' by ' + describeShort(run, dep);
        break;
      case 'group':
        text = 'group complete when ' + describeShort(run, dep) + ' ended at ' + fmt(d.e);
        break;
      case 'barrier':
        text = 'barrier partner ' + d.row + ' arrived (' + d.loc + ')';
        break;
      case 'drain':
        text = 'drained ' + describeShort(run, dep) + ', ended ' + fmt(d.e);
        break;
      default:
        text = kind + ': ' + describeShort(run, dep);
    }
    const lines = [text];
    if (depth > 0 && (blocked || kind === 'flag' || kind === 'issue')) {
      for (const more of causeText(run, dep, depth - 1)) lines.push('  \u2190 ' + more);
    }
    return lines;
  }

  function waitedFor(run, e) {
    const lines = [];
    if (!run.sync[e]) {
      for (const g of gatingSyncs(run, e).reverse()) {
        const x = ev(run, g);
        if (x.e > x.s) lines.push(shortName(x.name) + ' ' + x.args + ' blocked ' + fmt(x.e - x.s) + ' cycles');
      }
    }
    return lines.concat(causeText(run, e, 1));
  }

  function orderingEdges(run, e) {
    // [source, target, kind]: sync edges into e (or into the syncs gating it), its cause edge,
    // and, for a sync op, the edges leaving it
    const out = [];
    const targets = run.sync[e] ? [e] : gatingSyncs(run, e).concat([e]);
    for (const t of targets) for (const [s, k] of edgesOf(run.inEdges, t)) out.push([s, t, k]);
    if (run.sync[e]) for (const [t, k] of edgesOf(run.outEdges, e)) out.push([e, t, k]);
    const dep = run.ev.dep[e];
    if (dep >= 0 && run.ev.row[dep] !== run.ev.row[e] &&
        !out.some((x) => x[0] === dep && x[1] === e)) out.push([dep, e, STR[run.ev.dk[e]]]);
    return out;
  }

  // ------------------------------------------------------------------ page skeleton

  const meta = DATA.meta;
  const lastRun = RUNS[RUNS.length - 1];
  const verdictOk = lastRun.summary.ok;
  document.body.appendChild(el('header', null, [
    el('h1', { text: 'tilesched report: ' + meta.file }),
    el('div', { cls: 'sub' }, [
      'target ' + meta.target + (meta.function ? ', function @' + meta.function : '') +
      (meta.args.length ? ', ' + meta.args.join(' ') : '') +
      (meta.pipeline ? ', pipeline ' + meta.pipeline : ''),
      el('span', { cls: 'badge ' + (verdictOk ? 'ok' : 'bad'), id: 'verdict',
        text: verdictOk ? 'race-free, no deadlock, no violations' : 'FAULTY' }),
    ]),
  ]));
  const main = el('main');
  document.body.appendChild(main);
  const tooltip = el('div', { id: 'tooltip' });
  document.body.appendChild(tooltip);

  // ------------------------------------------------------------------ summary

  function summarySection() {
    const section = el('section', { id: 'summary' }, [el('h2', { text: 'Summary' })]);
    const two = RUNS.length === 2;
    const head = el('tr', null, [el('th', { text: '' })].concat(
      RUNS.map((r) => el('th', { text: r.label })), two ? [el('th', { text: 'difference' })] : []));
    const table = el('table', { cls: 'grid', id: 'summary-table' }, [head]);
    const rows = [
      ['cycles', (s) => s.cycles, true],
      ...(RUNS.some((r) => r.summary.timeUs != null)
        ? [['time (\u00b5s)', (s) => s.timeUs, true]] : []),
      ['bound', (s) => s.bound, false],
      ['cycles / bound', (s) => s.ratio, true],
      ['tile ops executed', (s) => s.tileOps, false],
      ['sync ops executed', (s) => s.syncOps, true],
      ['races', (s) => s.races, true],
      ['deadlock', (s) => s.deadlock ? 'yes' : 'no', false],
      ['violations', (s) => s.violations, true],
    ];
    for (const [label, get, diff] of rows) {
      const values = RUNS.map((r) => get(r.summary));
      const tr = el('tr', { data: { key: label } }, [el('td', { text: label })].concat(
        values.map((v) => el('td', { text: typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : fmt(v) }))));
      if (two) tr.appendChild(diffCell(values[0], values[1], diff));
      table.appendChild(tr);
    }
    const side = el('div', { cls: 'summary-tables' }, [el('div', null, [table])]);
    section.appendChild(side);
    section.appendChild(el('p', { cls: 'note', text: 'bound: ' + lastRun.summary.boundReason +
      '. Cycles are simulated on the target\u2019s machine model (docs/simulator.md)' +
      (lastRun.summary.frequencyHz ? '; time at its clock of ' + (lastRun.summary.frequencyHz / 1e9) +
        ' GHz' : '') + '.' }));
    // utilization per unit
    const units = Object.keys(lastRun.summary.units);
    const ut = el('table', { cls: 'grid', id: 'utilization' }, [el('tr', null,
      [el('th', { text: 'unit' })].concat(RUNS.map((r) => el('th', { text: r.label + ' busy' })),
        RUNS.map((r) => el('th', { text: r.label + ' utilization' }))))]);
    for (const unit of units) {
      ut.appendChild(el('tr', null, [el('td', { text: unit })].concat(
        RUNS.map((r) => el('td', { text: fmt((r.summary.units[unit] || {}).busy) })),
        RUNS.map((r) => el('td', { text: pct((r.summary.units[unit] || { utilization: 0 }).utilization) })))));
    }
    side.appendChild(el('div', null, [ut]));
    const peaks = RUNS.map((r) => Object.entries(r.summary.peakLiveEvents));
    if (peaks.some((p) => p.length)) {
      section.appendChild(el('p', { cls: 'note' }, RUNS.map((r, i) => el('div', {
        text: 'peak live events (' + r.label + '): ' +
          (peaks[i].map(([k, v]) => k + ' ' + v).join(', ') || 'none') }))));
    }
    return section;
  }

  function diffCell(a, b, meaningful) {
    if (typeof a !== 'number' || typeof b !== 'number' || !meaningful) return el('td', { text: '' });
    const d = b - a;
    const rel = a ? ' (' + (d >= 0 ? '+' : '') + (100 * d / a).toFixed(1) + '%)' : '';
    const text = (d > 0 ? '+' : '') + (Number.isInteger(d) ? fmt(d) : d.toFixed(3)) + rel;
    return el('td', { text: text, cls: d < 0 ? 'better' : d > 0 ? 'worse' : '' });
  }

  // ------------------------------------------------------------------ timeline

  const view = { t0: 0, t1: 1, width: 800 };
  const maxCycles = Math.max(1, ...RUNS.map((r) => r.summary.cycles));
  let bands = [], rowBands = [], hover = null, selected = null, showCrit = true, showAllEdges = false;
  let canvas, ctx, labels, wrap, details, dpr = 1, drawPending = false;

  function layoutBands() {
    bands = [];
    rowBands = RUNS.map(() => []);
    let y = AXIS_H;
    RUNS.forEach((run, ri) => {
      if (RUNS.length > 1) {
        bands.push({ run: ri, kind: 'header', y: y, h: HEAD_H });
        y += HEAD_H;
      }
      run.rows.forEach((row, r) => {
        bands.push({ run: ri, kind: 'row', row: r, y: y, h: ROW_H });
        rowBands[ri][r] = bands[bands.length - 1];
        y += ROW_H;
      });
      run.counters.forEach((track, k) => {
        bands.push({ run: ri, kind: 'counter', track: k, y: y, h: COUNTER_H });
        y += COUNTER_H;
      });
    });
    return y;
  }

  function timelineSection() {
    const section = el('section', { id: 'timeline' }, [el('h2', { text: RUNS.length > 1 ?
      'Timeline: before and after on one time axis' : 'Timeline' })]);
    const bar = el('div', { cls: 'toolbar' }, [
      el('button', { text: '\u2212', title: 'zoom out (s)', onclick: () => zoomAt(2, null) }),
      el('button', { text: '+', title: 'zoom in (w)', onclick: () => zoomAt(0.5, null) }),
      el('button', { text: 'fit', title: 'whole run (0)', onclick: fit }),
      el('button', { text: 'critical path', title: 'zoom to the critical path', onclick: () => {
        showCrit = true;
        critBox.checked = true;
        fit();
      } }),
      el('label', null, [critBox, ' highlight critical path']),
      el('label', null, [edgesBox, ' all sync edges in view']),
      el('span', { cls: 'note', text: 'wheel or w/s: zoom \u00b7 drag or a/d: pan \u00b7 hover: details \u00b7 click: select' }),
    ]);
    section.appendChild(bar);
    section.appendChild(legend());
    labels = el('div', { cls: 'tl-labels' });
    canvas = el('canvas', { id: 'timeline-canvas', tabIndex: 0 });
    wrap = el('div', { cls: 'tl-canvas-wrap' }, [canvas]);
    section.appendChild(el('div', { cls: 'tl' }, [labels, wrap]));
    details = el('div', { cls: 'details', id: 'details' }, [el('span', { cls: 'note',
      text: 'Click an op to see what it waited for and the sync edges that ordered it.' })]);
    section.appendChild(details);
    return section;
  }

  const critBox = el('input', { type: 'checkbox', checked: true, onchange: (evt) => {
    showCrit = evt.target.checked;
    redraw();
  } });
  const edgesBox = el('input', { type: 'checkbox', checked: false, onchange: (evt) => {
    showAllEdges = evt.target.checked;
    redraw();
  } });

  function legend() {
    const items = Object.keys(KIND_COLORS).map((k) => el('span', null, [
      el('span', { cls: 'sw', style: 'background:' + KIND_COLORS[k] }), k]));
    items.push(el('span', null, [el('span', { cls: 'sw', style: 'background:#fde0c5;border:1px solid ' +
      EDGE_COLORS.flag }), 'blocked sync op']));
    items.push(el('span', null, [el('span', { cls: 'sw', style: 'border:2px solid ' + CRIT }), 'critical path']));
    items.push(el('span', null, [el('span', { cls: 'sw', style: 'border:2px solid ' + RACE }), 'racing op']));
    for (const k of ['flag', 'group', 'barrier', 'drain', 'issue']) {
      items.push(el('span', null, [el('span', { cls: 'sw', style: 'height:3px;vertical-align:3px;background:' +
        EDGE_COLORS[k] }), k + ' edge']));
    }
    return el('div', { cls: 'legend' }, items);
  }

  function buildLabels(height) {
    labels.textContent = '';
    labels.style.height = height + 'px';
    for (const b of bands) {
      const run = RUNS[b.run];
      let node;
      if (b.kind === 'header') {
        node = el('div', { cls: 'tl-row-label header', text: run.label +
          (b.run === 1 && meta.pipeline ? ' (' + meta.pipeline + ')' : '') });
      } else if (b.kind === 'row') {
        const row = run.rows[b.row];
        node = el('div', { cls: 'tl-row-label', text: row.name, title: row.name + ' (' + row.kind + ')',
          data: { run: String(b.run), row: String(b.row), name: row.name } });
      } else {
        const track = run.counters[b.track];
        node = el('div', { cls: 'tl-row-label counter', text: track.title +
          (track.limit ? ' (limit ' + track.limit + ')' : ''), data: { run: String(b.run), counter: String(b.track) } });
      }
      node.style.top = b.y + 'px';
      node.style.height = b.h + 'px';
      if (b.kind !== 'counter') node.style.lineHeight = b.h + 'px';
      labels.appendChild(node);
    }
  }

  function resize() {
    const height = layoutBands();
    view.width = Math.max(200, wrap.clientWidth);
    dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(view.width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.width = view.width + 'px';
    canvas.style.height = height + 'px';
    ctx = canvas.getContext('2d');
    buildLabels(height);
    redraw();
  }

  const X = (t) => (t - view.t0) / (view.t1 - view.t0) * view.width;
  const T = (x) => view.t0 + x / view.width * (view.t1 - view.t0);

  function clampView() {
    const minSpan = Math.max(4, view.width / 40);
    const maxSpan = maxCycles * 1.5 + 10;
    let span = Math.min(Math.max(view.t1 - view.t0, minSpan), maxSpan);
    let t0 = Math.min(Math.max(view.t0, -span * 0.25), maxCycles + span * 0.25 - span);
    view.t0 = t0;
    view.t1 = t0 + span;
  }

  function fit() {
    view.t0 = -maxCycles * 0.01;
    view.t1 = maxCycles * 1.02;
    clampView();
    redraw();
  }

  function zoomAt(factor, x) {
    const anchor = T(x === null ? view.width / 2 : x);
    view.t0 = anchor - (anchor - view.t0) * factor;
    view.t1 = anchor + (view.t1 - anchor) * factor;
    clampView();
    redraw();
  }

  function panBy(dx) {
    const dt = dx / view.width * (view.t1 - view.t0);
    view.t0 += dt;
    view.t1 += dt;
    clampView();
    redraw();
  }

  function zoomTo(t0, t1) {
    const pad = Math.max((t1 - t0) * 0.15, 5);
    view.t0 = t0 - pad;
    view.t1 = t1 + pad;
    clampView();
    redraw();
  }

  function redraw() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(() => {
      drawPending = false;
      draw();
    });
  }

  function draw() {
    const started = performance.now();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, view.width, canvas.height / dpr);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    drawGrid();
    for (const b of bands) {
      if (b.kind === 'header') drawHeader(b);
      else if (b.kind === 'row') drawRow(b);
      else drawCounter(b);
    }
    for (const [ri, run] of RUNS.entries()) {
      if (showCrit) drawCritical(ri, run);
      drawHighlights(ri, run);
      if (showAllEdges) drawAllEdges(ri, run);
    }
    for (const pick of [selected, hover]) {
      if (pick) {
        const run = RUNS[pick.run];
        for (const [s, t, k] of orderingEdges(run, pick.e)) drawEdge(pick.run, s, t, k, 2);
        outline(pick.run, pick.e, '#000', 2, 2); // outside any race or critical outline
      }
    }
    window.tilesched.lastDrawMs = performance.now() - started;
    window.tilesched.draws += 1;
  }

  function niceStep(span, pixels) {
    const raw = span / Math.max(1, pixels / 90);
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (m * mag >= raw) return m * mag;
    return 10 * mag;
  }

  function drawGrid() {
    const step = niceStep(view.t1 - view.t0, view.width);
    const h = canvas.height / dpr;
    ctx.fillStyle = '#f6f7f9';
    ctx.fillRect(0, 0, view.width, AXIS_H);
    ctx.strokeStyle = '#eceef2';
    ctx.fillStyle = '#5b6475';
    ctx.lineWidth = 1;
    ctx.textAlign = 'left';
    for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
      const x = Math.round(X(t)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(x, AXIS_H - 6);
      ctx.lineTo(x, h);
      ctx.stroke();
      ctx.fillText(fmt(t), x + 3, AXIS_H / 2);
    }
    ctx.strokeStyle = '#c9ced8';
    ctx.beginPath();
    ctx.moveTo(0, AXIS_H - 0.5);
    ctx.lineTo(view.width, AXIS_H - 0.5);
    ctx.stroke();
    // end of each run
    for (const b of bands) {
      if (b.kind !== 'row' || b.row !== 0) continue;
      const end = X(RUNS[b.run].summary.cycles);
      ctx.strokeStyle = '#9aa2b1';
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(Math.round(end) + 0.5, b.y);
      ctx.lineTo(Math.round(end) + 0.5, b.y + RUNS[b.run].rows.length * ROW_H);
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }

  function drawHeader(b) {
    const run = RUNS[b.run];
    ctx.fillStyle = '#e8ebf0';
    ctx.fillRect(0, b.y, view.width, b.h);
    ctx.fillStyle = '#1d2330';
    ctx.textAlign = 'left';
    ctx.fillText(run.label + ': ' + fmt(run.summary.cycles) + ' cycles, ' + fmt(run.summary.syncOps) +
      ' sync ops' + (run.summary.ok ? '' : ', FAULTY'), 6, b.y + b.h / 2);
  }

  function firstVisible(run, row, t) {
    let lo = run.rowStart[row], hi = run.rowStart[row + 1];
    const s = run.ev.s, target = t - run.maxDur[row];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid] < target) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  function drawRow(b) {
    const run = RUNS[b.run], row = b.row, evs = run.ev;
    if (row % 2) {
      ctx.fillStyle = '#fafbfc';
      ctx.fillRect(0, b.y, view.width, b.h);
    }
    const top = b.y + 3, h = b.h - 6;
    const end = run.rowStart[row + 1];
    let bucketX0 = -1, bucketX1 = -1, bucketColor = null, lastTick = -1;
    const flush = () => {
      if (bucketX0 >= 0) {
        ctx.fillStyle = bucketColor;
        ctx.fillRect(bucketX0, top, Math.max(1, bucketX1 - bucketX0), h);
      }
      bucketX0 = -1;
    };
    for (let e = firstVisible(run, row, view.t0); e < end; e++) {
      const s = evs.s[e];
      if (s > view.t1) break;
      const x0 = X(s), x1 = X(evs.e[e]);
      if (x1 < 0) continue;
      if (run.sync[e]) {
        if (x1 - x0 >= 1) { // a blocked sync op: a light box of its kind's edge colour
          flush();
          const kind = edgeKindOfSync(STR[evs.name[e]]);
          ctx.fillStyle = hexAlpha(EDGE_COLORS[kind], 0.18);
          ctx.fillRect(x0, top + h * 0.25, x1 - x0, h * 0.5);
          ctx.strokeStyle = hexAlpha(EDGE_COLORS[kind], 0.7);
          ctx.strokeRect(x0 + 0.5, top + h * 0.25 + 0.5, Math.max(0, x1 - x0 - 1), h * 0.5 - 1);
          if (x1 - x0 > 60) label(shortName(STR[evs.name[e]]), x0, x1, top + h / 2, '#3b4252');
        }
        const px = Math.round(x0);
        if (px !== lastTick) { // a tick where the sync op executed
          lastTick = px;
          ctx.fillStyle = '#3b4252';
          ctx.fillRect(px, b.y + 1, 1, 5);
        }
        continue;
      }
      if (x1 - x0 < 2) { // too small to see alone: merge neighbours into one bar
        if (bucketX0 >= 0 && x0 <= bucketX1 + 1) {
          bucketX1 = Math.max(bucketX1, x1);
        } else {
          flush();
          bucketX0 = x0;
          bucketX1 = x1;
          bucketColor = run.color[e];
        }
        continue;
      }
      flush();
      ctx.fillStyle = run.color[e];
      ctx.fillRect(x0, top, x1 - x0, h);
      if (x1 - x0 > 3) {
        ctx.strokeStyle = 'rgba(255,255,255,0.8)';
        ctx.strokeRect(x0 + 0.5, top + 0.5, x1 - x0 - 1, h - 1);
      }
      if (x1 - x0 > 34) label(shortName(STR[evs.name[e]]), x0, x1, top + h / 2, '#fff');
    }
    flush();
  }

  function label(text, x0, x1, y, color) {
    const left = Math.max(x0, 0) + 4, right = Math.min(x1, view.width) - 4;
    if (right - left < 20) return;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, y - 8, right - left, 16);
    ctx.clip();
    ctx.fillStyle = color;
    ctx.textAlign = 'left';
    ctx.fillText(text, left, y);
    ctx.restore();
  }

  function edgeKindOfSync(name) {
    if (name === 'sync.wait_flag' || name === 'sync.set_flag') return 'flag';
    if (name === 'sync.wait_group' || name === 'sync.commit_group') return 'group';
    if (name === 'sync.barrier' || name === 'sync.cond_barrier') return 'barrier';
    return 'drain';
  }

  function hexAlpha(hex, a) {
    const v = parseInt(hex.slice(1), 16);
    return 'rgba(' + (v >> 16) + ',' + ((v >> 8) & 255) + ',' + (v & 255) + ',' + a + ')';
  }

  function drawCounter(b) {
    const run = RUNS[b.run], track = run.counters[b.track];
    const top = b.y + 20, h = b.h - 26;
    let peak = track.limit || 0;
    for (const s of track.series) peak = Math.max(peak, s.peak);
    peak = Math.max(1, peak);
    const Y = (v) => top + h - v / peak * h;
    ctx.strokeStyle = '#e1e4ea';
    ctx.strokeRect(0.5, top + 0.5, view.width - 1, h);
    if (track.limit) {
      ctx.strokeStyle = RACE;
      ctx.setLineDash([5, 4]);
      ctx.beginPath();
      ctx.moveTo(0, Math.round(Y(track.limit)) + 0.5);
      ctx.lineTo(view.width, Math.round(Y(track.limit)) + 0.5);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = RACE;
      ctx.textAlign = 'right';
      ctx.fillText('limit ' + track.limit, view.width - 6, Y(track.limit) + 7);
    }
    track.series.forEach((series, i) => {
      ctx.strokeStyle = SERIES_COLORS[i % SERIES_COLORS.length];
      ctx.lineWidth = 1.5;
      stepLine(series, Y);
      ctx.lineWidth = 1;
    });
    // legend
    ctx.textAlign = 'left';
    let lx = 6;
    track.series.forEach((series, i) => {
      const text = series.name + ' (peak ' + series.peak + ')';
      ctx.fillStyle = SERIES_COLORS[i % SERIES_COLORS.length];
      ctx.fillRect(lx, b.y + 9, 10, 3);
      ctx.fillStyle = '#3b4252';
      ctx.fillText(text, lx + 14, b.y + 10);
      lx += ctx.measureText(text).width + 30;
    });
  }

  function stepLine(series, Y) {
    const t = series.t, v = series.v;
    let lo = 0, hi = t.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (t[mid] < view.t0) lo = mid + 1; else hi = mid;
    }
    let i = Math.max(0, lo - 1);
    ctx.beginPath();
    let px = X(t[i]), level = v[i];
    ctx.moveTo(Math.max(px, 0), Y(level));
    let colMin = level, colMax = level, colPx = Math.round(px);
    for (i = i + 1; i < t.length; i++) {
      const x = X(t[i]);
      if (x > view.width + 2) break;
      const rx = Math.round(x);
      if (rx === colPx) { // several changes in one pixel column: keep their range
        colMin = Math.min(colMin, v[i]);
        colMax = Math.max(colMax, v[i]);
        level = v[i];
        continue;
      }
      if (colMax !== colMin) {
        ctx.lineTo(colPx, Y(colMax));
        ctx.lineTo(colPx, Y(colMin));
        ctx.lineTo(colPx, Y(level));
      }
      ctx.lineTo(x, Y(level));
      ctx.lineTo(x, Y(v[i]));
      level = v[i];
      colPx = rx;
      colMin = colMax = level;
    }
    ctx.lineTo(Math.min(view.width, X(Math.max(maxCycles, view.t1))), Y(level));
    ctx.stroke();
  }

  function bandOf(runIndex, row) {
    return rowBands[runIndex][row];
  }

  function boxOf(runIndex, e) {
    const run = RUNS[runIndex], b = bandOf(runIndex, run.ev.row[e]);
    return { x0: X(run.ev.s[e]), x1: X(run.ev.e[e]), y: b.y + 3, h: b.h - 6 };
  }

  function outline(runIndex, e, color, width, pad) {
    const box = boxOf(runIndex, e), p = pad || 0;
    const w = Math.max(box.x1 - box.x0, 3);
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.strokeRect(box.x0 - width / 2 - p - (w > box.x1 - box.x0 ? 1 : 0), box.y - width / 2 - p,
      w + width + 2 * p, box.h + width + 2 * p);
    ctx.lineWidth = 1;
  }

  function visible(run, e) {
    return run.ev.e[e] >= view.t0 && run.ev.s[e] <= view.t1;
  }

  function drawCritical(ri, run) {
    // in detail (outlines and the edges between rows) when few critical ops are in view,
    // else as a gold underline merged per pixel run, so a 100k-op path stays cheap to draw
    const crit = run.crit, s = run.ev.s, f = run.ev.e;
    let lo = 0, hi = crit.length;
    const from = view.t0 - run.maxDurAll;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s[crit[mid]] < from) lo = mid + 1; else hi = mid;
    }
    let last = lo;
    while (last < crit.length && s[crit[last]] <= view.t1) last++;
    if (last - lo <= 1500) {
      for (let i = lo; i < last; i++) {
        const e = crit[i];
        if (visible(run, e) && (!run.sync[e] || f[e] > s[e])) outline(ri, e, CRIT, 2);
      }
      const chain = run.chain;
      for (let i = 1; i < chain.length; i++) {
        const a = chain[i - 1], b = chain[i];
        if (run.ev.row[a] !== run.ev.row[b] && (visible(run, a) || visible(run, b))) {
          drawEdge(ri, a, b, 'crit', 2);
        }
      }
      return;
    }
    ctx.fillStyle = CRIT;
    const open = new Map();
    const flush = (row, span) => {
      const b = bandOf(ri, row);
      ctx.fillRect(span[0], b.y + b.h - 4, Math.max(2, span[1] - span[0]), 3);
    };
    for (let i = lo; i < last; i++) {
      const e = crit[i], row = run.ev.row[e], x0 = X(s[e]), x1 = X(f[e]);
      if (x1 < 0) continue;
      const span = open.get(row);
      if (span && x0 <= span[1] + 2) span[1] = Math.max(span[1], x1);
      else {
        if (span) flush(row, span);
        open.set(row, [x0, x1]);
      }
    }
    for (const [row, span] of open) flush(row, span);
  }

  function drawHighlights(ri, run) {
    for (const e of run.highlight) if (visible(run, e)) outline(ri, e, RACE, 2);
    for (const e of run.focus) if (visible(run, e)) outline(ri, e, RACE, 3);
  }

  function drawAllEdges(ri, run) {
    const from = run.edges.from, to = run.edges.to;
    let drawn = 0;
    for (let i = 0; i < from.length && drawn < 4000; i++) {
      if (visible(run, from[i]) || visible(run, to[i])) {
        drawEdge(ri, from[i], to[i], run.edges.kind[i], 1);
        drawn++;
      }
    }
  }

  function drawEdge(ri, s, t, kind, width) {
    const run = RUNS[ri];
    const a = boxOf(ri, s), b = boxOf(ri, t);
    const blocked = run.sync[t] && run.ev.e[t] > run.ev.s[t];
    const x0 = kind === 'barrier' ? a.x0 : a.x1, y0 = a.y + a.h / 2;
    const x1 = blocked && kind !== 'unit' && kind !== 'issue' ? b.x1 : b.x0, y1 = b.y + b.h / 2;
    ctx.strokeStyle = kind === 'crit' ? CRIT : (EDGE_COLORS[kind] || '#555');
    ctx.fillStyle = ctx.strokeStyle;
    ctx.lineWidth = width;
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    const mid = (y0 + y1) / 2;
    ctx.bezierCurveTo(x0, mid, x1, mid, x1, y1);
    ctx.stroke();
    const dir = y1 >= y0 ? 1 : -1;
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - 4, y1 - 7 * dir);
    ctx.lineTo(x1 + 4, y1 - 7 * dir);
    ctx.closePath();
    ctx.fill();
    ctx.lineWidth = 1;
  }

  // ------------------------------------------------------------------ interaction

  function pick(x, y) {
    for (const b of bands) {
      if (b.kind !== 'row' || y < b.y || y >= b.y + b.h) continue;
      const run = RUNS[b.run], t = T(x), tol = 4 * (view.t1 - view.t0) / view.width;
      let best = -1, bestDist = Infinity;
      const end = run.rowStart[b.row + 1];
      for (let e = firstVisible(run, b.row, t - tol); e < end && run.ev.s[e] <= t + tol; e++) {
        const s = run.ev.s[e], f = run.ev.e[e];
        let dist = t < s ? s - t : t > f ? t - f : 0;
        if (dist === 0 && run.sync[e] && f === s) dist = tol / 2; // prefer boxes to ticks
        if (dist < bestDist || (dist === bestDist && !run.sync[e])) {
          best = e;
          bestDist = dist;
        }
      }
      if (best >= 0 && bestDist <= tol) return { run: b.run, e: best };
      return null;
    }
    return null;
  }

  function showTooltip(p, clientX, clientY) {
    if (!p) {
      tooltip.style.display = 'none';
      return;
    }
    const run = RUNS[p.run], x = ev(run, p.e);
    tooltip.textContent = '';
    tooltip.appendChild(el('div', { cls: 't-title', text: x.name + '  [' + x.row + ']' }));
    if (x.args) tooltip.appendChild(el('div', { text: x.args }));
    tooltip.appendChild(el('div', { cls: 't-loc', text: x.loc }));
    if (x.origin && x.origin !== x.loc) tooltip.appendChild(el('div', { cls: 't-loc', text: 'from ' + x.origin }));
    else if (run.ev.origin && !x.origin) tooltip.appendChild(el('div', { text: 'added by the pipeline' }));
    tooltip.appendChild(el('div', { text: 'start ' + fmt(x.s) + '  end ' + fmt(x.e) + '  (' + fmt(x.e - x.s) + ' cycles)' }));
    tooltip.appendChild(el('div', { cls: 't-wait', text: 'waited for:' }));
    for (const line of waitedFor(run, p.e)) tooltip.appendChild(el('div', { cls: 't-wait', text: '  ' + line }));
    if (run.ev.crit[p.e]) tooltip.appendChild(el('div', { text: 'on the critical path' }));
    tooltip.style.display = 'block';
    const w = tooltip.offsetWidth, h = tooltip.offsetHeight;
    tooltip.style.left = Math.min(clientX + 14, window.innerWidth - w - 6) + 'px';
    tooltip.style.top = (clientY + 16 + h > window.innerHeight ? clientY - h - 10 : clientY + 16) + 'px';
  }

  function select(p) {
    selected = p;
    details.textContent = '';
    if (!p) {
      details.appendChild(el('span', { cls: 'note', text: 'Nothing selected.' }));
      redraw();
      return;
    }
    const run = RUNS[p.run], x = ev(run, p.e);
    details.appendChild(el('div', { cls: 'd-title', text: x.name + ' on ' + x.row + ' (' + run.label + ')' }));
    if (x.args) details.appendChild(el('div', { cls: 'mono', text: x.args }));
    details.appendChild(el('div', null, ['at ', locLink(x.loc)].concat(x.origin && x.origin !== x.loc ?
      [', written at ', locLink(x.origin)] : run.ev.origin ? [' (added by the pipeline)'] : [])));
    details.appendChild(el('div', { text: 'start ' + fmt(x.s) + ', end ' + fmt(x.e) + ', ' + fmt(x.e - x.s) +
      ' cycles' + (run.ev.crit[p.e] ? '; on the critical path' : '') }));
    details.appendChild(el('div', { text: 'waited for:' }));
    details.appendChild(el('ul', null, waitedFor(run, p.e).map((line) => el('li', { text: line }))));
    const edges = orderingEdges(run, p.e);
    if (edges.length) {
      details.appendChild(el('div', { text: 'sync edges:' }));
      details.appendChild(el('ul', null, edges.map(([s, t, k]) => {
        const other = s === p.e ? t : s;
        return el('li', null, [k + ' edge ' + (s === p.e ? 'to ' : 'from ') + ' ',
          el('span', { cls: 'link', text: describeShort(run, other), onclick: () => {
            select({ run: p.run, e: other });
            ensureVisible(p.run, other);
          } })]);
      })));
    }
    redraw();
  }

  function ensureVisible(ri, e) {
    const run = RUNS[ri];
    if (run.ev.s[e] < view.t0 || run.ev.e[e] > view.t1) {
      const span = view.t1 - view.t0;
      const mid = (run.ev.s[e] + run.ev.e[e]) / 2;
      view.t0 = mid - span / 2;
      view.t1 = mid + span / 2;
      clampView();
      redraw();
    }
  }

  function wireTimeline() {
    let drag = null;
    canvas.addEventListener('wheel', (evt) => {
      evt.preventDefault();
      const rect = canvas.getBoundingClientRect();
      if (Math.abs(evt.deltaX) > Math.abs(evt.deltaY) || evt.shiftKey) {
        panBy(evt.shiftKey ? evt.deltaY : evt.deltaX);
      } else {
        zoomAt(Math.pow(1.0015, evt.deltaY), evt.clientX - rect.left);
      }
    }, { passive: false });
    canvas.addEventListener('mousedown', (evt) => {
      drag = { x: evt.clientX, moved: false };
      canvas.classList.add('dragging');
    });
    window.addEventListener('mouseup', (evt) => {
      if (!drag) return;
      canvas.classList.remove('dragging');
      if (!drag.moved && evt.target === canvas) {
        const rect = canvas.getBoundingClientRect();
        select(pick(evt.clientX - rect.left, evt.clientY - rect.top));
      }
      drag = null;
    });
    canvas.addEventListener('mousemove', (evt) => {
      const rect = canvas.getBoundingClientRect();
      if (drag && evt.buttons) {
        const dx = evt.clientX - drag.x;
        if (Math.abs(dx) > 2) drag.moved = true;
        if (drag.moved) {
          panBy(-dx);
          drag.x = evt.clientX;
        }
        tooltip.style.display = 'none';
        return;
      }
      const p = pick(evt.clientX - rect.left, evt.clientY - rect.top);
      const changed = (p === null) !== (hover === null) || (p && hover && (p.e !== hover.e || p.run !== hover.run));
      hover = p;
      showTooltip(p, evt.clientX, evt.clientY);
      if (changed) redraw();
    });
    canvas.addEventListener('mouseleave', () => {
      hover = null;
      tooltip.style.display = 'none';
      redraw();
    });
    canvas.addEventListener('keydown', (evt) => {
      const keys = { w: () => zoomAt(0.7, null), s: () => zoomAt(1 / 0.7, null), a: () => panBy(-view.width / 5),
        d: () => panBy(view.width / 5), '0': fit, Escape: () => select(null) };
      if (keys[evt.key]) {
        keys[evt.key]();
        evt.preventDefault();
      }
    });
    window.addEventListener('resize', resize);
  }

  // ------------------------------------------------------------------ stalls

  function stallSection() {
    const section = el('section', { id: 'stalls' }, [el('h2', { text: 'Where the cycles went' }),
      el('p', { cls: 'note', text: 'Per issuer and unit: busy (tile ops), blocked at wait_flag, ' +
        'wait_group or a barrier, else idle (nothing queued). Each cycle counts once.' })]);
    const cats = RUNS[0].stallCategories;
    section.appendChild(el('div', { cls: 'legend' }, cats.map((c) => el('span', null, [
      el('span', { cls: 'sw', style: 'background:' + STALL_COLORS[c] }), c]))));
    for (const run of RUNS) {
      const table = el('table', { cls: 'grid stall-table', data: { run: run.label } }, [el('tr', null,
        [el('th', { text: RUNS.length > 1 ? run.label : 'row' }), el('th', { text: 'cycles' })].concat(
          cats.map((c) => el('th', { text: c }))))]);
      const cycles = Math.max(1, run.summary.cycles);
      for (const row of run.rows) {
        const bar = el('div', { cls: 'stackbar' }, cats.map((c) => el('div', {
          style: 'width:' + (100 * row.stalls[c] / cycles) + '%;background:' + STALL_COLORS[c],
          title: c + ': ' + fmt(row.stalls[c]) + ' cycles (' + pct(row.stalls[c] / cycles) + ')' })));
        table.appendChild(el('tr', null, [el('td', { text: row.name }), el('td', { cls: 'bar' }, [bar])].concat(
          cats.map((c) => el('td', { text: pct(row.stalls[c] / cycles) })))));
      }
      section.appendChild(table);
    }
    return section;
  }

  // ------------------------------------------------------------------ findings

  function findingsSection() {
    const section = el('section', { id: 'findings' }, [el('h2', { text: 'Findings' })]);
    const box = el('div', { cls: 'runs-findings' });
    RUNS.forEach((run, ri) => {
      const f = run.findings, list = el('ul', { cls: 'findings' });
      const column = el('div', null, [el('h3', { text: run.label, style: 'font-size:13px;margin:0' }), list]);
      if (!f.races.length && !f.deadlock && !f.violations.length) {
        list.appendChild(el('li', { text: 'no races, no deadlock, no sync violations', cls: 'ok' }));
      }
      f.races.forEach((race, i) => {
        const item = el('li', { cls: 'race', data: { run: String(ri), race: String(i) } }, [
          'race on ' + race.buffer + (race.count > 1 ? ' (x' + race.count + ')' : '') + ': ' + race.first.op + ' at ',
          locLink(race.first.loc), ' [' + race.first.unit + '] vs ' + race.second.op + ' at ',
          locLink(race.second.loc), ' [' + race.second.unit + ']']);
        item.addEventListener('click', (evt) => {
          if (evt.target.classList.contains('loc')) return;
          focusRace(ri, i);
        });
        list.appendChild(item);
      });
      if (f.deadlock) {
        for (const blocked of f.deadlock) {
          const item = el('li', { cls: 'deadlock' }, ['deadlock: ' + blocked.agent + ' blocked at ' + blocked.op + ' (',
            locLink(blocked.loc), '): waits for ' + blocked.waiting_for]);
          item.addEventListener('click', () => focusRow(ri, blocked.row));
          list.appendChild(item);
        }
      }
      for (const v of f.violations) {
        list.appendChild(el('li', { cls: 'violation' }, [v.kind + (v.count > 1 ? ' (x' + v.count + ')' : '') + ': ',
          v.loc ? locLink(v.loc) : '', v.loc ? v.detail.slice(v.loc.length) : v.detail]));
      }
      box.appendChild(column);
    });
    section.appendChild(box);
    return section;
  }

  function focusRace(ri, i) {
    const run = RUNS[ri], race = run.findings.races[i];
    for (const r of RUNS) {
      r.highlight.clear();
      r.focus = [];
    }
    for (const e of race.first.events.concat(race.second.events)) run.highlight.add(e);
    run.focus = race.focus.slice();
    document.querySelectorAll('.findings li.active').forEach((n) => n.classList.remove('active'));
    const item = document.querySelector('.findings li[data-run="' + ri + '"][data-race="' + i + '"]');
    if (item) item.classList.add('active');
    if (run.focus.length) {
      const s = Math.min(...run.focus.map((e) => run.ev.s[e])), f = Math.max(...run.focus.map((e) => run.ev.e[e]));
      zoomTo(s, f);
      select({ run: ri, e: run.focus[run.focus.length - 1] });
    }
    const sides = [race.first, race.second];
    details.insertBefore(el('div', { cls: 'race-box' }, [
      el('div', { cls: 'd-title', text: 'race on ' + race.buffer + (race.count > 1 ? ' (x' + race.count + ')' : '') +
        ' (' + run.label + '): no sync orders these two accesses' })].concat(sides.map((side, k) =>
      el('div', null, [side.op + ' on ' + side.unit + ' at ', locLink(side.loc),
        ' (' + side.events.length + ' executed instances highlighted' +
        (run.focus[k] !== undefined ? ', e.g. cycles ' + fmt(run.ev.s[run.focus[k]]) + '-' +
          fmt(run.ev.e[run.focus[k]]) : '') + ')'])))), details.firstChild);
    document.getElementById('timeline').scrollIntoView({ block: 'start' });
  }

  function focusRow(ri, row) {
    if (row < 0) return;
    const run = RUNS[ri], last = run.rowStart[row + 1] - 1;
    if (last >= run.rowStart[row]) {
      zoomTo(Math.max(0, run.ev.e[last] - 200), run.summary.cycles);
      select({ run: ri, e: last });
    }
    document.getElementById('timeline').scrollIntoView({ block: 'start' });
  }

  // ------------------------------------------------------------------ IR listings

  const listingViews = [];

  function listingSection() {
    const section = el('section', { id: 'ir' }, [el('h2', { text: RUNS.length > 1 ?
      'IR: the input and the transformed program' : 'IR' })]);
    const box = el('div', { cls: 'listings' });
    DATA.listings.forEach((listing, li) => {
      const added = listing.marks.filter((m) => m === 'added').length;
      const moved = listing.marks.filter((m) => m === 'moved').length;
      const head = el('div', { cls: 'l-head' }, [listing.name, li > 0 ? el('span', { cls: 'note', id: 'listing-marks',
        text: '  ' + added + ' lines added, ' + moved + ' moved by the pipeline (+ added, ~ moved)' }) : null]);
      const lines = el('div', { cls: 'l-lines' });
      const body = el('div', { cls: 'l-body' }, [lines]);
      const spacer = el('div', { style: 'height:' + (listing.lines.length * 18 + 4) + 'px' });
      body.appendChild(spacer);
      const lv = { listing: listing, body: body, lines: lines, flash: -1 };
      listingViews.push(lv);
      body.addEventListener('scroll', () => renderListing(lv));
      box.appendChild(el('div', { cls: 'listing', data: { name: listing.name } }, [head, body]));
    });
    section.appendChild(box);
    return section;
  }

  function renderListing(lv) {
    const first = Math.max(0, Math.floor(lv.body.scrollTop / 18) - 10);
    const count = Math.ceil(lv.body.clientHeight / 18) + 20;
    lv.lines.textContent = '';
    lv.lines.style.top = first * 18 + 'px';
    const marks = lv.listing.marks;
    for (let i = first; i < Math.min(lv.listing.lines.length, first + count); i++) {
      const mark = marks[i];
      lv.lines.appendChild(el('div', { cls: 'ir-line' + (mark ? ' ' + mark : '') + (i === lv.flash ? ' flash' : ''),
        data: { line: String(i + 1) } }, [el('span', { cls: 'ln', text: String(i + 1) }),
        el('span', { cls: 'mk', text: mark === 'added' ? '+' : mark === 'moved' ? '~' : '' }), lv.listing.lines[i]]));
    }
  }

  function parseLoc(loc) {
    const m = /^(.*):(\d+):(\d+)$/.exec(loc || '');
    return m ? { file: m[1], line: Number(m[2]), col: Number(m[3]) } : null;
  }

  function locLink(loc) {
    const where = parseLoc(loc);
    const known = where && DATA.listings.some((l) => l.name === where.file);
    if (!known) return el('span', { cls: 'loc', text: loc || '?' });
    return el('a', { cls: 'loc', text: loc, href: '#ir', onclick: (evt) => {
      evt.preventDefault();
      showLine(where.file, where.line);
    } });
  }

  function showLine(file, line) {
    const lv = listingViews.find((v) => v.listing.name === file);
    if (!lv) return;
    lv.flash = line - 1;
    document.getElementById('ir').scrollIntoView({ block: 'start' });
    lv.body.scrollTop = Math.max(0, (line - 1) * 18 - lv.body.clientHeight / 2);
    renderListing(lv);
  }

  // ------------------------------------------------------------------ assemble

  window.tilesched = {
    data: DATA, view: view, draws: 0, lastDrawMs: 0,
    // test and scripting hooks: where an event is drawn, select it, what is highlighted
    locate(runIndex, e) {
      ensureVisible(runIndex, e);
      const box = boxOf(runIndex, e), rect = canvas.getBoundingClientRect();
      const x0 = Math.max(box.x0, 0), x1 = Math.min(Math.max(box.x1, box.x0 + 1), view.width);
      return { x: rect.left + (x0 + x1) / 2, y: rect.top + box.y + box.h / 2 };
    },
    find(runIndex, predicate) {
      const run = RUNS[runIndex], out = [];
      for (let e = 0; e < run.n; e++) if (predicate(ev(run, e), e)) out.push(e);
      return out;
    },
    event: (runIndex, e) => ev(RUNS[runIndex], e),
    select: (runIndex, e) => select({ run: runIndex, e: e }),
    focusRace: focusRace,
    highlighted: (runIndex) => Array.from(RUNS[runIndex].highlight),
    focused: (runIndex) => RUNS[runIndex].focus.slice(),
    zoomTo: zoomTo, fit: fit, panBy: panBy, zoomAt: zoomAt, drawNow: () => draw(),
  };

  main.appendChild(summarySection());
  main.appendChild(timelineSection());
  main.appendChild(stallSection());
  main.appendChild(findingsSection());
  main.appendChild(listingSection());
  wireTimeline();
  view.width = Math.max(200, wrap.clientWidth);
  view.t0 = -maxCycles * 0.01;
  view.t1 = maxCycles * 1.02;
  clampView();
  resize();
  for (const lv of listingViews) renderListing(lv);
  followHash();
  window.addEventListener('hashchange', followHash);
  window.tilesched.readyMs = performance.now(); // since navigation started (benchmarks)
  document.body.dataset.ready = '1';

  function followHash() {
    // #race=RUN:I focuses a race, #op=RUN:E selects an op, #SECTION scrolls to a section
    const hash = decodeURIComponent(location.hash.slice(1));
    const m = /^(race|op)=(\d+):(\d+)$/.exec(hash);
    if (m) {
      const ri = Number(m[2]), i = Number(m[3]), run = RUNS[ri];
      if (!run) return;
      if (m[1] === 'race' && i < run.findings.races.length) focusRace(ri, i);
      if (m[1] === 'op' && i < run.n) {
        zoomTo(run.ev.s[i], run.ev.e[i]);
        select({ run: ri, e: i });
        document.getElementById('timeline').scrollIntoView({ block: 'start' });
      }
    } else if (/^[a-z]+$/.test(hash) && document.getElementById(hash)) {
      document.getElementById(hash).scrollIntoView({ block: 'start' });
    }
  }
})();
