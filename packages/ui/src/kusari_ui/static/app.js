/* kusari-ui page: projects, results table, charts, commands; routing.
 * Vanilla JS on top of common.js (window.KusariUI). Every piece of data
 * reaches the DOM through textContent or attribute setters, never HTML
 * parsing, so run names/args/keys cannot inject markup. */
'use strict';
(function () {
  const U = window.KusariUI;
  const { API, X_AXES, el, api, toast, cellText } = U;
  const POLL_MS = Number(document.body.dataset.pollMs) || 3000;
  const view = document.getElementById('view');
  const crumbs = document.getElementById('crumbs');
  const liveBox = document.getElementById('live');
  let timer = null;
  let S = null; // state of the project view

  function setCrumbs(...parts) {
    crumbs.replaceChildren(...parts.flatMap((p, i) => (i ? [el('span', { class: 'sep', text: '/' }), p] : [p])));
  }

  function schedule(fn) {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      if (liveBox.checked) { try { await fn(); } catch (e) { /* shown by net dot */ } }
      schedule(fn);
    }, POLL_MS);
  }

  /* ---------- projects list ---------- */
  async function showProjects() {
    S = null;
    setCrumbs(el('a', { href: '#/', text: 'projects' }));
    const tbody = el('tbody');
    const pathIn = el('input', { type: 'text', placeholder: '/path/to/result', size: 40, id: 'new-path' });
    const nameIn = el('input', { type: 'text', placeholder: 'name (optional)', id: 'new-name' });
    const form = el('form', { class: 'inline', onsubmit: async (e) => {
      e.preventDefault();
      try {
        await api('/projects', { json: { path: pathIn.value, name: nameIn.value || undefined } });
        pathIn.value = ''; nameIn.value = '';
        await load();
      } catch (err) { toast(err.message); }
    } }, pathIn, nameIn, el('button', { class: 'primary', type: 'submit', text: 'Register folder' }));
    const banner = el('div', { class: 'banner-slot' });
    view.replaceChildren(banner, el('section', { class: 'panel' }, el('h2', { text: 'Projects' }),
      el('div', { class: 'table-wrap' }, el('table', { class: 'grid', id: 'projects' },
        el('thead', {}, el('tr', {}, ['id', 'name', 'folder', 'runs', 'last crawl'].map((h) => el('th', { text: h })))),
        tbody)),
      el('div', { class: 'toolbar' }), form));
    async function load() {
      const data = await api('/projects');
      banner.replaceChildren(...[U.indexingBanner(data.crawling)].filter(Boolean));
      tbody.replaceChildren(...data.projects.map((p) => el('tr', {},
        el('td', { class: 'num', text: p.id }),
        el('td', {}, el('a', { href: '#/projects/' + p.id, text: p.name })),
        el('td', { class: 'muted', text: p.path || '(logged over HTTP)' }),
        el('td', { class: 'num', text: U.fmtInt(p.resultCount) }),
        el('td', { class: 'muted', text: (p.crawledAt || '').replace('T', ' ').slice(0, 19) }))));
      if (!data.projects.length) {
        tbody.append(el('tr', {}, el('td', { colspan: 5, class: 'empty', text: 'No projects yet: register a result folder below, or run `kusari-ui project create -d DIR`.' })));
      }
    }
    await load();
    schedule(load);
  }

  /* ---------- project view ---------- */
  function storageKey(pid) { return 'kusari-ui:' + pid; }

  async function showProject(pid) {
    const saved = JSON.parse(localStorage.getItem(storageKey(pid)) || '{}');
    S = { pid, results: [], project: null, sort: saved.sort || { key: 'id', dir: 1 },
      filter: '', hidden: new Set(saved.hidden || []), selected: new Set(saved.selected || []),
      yKeys: new Set(saved.yKeys || []), xAxis: saved.xAxis || 'iteration',
      smoothing: saved.smoothing || 0, logY: !!saved.logY, focused: saved.focused || null,
      series: [], first: !saved.selected };
    const project = (await api('/projects/' + pid)).project;
    S.project = project;
    setCrumbs(el('a', { href: '#/', text: 'projects' }), el('span', { text: project.name }));
    buildProjectView();
    await refresh();
    schedule(refresh);
  }

  function persist() {
    localStorage.setItem(storageKey(S.pid), JSON.stringify({ sort: S.sort, hidden: [...S.hidden],
      selected: [...S.selected], yKeys: [...S.yKeys], xAxis: S.xAxis, smoothing: S.smoothing,
      logY: S.logY, focused: S.focused }));
  }

  function buildProjectView() {
    const filter = el('input', { type: 'text', id: 'filter', placeholder: 'filter runs (name, args, status)', size: 32,
      oninput: (e) => { S.filter = e.target.value.toLowerCase(); renderTable(); } });
    const colBtn = el('button', { id: 'columns-btn', text: 'Columns ▾', onclick: (e) => { e.stopPropagation(); toggleChooser(); } });
    const smooth = el('input', { type: 'range', min: 0, max: 0.99, step: 0.01, id: 'smoothing', value: S.smoothing,
      oninput: (e) => { S.smoothing = Number(e.target.value); persist(); drawChart(); } });
    const xSel = el('select', { id: 'x-axis', onchange: (e) => { S.xAxis = e.target.value; persist(); drawChart(); } },
      Object.keys(X_AXES).map((k) => el('option', { value: k, text: k, selected: k === S.xAxis ? 'selected' : null })));
    const logBox = el('input', { type: 'checkbox', id: 'log-y', checked: S.logY,
      onchange: (e) => { S.logY = e.target.checked; persist(); drawChart(); } });
    const charts = el('div', { class: 'charts', id: 'charts' });
    view.replaceChildren(
      el('div', { class: 'banner-slot', id: 'banner' }),
      el('section', { class: 'panel' },
        el('div', { class: 'toolbar' }, el('h2', { text: 'Runs', class: 'grow' }), filter, colBtn,
          el('button', { text: 'Select all', onclick: () => setAll(true) }),
          el('button', { text: 'Clear', onclick: () => setAll(false) })),
        el('div', { class: 'chooser-anchor' }),
        el('div', { class: 'table-wrap' }, el('table', { class: 'grid', id: 'results' }, el('thead'), el('tbody')))),
      el('div', { class: 'layout' },
        el('section', { class: 'panel' },
          el('div', { class: 'toolbar' }, el('h2', { text: 'Chart', class: 'grow' }),
            el('label', {}, 'x ', xSel), el('label', {}, 'smoothing ', smooth),
            el('label', {}, logBox, ' log y'),
            el('button', { id: 'png', text: 'PNG', onclick: () => S.grid.toPNG(S.project.name + '.png') }),
            el('button', { id: 'csv', text: 'CSV', onclick: exportCSV })),
          el('div', { class: 'metrics', id: 'metric-picker' }),
          charts),
        el('section', { class: 'panel', id: 'commands-panel' })));
    S.grid = new U.ChartGrid(charts, 'chart');
    document.addEventListener('click', closeChooser);
  }

  function setAll(on) {
    S.selected = new Set(on ? visibleResults().map((r) => r.id) : []);
    persist(); renderTable(); loadSeries();
  }

  async function refresh() {
    if (!S) return;
    const [data, pdata] = await Promise.all([api('/projects/' + S.pid + '/results'), api('/projects/' + S.pid)]);
    S.results = data.results;
    const slot = document.getElementById('banner');
    if (slot) slot.replaceChildren(...[U.indexingBanner(pdata.project.indexing)].filter(Boolean));
    if (S.first && S.results.length) {
      S.results.slice(0, 5).forEach((r) => S.selected.add(r.id));
      S.first = false;
    }
    const keys = metricKeys();
    if (!S.yKeys.size || ![...S.yKeys].some((k) => keys.includes(k))) {
      S.yKeys = new Set(U.defaultKeys(keys));
    }
    renderTable(); renderMetricPicker();
    await Promise.all([loadSeries(), renderCommands()]);
  }

  function metricKeys() {
    const set = new Set();
    for (const r of S.results) for (const k of Object.keys(r.lastValues)) set.add(k);
    return [...set].sort();
  }

  function columns() {
    const args = new Set();
    for (const r of S.results) for (const k of Object.keys(r.args)) args.add(k);
    return [
      { id: 'name', label: 'name', get: (r) => r.name },
      { id: 'status', label: 'status', get: (r) => r.status },
      { id: 'nEntries', label: 'entries', key: 'nEntries', get: (r) => r.nEntries, num: true },
      ...[...args].sort().map((k) => ({ id: 'arg:' + k, label: k, cls: 'arg', get: (r) => r.args[k] })),
      ...metricKeys().map((k) => ({ id: 'm:' + k, label: k, key: k, cls: 'metric', num: true, get: (r) => r.lastValues[k] })),
    ];
  }

  function visibleResults() {
    const f = S.filter;
    let rows = S.results;
    if (f) {
      rows = rows.filter((r) => (r.name + ' ' + r.status + ' ' + Object.entries(r.args).map(([k, v]) => k + '=' + v).join(' '))
        .toLowerCase().includes(f));
    }
    const col = columns().find((c) => c.id === S.sort.key) || { get: (r) => r.id };
    return rows.slice().sort((a, b) => {
      const x = col.get(a), y = col.get(b);
      if (x === undefined || x === null) return 1;
      if (y === undefined || y === null) return -1;
      const d = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true });
      return d * S.sort.dir;
    });
  }

  function renderTable() {
    const cols = columns().filter((c) => !S.hidden.has(c.id));
    const table = document.getElementById('results');
    const head = el('tr', {}, el('th', { text: '✓', title: 'plot this run' }), cols.map((c) => el('th', {
      class: c.cls, title: c.label, 'data-col': c.id,
      text: c.label + (S.sort.key === c.id ? (S.sort.dir > 0 ? ' ▲' : ' ▼') : ''),
      onclick: () => { S.sort = { key: c.id, dir: S.sort.key === c.id ? -S.sort.dir : 1 }; persist(); renderTable(); },
    })));
    const rows = visibleResults().map((r, i) => el('tr', { 'data-id': r.id, class: r.id === S.focused ? 'focused' : null },
      el('td', {}, el('input', { type: 'checkbox', class: 'sel', checked: S.selected.has(r.id), title: 'plot',
        onchange: (e) => { if (e.target.checked) S.selected.add(r.id); else S.selected.delete(r.id); persist(); loadSeries(); } })),
      cols.map((c) => {
        if (c.id === 'name') {
          return el('td', { title: r.pathName }, el('span', { class: 'runname', text: r.name, onclick: () => focus(r.id) }), ' ',
            el('a', { class: 'runlink', href: '#/projects/' + S.pid + '/results/' + r.id, title: 'open the page of this run', text: '↗' }),
            (r.warnings || []).length ? el('span', { class: 'warn-mark', title: r.warnings.join('\n'), text: ' ⚠' }) : null);
        }
        if (c.id === 'status') return el('td', {}, U.statusBadge(r.status, r.statusError || r.commandsDisabledReason));
        const text = cellText(c.get(r), c.key);
        return el('td', { class: c.num ? 'num' : null, text, title: text });
      })));
    if (!rows.length) rows.push(el('tr', {}, el('td', { colspan: cols.length + 1, class: 'empty', text: S.results.length ? 'No run matches the filter.' : 'No runs found yet in this project folder.' })));
    table.tHead.replaceChildren(head);
    table.tBodies[0].replaceChildren(...rows);
  }

  function toggleChooser() {
    const anchor = document.querySelector('.chooser-anchor');
    if (anchor.firstChild) { anchor.replaceChildren(); return; }
    const box = el('div', { class: 'colchooser', id: 'column-chooser', onclick: (e) => e.stopPropagation() },
      columns().map((c) => el('label', {}, el('input', { type: 'checkbox', checked: !S.hidden.has(c.id), 'data-col': c.id,
        onchange: (e) => { if (e.target.checked) S.hidden.delete(c.id); else S.hidden.add(c.id); persist(); renderTable(); } }), ' ' + c.label)));
    anchor.append(box);
  }
  function closeChooser() { const a = document.querySelector('.chooser-anchor'); if (a) a.replaceChildren(); }

  function renderMetricPicker() {
    const box = document.getElementById('metric-picker');
    box.replaceChildren(...metricKeys().filter((k) => !(k in X_AXES) || S.yKeys.has(k)).map((k) => el('label', {},
      el('input', { type: 'checkbox', 'data-key': k, checked: S.yKeys.has(k),
        onchange: (e) => { if (e.target.checked) S.yKeys.add(k); else S.yKeys.delete(k); persist(); loadSeries(); } }), ' ' + k)));
  }

  async function loadSeries() {
    const ids = [...S.selected].filter((id) => S.results.some((r) => r.id === id));
    if (!ids.length || !S.yKeys.size) { S.series = []; drawChart(); return; }
    const q = '?keys=' + [...S.yKeys].map(encodeURIComponent).join(',') + '&results=' + ids.join(',');
    const data = await api('/projects/' + S.pid + '/series' + q);
    S.series = data.series;
    drawChart();
  }

  function drawChart() {
    if (!S || !S.grid) return;
    // A run keeps its hue across charts: train solid, validation dashed.
    const ids = S.results.map((r) => r.id).filter((id) => S.selected.has(id)).sort((a, b) => a - b);
    const runs = new Map(S.results.map((r) => [r.id, { name: r.name, index: ids.indexOf(r.id) }]));
    S.grid.draw(S.series, runs, { keys: [...S.yKeys], xAxis: S.xAxis, smoothing: S.smoothing, logY: S.logY });
    S.plotted = S.grid.plotted;
  }

  function exportCSV() {
    const q = (v) => '"' + String(v).replace(/"/g, '""') + '"';
    const lines = ['run,metric,' + S.xAxis + ',value,smoothed'];
    for (const s of S.plotted || []) {
      s.raw.forEach((p, i) => lines.push([q(s.label), q(s.key), p[0], p[1], s.points[i][1]].join(',')));
    }
    const a = el('a', { href: URL.createObjectURL(new Blob([lines.join('\n') + '\n'], { type: 'text/csv' })),
      download: S.project.name + '.csv' });
    document.body.append(a); a.click(); a.remove();
  }

  /* ---------- commands ---------- */
  function focus(id) { S.focused = id; persist(); renderTable(); renderCommands(); }

  async function renderCommands() {
    const panel = document.getElementById('commands-panel');
    if (!panel) return;
    const r = S.results.find((x) => x.id === S.focused);
    if (!r) {
      panel.replaceChildren(el('h2', { text: 'Commands' }), el('p', { class: 'muted', text: 'Click a run name to steer it.' }));
      return;
    }
    const head = [el('h2', {}, 'Commands · ', el('a', { id: 'focused-name', href: '#/projects/' + S.pid + '/results/' + r.id,
      text: r.name, title: 'open the page of this run' })), ...U.statusLine(r)];
    const pid = S.pid;
    await U.renderCommandPanel(panel, pid, r, head, () => S && S.pid === pid && S.focused === r.id);
  }

  /* ---------- routing ---------- */
  function route() {
    clearTimeout(timer);
    document.removeEventListener('click', closeChooser);
    const run = location.hash.match(/^#\/projects\/(\d+)\/results\/(\d+)/);
    const m = location.hash.match(/^#\/projects\/(\d+)/);
    let p;
    if (run) {
      S = null;
      p = window.KusariRunPage.show(Number(run[1]), Number(run[2]), { view, setCrumbs, schedule });
    } else p = m ? showProject(Number(m[1])) : showProjects();
    p.catch((err) => view.replaceChildren(el('div', { class: 'panel empty', text: err.message })));
  }
  window.addEventListener('hashchange', route);
  liveBox.addEventListener('change', () => { if (liveBox.checked && S) refresh(); });
  route();
})();
