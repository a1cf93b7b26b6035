/* kusari-ui shared page helpers: DOM building, API calls, status badges,
 * the commands panel and grids of charts. Exposes window.KusariUI.
 * Every piece of data reaches the DOM through textContent or attribute
 * setters, never HTML parsing, so run names/args/keys cannot inject markup. */
'use strict';
(function () {
  const API = '/api/v1';
  // Columns of points sent by /series: [index, epoch, iteration, elapsed, value].
  const X_AXES = { iteration: 2, epoch: 1, elapsed_time: 3 };
  const STATUS_TEXT = { timed_out: 'timed out' };
  const net = document.getElementById('net');

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'text') e.textContent = String(v);
      else if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else if (k === 'checked' || k === 'value' || k === 'disabled') e[k] = v;
      else e.setAttribute(k, String(v));
    }
    for (const c of kids.flat()) {
      if (c === null || c === undefined) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  async function api(path, opts) {
    const init = Object.assign({ headers: {} }, opts || {});
    if (init.json !== undefined) {
      init.method = init.method || 'POST';
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(init.json);
    }
    let resp;
    try {
      resp = await fetch(API + path, init);
      net.classList.remove('down');
    } catch (err) {
      net.classList.add('down');
      throw err;
    }
    const body = await resp.json().catch(() => ({}));
    if (!resp.ok) throw new Error((body.error && body.error.message) || resp.statusText);
    return body;
  }

  function toast(msg) {
    const t = document.getElementById('toast');
    t.textContent = msg;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
  }

  /* Counts (entries, iteration, epoch) as integers with thousands separators. */
  function fmtInt(v) { return Math.round(v).toLocaleString('en-US'); }
  const INT_KEYS = new Set(['iteration', 'epoch', 'nEntries']);
  function cellText(v, key) {
    if (v === undefined || v === null) return '';
    if (typeof v !== 'number') return String(v);
    if (INT_KEYS.has(key) && Number.isInteger(v)) return fmtInt(v);
    return window.KusariChart.fmt(v);
  }

  function statusBadge(status, title) {
    return el('span', { class: 'status ' + status, text: STATUS_TEXT[status] || status, title: title || null });
  }

  function indexingBanner(on) {
    return on ? el('div', { class: 'banner', id: 'indexing',
      text: 'Indexing runs: the first crawl is under way, so entry counts and charts are still filling in.' }) : null;
  }

  /* ---------- charts: one per metric family, train solid, validation dashed ---------- */
  function groupOf(key) { return key.replace(/^validation\//, ''); }

  /* Metric keys grouped by family ("main/loss" with "validation/main/loss"),
   * losses first so the default view reads loss | accuracy. */
  function groupKeys(keys) {
    const groups = new Map();
    for (const k of [...keys].sort()) {
      const g = groupOf(k);
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(k);
    }
    const rank = (g) => (/loss/.test(g) ? 0 : /acc/.test(g) ? 1 : 2);
    return [...groups.entries()].sort((a, b) => rank(a[0]) - rank(b[0]) || a[0].localeCompare(b[0]));
  }

  /* Default metrics: loss and accuracy with their validation twins. */
  function defaultKeys(keys) {
    const want = ['main/loss', 'validation/main/loss', 'main/accuracy', 'validation/main/accuracy'];
    const picked = want.filter((k) => keys.includes(k));
    if (picked.length) return picked;
    const first = keys.find((k) => !(k in X_AXES));
    return first ? keys.filter((k) => groupOf(k) === groupOf(first)) : [];
  }

  class ChartGrid {
    /* container: element to fill; one chart per group; the first canvas
     * gets id firstId so a single chart keeps its old handle. */
    constructor(container, firstId) {
      this.container = container;
      this.firstId = firstId;
      this.charts = new Map();
      this.signature = null;
    }

    layout(groups) {
      const sig = JSON.stringify(groups.map((g) => g[0]));
      if (sig === this.signature) return;
      this.signature = sig;
      for (const c of this.charts.values()) if (c.resizeObserver) c.resizeObserver.disconnect();
      this.charts = new Map();
      const panels = groups.map(([g], i) => {
        const canvas = el('canvas', { class: 'chart', id: i ? this.firstId + '-' + (i + 1) : this.firstId, 'data-group': g });
        const tip = el('div', { class: 'tooltip', hidden: 'hidden' });
        this.charts.set(g, new window.KusariChart(canvas, tip));
        return el('div', { class: 'chart-cell' }, el('h3', { text: g }), el('div', { class: 'chart-wrap' }, canvas, tip));
      });
      if (!panels.length) panels.push(el('p', { class: 'muted empty', text: 'Pick a metric to plot.' }));
      this.container.replaceChildren(...panels);
    }

    /* series: [{resultId, key, points}], runs: Map id -> {name, index} */
    draw(series, runs, opts) {
      const groups = groupKeys(opts.keys);
      this.layout(groups);
      const xi = X_AXES[opts.xAxis];
      const keyCount = new Map(groups.map(([g, ks]) => [g, ks.length]));
      this.plotted = [];
      for (const [g, chart] of this.charts) {
        const list = series.filter((s) => groupOf(s.key) === g && runs.has(s.resultId)).map((s) => {
          const run = runs.get(s.resultId);
          const raw = s.points.map((p) => [p[xi] === null ? p[0] : p[xi], p[4]]);
          // One run: name the metric; several: name the run (and the
          // metric when train and validation share the chart).
          const label = opts.single ? s.key : run.name + (keyCount.get(g) > 1 ? ' · ' + s.key : '');
          return { label,
            key: s.key, resultId: s.resultId, raw, color: window.KusariChart.color(run.index),
            dash: s.key.startsWith('validation/'), points: window.KusariChart.smooth(raw, opts.smoothing || 0) };
        });
        list.sort((a, b) => a.resultId - b.resultId || a.key.localeCompare(b.key));
        this.plotted.push(...list);
        chart.setData(list, { logY: !!opts.logY, xLabel: opts.xAxis, yLabel: g });
      }
    }

    toPNG(filename) {
      const canvases = [...this.charts.values()].map((c) => { c.hoverX = null; c.draw(); return c.canvas; });
      if (!canvases.length) return;
      const out = document.createElement('canvas');
      out.width = canvases.reduce((w, c) => w + c.width, 0);
      out.height = Math.max(...canvases.map((c) => c.height));
      const ctx = out.getContext('2d');
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, out.width, out.height);
      let x = 0;
      for (const c of canvases) { ctx.drawImage(c, x, 0); x += c.width; }
      const a = el('a', { href: out.toDataURL('image/png'), download: filename });
      document.body.append(a); a.click(); a.remove();
    }
  }

  /* ---------- commands panel (project view and run page) ---------- */
  async function sendCommand(pid, r, name, body, after) {
    try {
      await api('/projects/' + pid + '/results/' + r.id + '/commands', { json: { name, body } });
      toast(name + ' sent to ' + r.name);
    } catch (err) { toast(err.message); }
    await after();
  }

  /* Fills panel with the run's commands, history and snapshots. Commands are
   * disabled (with the server's reason as tooltip) unless a CommandsExtension
   * listens. isCurrent() tells whether the panel still shows this run. */
  async function renderCommandPanel(panel, pid, r, head, isCurrent) {
    const rerender = () => renderCommandPanel(panel, pid, r, head, isCurrent);
    if (r.source !== 'folder') {
      panel.replaceChildren(...head.filter(Boolean), el('p', { class: 'muted', text: 'This run is logged over HTTP; it has no folder to send commands through.' }));
      return;
    }
    let hist = [], snaps = [];
    const notes = [];
    try {
      [hist, snaps] = await Promise.all([
        api('/projects/' + pid + '/results/' + r.id + '/commands').then((d) => d.commands),
        api('/projects/' + pid + '/results/' + r.id + '/snapshots').then((d) => d.snapshots)]);
    } catch (err) { notes.push(el('p', { class: 'muted', text: err.message })); }
    if (!isCurrent()) return;
    // Do not rebuild the form under the user's cursor; the next poll will.
    const active = document.activeElement;
    if (active && panel.contains(active) && active.tagName === 'INPUT') return;
    const off = !r.listening;
    const why = off ? 'Commands are off: ' + (r.commandsDisabledReason || 'nothing listens') : null;
    const hpName = el('input', { type: 'text', id: 'hp-name', value: 'lr', size: 8, disabled: off, title: why });
    const hpValue = el('input', { type: 'number', id: 'hp-value', step: 'any', size: 8, placeholder: 'value', disabled: off, title: why });
    const opt = el('input', { type: 'text', id: 'hp-optimizer', value: 'main', size: 6, title: why || 'optimizer name', disabled: off });
    const old = panel.querySelector('#hp-value');
    if (old) { hpName.value = panel.querySelector('#hp-name').value; hpValue.value = old.value; opt.value = panel.querySelector('#hp-optimizer').value; }
    panel.replaceChildren(...[...head, ...notes,
      off ? el('p', { class: 'muted', id: 'commands-note', text: why }) : null].filter(Boolean),
      el('div', { class: 'toolbar' },
        el('button', { class: 'danger', id: 'cmd-stop', text: 'Stop', disabled: off, title: why || 'stop training after this iteration',
          onclick: () => sendCommand(pid, r, 'stop', {}, rerender) }),
        el('button', { id: 'cmd-snapshot', text: 'Take snapshot', disabled: off, title: why,
          onclick: () => sendCommand(pid, r, 'take_snapshot', {}, rerender) })),
      el('form', { class: 'inline', onsubmit: (e) => {
        e.preventDefault();
        const v = Number(hpValue.value);
        if (!hpName.value || hpValue.value === '' || !Number.isFinite(v)) { toast('enter a hyperparameter and a number'); return; }
        sendCommand(pid, r, 'adjust_hyperparams', { optimizer: opt.value || 'main', hyperparams: { [hpName.value]: v } }, rerender);
      } }, opt, hpName, '=', hpValue, el('button', { class: 'primary', id: 'cmd-adjust', type: 'submit', text: 'Adjust', disabled: off, title: why })),
      el('h2', { text: 'History' }),
      el('table', { class: 'grid history', id: 'command-history' },
        el('colgroup', {}, ['time', 'command', 'status', 'response'].map((c) => el('col', { class: 'col-' + c }))),
        el('thead', {}, el('tr', {}, ['time', 'command', 'status', 'response'].map((h) => el('th', { text: h, title: h })))),
        el('tbody', {}, hist.slice().reverse().map((c) => el('tr', {},
          el('td', { text: (c.requestedAt || '').replace('T', ' ').slice(0, 19) }),
          el('td', { text: c.name + (c.body && c.body.hyperparams ? ' ' + JSON.stringify(c.body.hyperparams) : '') }),
          el('td', {}, statusBadge(c.status, c.status === 'timed_out' ? 'no answer from the job in time' : null)),
          el('td', { text: c.response === null || c.response === undefined ? '' : JSON.stringify(c.response), title: JSON.stringify(c.response) }))))),
      el('h2', { text: 'Snapshots' }),
      snaps.length ? el('ul', { id: 'snapshots' }, snaps.map((s) => el('li', {}, el('a', {
        href: API + '/projects/' + pid + '/results/' + r.id + '/snapshots/' + encodeURIComponent(s.name), text: s.name }),
      el('span', { class: 'muted', text: ' ' + (s.size / 1024).toFixed(1) + ' KiB' })))) : el('p', { class: 'muted', text: 'none' }));
  }

  /* Status line of a run: badge, entries, the failure text and any problem
   * met reading its files (undecodable bytes, skipped entries...). */
  function statusLine(r) {
    const warnings = r.warnings || [];
    return [el('p', {}, statusBadge(r.status, r.statusError || null), ' ',
      el('span', { class: 'muted', text: fmtInt(r.nEntries) + ' entries' })),
    r.statusError ? el('p', { class: 'status-error', id: 'status-error', text: r.statusError }) : null,
    warnings.length ? el('ul', { class: 'run-warnings', id: 'run-warnings' },
      warnings.map((w) => el('li', { text: w }))) : null].filter(Boolean);
  }

  window.KusariUI = { API, X_AXES, el, api, toast, fmtInt, cellText, statusBadge, statusLine, indexingBanner,
    groupOf, groupKeys, defaultKeys, ChartGrid, renderCommandPanel };
})();
