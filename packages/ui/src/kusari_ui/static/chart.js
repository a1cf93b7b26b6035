/* kusari-ui line chart: canvas, many series, log scale, hover, PNG export.
 * Hand-written, no dependencies. Exposes window.KusariChart.
 * Series: {label, color, dash, points: [[x, y], ...]} with x ascending-ish;
 * dash draws the line dashed (validation curves next to solid train ones). */
'use strict';
(function () {
  const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b',
    '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#393b79', '#e6550d', '#31a354',
    '#ad494a', '#6b6ecf', '#bd9e39'];

  function niceStep(span, count) {
    const raw = span / Math.max(1, count);
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const norm = raw / mag;
    const nice = norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10;
    return nice * mag;
  }

  function ticks(lo, hi, count) {
    if (!(hi > lo)) return [lo];
    const step = niceStep(hi - lo, count);
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
      out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    }
    return out;
  }

  function fmt(v) {
    if (v === null || v === undefined || Number.isNaN(v)) return '';
    const a = Math.abs(v);
    // Counts (iterations, entries) stay integers: 1,000,000 not 1.00e+6.
    if (Number.isInteger(v) && a < 1e15) return v.toLocaleString('en-US');
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2);
    return String(Number(v.toPrecision(5)));
  }

  class KusariChart {
    constructor(canvas, tooltip) {
      this.canvas = canvas;
      this.tooltip = tooltip;
      this.series = [];
      this.opts = { logY: false, xLabel: 'x', yLabel: '' };
      this.hoverX = null;
      this.margin = { l: 64, r: 16, t: 12, b: 40 };
      canvas.addEventListener('mousemove', (e) => this.onMove(e));
      canvas.addEventListener('mouseleave', () => this.onLeave());
      this.resizeObserver = typeof ResizeObserver !== 'undefined'
        ? new ResizeObserver(() => this.draw()) : null;
      if (this.resizeObserver) this.resizeObserver.observe(canvas);
    }

    static color(i) { return PALETTE[i % PALETTE.length]; }

    setData(series, opts) {
      this.series = series;
      Object.assign(this.opts, opts || {});
      this.draw();
    }

    ty(y) { return this.opts.logY ? Math.log10(y) : y; }

    visiblePoints(s) {
      return this.opts.logY ? s.points.filter((p) => p[1] > 0) : s.points;
    }

    bounds() {
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      for (const s of this.series) {
        for (const p of this.visiblePoints(s)) {
          const y = this.ty(p[1]);
          if (!Number.isFinite(p[0]) || !Number.isFinite(y)) continue;
          if (p[0] < x0) x0 = p[0];
          if (p[0] > x1) x1 = p[0];
          if (y < y0) y0 = y;
          if (y > y1) y1 = y;
        }
      }
      if (x0 === Infinity) return null;
      if (x1 === x0) { x0 -= 1; x1 += 1; }
      if (y1 === y0) { y0 -= 1; y1 += 1; }
      const pad = (y1 - y0) * 0.05;
      return { x0, x1, y0: y0 - pad, y1: y1 + pad };
    }

    legendRows(ctx, width) {
      const rows = [[]];
      let x = 0;
      for (const s of this.series) {
        const w = ctx.measureText(s.label).width + 26;
        if (x + w > width && rows[rows.length - 1].length) { rows.push([]); x = 0; }
        rows[rows.length - 1].push({ s, x });
        x += w;
      }
      return rows;
    }

    draw() {
      const c = this.canvas;
      const dpr = window.devicePixelRatio || 1;
      const W = c.clientWidth || 600, H = c.clientHeight || 400;
      if (c.width !== Math.round(W * dpr) || c.height !== Math.round(H * dpr)) {
        c.width = Math.round(W * dpr);
        c.height = Math.round(H * dpr);
      }
      const ctx = c.getContext('2d');
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, W, H);
      ctx.font = '12px system-ui, sans-serif';
      ctx.textAlign = 'left';
      const rows = this.series.length ? this.legendRows(ctx, W - 80) : [];
      const m = Object.assign({}, this.margin, { t: 12 + rows.length * 16 });
      this.plot = { l: m.l, t: m.t, w: W - m.l - m.r, h: H - m.t - m.b };
      rows.forEach((row, i) => {
        for (const it of row) {
          ctx.fillStyle = it.s.color;
          if (it.s.dash) { // dashed series get a dashed swatch
            ctx.fillRect(m.l + it.x, 6 + i * 16, 5, 4);
            ctx.fillRect(m.l + it.x + 9, 6 + i * 16, 5, 4);
          } else ctx.fillRect(m.l + it.x, 6 + i * 16, 14, 4);
          ctx.fillStyle = '#1d2630';
          ctx.fillText(it.s.label, m.l + it.x + 18, 12 + i * 16);
        }
      });
      const b = this.bounds();
      this.b = b;
      c.dataset.series = String(this.series.length);
      c.dataset.points = String(this.series.reduce((n, s) => n + s.points.length, 0));
      // What is drawn, for tests and for anyone inspecting the page.
      c.dataset.dashed = String(this.series.filter((s) => s.dash).length);
      c.dataset.colors = [...new Set(this.series.map((s) => s.color))].join(' ');
      if (!b) {
        ctx.fillStyle = '#6b7785';
        ctx.fillText('no data to plot', W / 2 - 40, H / 2);
        return;
      }
      const P = this.plot;
      const sx = (x) => P.l + (x - b.x0) / (b.x1 - b.x0) * P.w;
      const sy = (y) => P.t + P.h - (y - b.y0) / (b.y1 - b.y0) * P.h;
      this.sx = sx; this.sy = sy;
      ctx.strokeStyle = '#e5e9ef';
      ctx.fillStyle = '#6b7785';
      ctx.lineWidth = 1;
      ctx.textAlign = 'center';
      for (const t of ticks(b.x0, b.x1, Math.max(2, P.w / 90))) {
        ctx.beginPath(); ctx.moveTo(sx(t), P.t); ctx.lineTo(sx(t), P.t + P.h); ctx.stroke();
        ctx.fillText(fmt(t), sx(t), P.t + P.h + 14);
      }
      ctx.textAlign = 'right';
      const yt = this.opts.logY
        ? ticks(Math.floor(b.y0), Math.ceil(b.y1), 6).filter((t) => Number.isInteger(t))
        : ticks(b.y0, b.y1, Math.max(2, P.h / 50));
      for (const t of yt) {
        if (t < b.y0 || t > b.y1) continue;
        ctx.beginPath(); ctx.moveTo(P.l, sy(t)); ctx.lineTo(P.l + P.w, sy(t)); ctx.stroke();
        ctx.fillText(this.opts.logY ? fmt(Math.pow(10, t)) : fmt(t), P.l - 6, sy(t) + 4);
      }
      ctx.textAlign = 'center';
      ctx.fillStyle = '#1d2630';
      ctx.fillText(this.opts.xLabel, P.l + P.w / 2, P.t + P.h + 32);
      ctx.save();
      ctx.translate(14, P.t + P.h / 2);
      ctx.rotate(-Math.PI / 2);
      ctx.fillText(this.opts.yLabel + (this.opts.logY ? ' (log)' : ''), 0, 0);
      ctx.restore();
      ctx.strokeStyle = '#9aa5b1';
      ctx.strokeRect(P.l, P.t, P.w, P.h);
      ctx.save();
      ctx.beginPath(); ctx.rect(P.l, P.t, P.w, P.h); ctx.clip();
      ctx.lineWidth = 1.5;
      for (const s of this.series) {
        const pts = this.visiblePoints(s);
        ctx.strokeStyle = s.color;
        ctx.setLineDash(s.dash ? [6, 4] : []);
        ctx.beginPath();
        let started = false;
        for (const p of pts) {
          const y = this.ty(p[1]);
          if (!Number.isFinite(p[0]) || !Number.isFinite(y)) { started = false; continue; }
          if (started) ctx.lineTo(sx(p[0]), sy(y)); else ctx.moveTo(sx(p[0]), sy(y));
          started = true;
        }
        ctx.stroke();
        if (pts.length === 1) {
          ctx.fillStyle = s.color;
          ctx.fillRect(sx(pts[0][0]) - 2, sy(this.ty(pts[0][1])) - 2, 4, 4);
        }
      }
      ctx.setLineDash([]);
      if (this.hoverX !== null) this.drawHover(ctx);
      ctx.restore();
    }

    nearest(s, x) {
      let best = null, bd = Infinity;
      for (const p of this.visiblePoints(s)) {
        const d = Math.abs(p[0] - x);
        if (d < bd) { bd = d; best = p; }
      }
      return best;
    }

    drawHover(ctx) {
      const P = this.plot, b = this.b;
      const x = b.x0 + (this.hoverX - P.l) / P.w * (b.x1 - b.x0);
      ctx.strokeStyle = 'rgba(0,0,0,.35)';
      ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(this.hoverX, P.t); ctx.lineTo(this.hoverX, P.t + P.h); ctx.stroke();
      const lines = [this.opts.xLabel + ' ≈ ' + fmt(x)];
      for (const s of this.series) {
        const p = this.nearest(s, x);
        if (!p) continue;
        ctx.fillStyle = s.color;
        ctx.beginPath(); ctx.arc(this.sx(p[0]), this.sy(this.ty(p[1])), 3, 0, 7); ctx.fill();
        lines.push(s.label + ': ' + fmt(p[1]) + '  @' + fmt(p[0]));
      }
      if (this.tooltip) {
        this.tooltip.textContent = lines.join('\n');
        this.tooltip.hidden = false;
        const left = this.hoverX + 14 > P.l + P.w * 0.6 ? this.hoverX - 14 - this.tooltip.offsetWidth
          : this.hoverX + 14;
        this.tooltip.style.left = Math.max(0, left) + 'px';
        this.tooltip.style.top = (P.t + 8) + 'px';
      }
    }

    onMove(e) {
      if (!this.b) return;
      const r = this.canvas.getBoundingClientRect();
      const x = e.clientX - r.left;
      const P = this.plot;
      this.hoverX = x >= P.l && x <= P.l + P.w ? x : null;
      if (this.hoverX === null && this.tooltip) this.tooltip.hidden = true;
      this.draw();
    }

    onLeave() {
      this.hoverX = null;
      if (this.tooltip) this.tooltip.hidden = true;
      this.draw();
    }

    toPNG(filename) {
      const hx = this.hoverX;
      this.hoverX = null;
      this.draw();
      const a = document.createElement('a');
      a.href = this.canvas.toDataURL('image/png');
      a.download = filename;
      document.body.appendChild(a);
      a.click();
      a.remove();
      this.hoverX = hx;
    }
  }

  /* Debiased exponential moving average (as TensorBoard's smoothing slider). */
  KusariChart.smooth = function (points, weight) {
    if (!(weight > 0)) return points;
    let last = 0, n = 0;
    return points.map((p) => {
      n += 1;
      last = last * weight + (1 - weight) * p[1];
      return [p[0], last / (1 - Math.pow(weight, n))];
    });
  };
  KusariChart.fmt = fmt;
  window.KusariChart = KusariChart;
})();
