/* kusari-ui run page (#/projects/<p>/results/<r>): every metric of one run as
 * charts, its args, snapshots and command history. Exposes window.KusariRunPage.
 * Data reaches the DOM through textContent only (see common.js). */
'use strict';
(function () {
  const U = window.KusariUI;
  const { X_AXES, el, api } = U;

  async function show(pid, rid, ctx) {
    const base = '/projects/' + pid + '/results/' + rid;
    const [project, first] = await Promise.all([
      api('/projects/' + pid).then((d) => d.project), api(base).then((d) => d.result)]);
    const state = { xAxis: 'iteration', result: first, series: [] };
    const crumbName = el('span', { id: 'run-crumb', text: first.name });
    ctx.setCrumbs(el('a', { href: '#/', text: 'projects' }),
      el('a', { href: '#/projects/' + pid, text: project.name }), crumbName);
    const header = el('div', { id: 'run-header' });
    const charts = el('div', { class: 'charts', id: 'run-charts' });
    const argsBody = el('tbody');
    const commands = el('section', { class: 'panel', id: 'commands-panel' });
    const xSel = el('select', { id: 'run-x-axis', onchange: (e) => { state.xAxis = e.target.value; draw(); } },
      Object.keys(X_AXES).map((k) => el('option', { value: k, text: k })));
    view().replaceChildren(
      el('section', { class: 'panel', id: 'run-page', 'data-id': rid }, header),
      el('div', { class: 'layout' },
        el('section', { class: 'panel' },
          el('div', { class: 'toolbar' }, el('h2', { text: 'Metrics', class: 'grow' }), el('label', {}, 'x ', xSel),
            el('button', { id: 'run-png', text: 'PNG', onclick: () => grid.toPNG(state.result.name + '.png') })),
          charts),
        el('div', {},
          el('section', { class: 'panel' }, el('h2', { text: 'Args' }),
            el('div', { class: 'table-wrap' }, el('table', { class: 'grid', id: 'run-args' },
              el('thead', {}, el('tr', {}, el('th', { text: 'arg' }), el('th', { text: 'value' }))), argsBody))),
          commands)));
    const grid = new U.ChartGrid(charts, 'run-chart');

    function view() { return ctx.view; }

    function metricKeys() {
      return Object.keys(state.result.lastValues).filter((k) => !(k in X_AXES)).sort();
    }

    function draw() {
      const keys = metricKeys();
      grid.draw(state.series, new Map([[rid, { name: state.result.name, index: 0 }]]),
        { keys, xAxis: state.xAxis, single: true });
    }

    function renderHeader() {
      const r = state.result;
      crumbName.textContent = r.name;
      header.replaceChildren(
        el('div', { class: 'toolbar' }, el('h2', { class: 'grow', id: 'run-name', text: r.name }),
          el('a', { href: '#/projects/' + pid, text: '← all runs of ' + project.name })),
        ...U.statusLine(r),
        el('p', { class: 'muted', text: (r.source === 'folder' ? 'folder ' + r.pathName : 'logged over HTTP') +
          (r.lastValues.iteration !== undefined ? ' · iteration ' + U.cellText(r.lastValues.iteration, 'iteration') : '') +
          (r.lastValues.epoch !== undefined ? ' · epoch ' + U.cellText(r.lastValues.epoch, 'epoch') : '') }));
      const args = Object.entries(r.args).sort((a, b) => a[0].localeCompare(b[0]));
      argsBody.replaceChildren(...args.map(([k, v]) => el('tr', {},
        el('td', { class: 'arg', text: k, title: k }), el('td', { text: U.cellText(v, k), title: U.cellText(v, k) }))));
      if (!args.length) argsBody.append(el('tr', {}, el('td', { colspan: 2, class: 'empty', text: 'no args file' })));
    }

    async function refresh() {
      state.result = (await api(base)).result;
      renderHeader();
      const keys = metricKeys();
      state.series = keys.length
        ? (await api('/projects/' + pid + '/series?keys=' + keys.map(encodeURIComponent).join(',') + '&results=' + rid)).series
        : [];
      draw();
      await U.renderCommandPanel(commands, pid, state.result, [el('h2', { text: 'Commands' })],
        () => document.getElementById('run-page') !== null && location.hash === '#' + base);
    }

    await refresh();
    ctx.schedule(refresh);
  }

  window.KusariRunPage = { show };
})();
