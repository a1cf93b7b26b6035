"""Fused recurrent layers shared by ``n_step_lstm``/``gru``/``rnn`` and their links.

Sequences travel *packed*: the time-major list ``xs[t]`` (``B_t`` rows, sorted
by decreasing length) concatenated along the first axis, with
``batch_sizes[t] = B_t``. One :class:`RNNLayer` node runs one layer in one
direction:

* the input projection of every time step is one GEMM (``x @ W_x^T``);
* only the recurrent part loops over time steps, on the first ``B_t`` rows;
* backward loops over time once more and finishes the weight gradients with
  one GEMM each (``gZ^T @ x``, ``gZ^T @ h_prev``).

Double backprop re-runs the layer as a composition of differentiable ops
(see :func:`composed_layer`) and differentiates that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from kusari import backend, configuration
from kusari.function_node import FunctionNode, grad
from kusari.functions.rnn import _ops
from kusari.utils import type_check
from kusari.variable import Variable

N_WEIGHTS = {"lstm": 8, "gru": 6, "rnn_tanh": 2, "rnn_relu": 2}


def _sigmoid_(z: Any, xp: Any) -> None:
    """In-place logistic sigmoid as ``1 / (1 + exp(-z))`` (exp is cheaper than tanh);
    an overflowing ``exp`` gives inf and the correct limit 0."""
    with numpy.errstate(over="ignore"):
        xp.negative(z, out=z)
        xp.exp(z, out=z)
        z += z.dtype.type(1)
        xp.reciprocal(z, out=z)


class RNNLayer(FunctionNode):
    """One layer, one direction. Inputs ``(x, h0[, c0], w..., b...)``;
    outputs ``(y, hy[, cy])`` with ``y`` packed like ``x``."""

    def __init__(self, mode: str, batch_sizes: Sequence[int], reverse: bool) -> None:
        self.mode = mode
        self.batch_sizes = tuple(int(b) for b in batch_sizes)
        offs = [0]
        for b in self.batch_sizes:
            offs.append(offs[-1] + b)
        self.offsets = offs
        steps = range(len(self.batch_sizes))
        self.order = list(reversed(steps)) if reverse else list(steps)
        self.reverse = reverse
        self.n_w = N_WEIGHTS[mode]
        self.use_cell = mode == "lstm"
        self._saved: tuple[Any, ...] = ()
        self._y: Any = None
        self._need_gx = True

    @property
    def label(self) -> str:
        return f"RNNLayer({self.mode})"

    def _split_inputs(
        self, inputs: Sequence[Any]
    ) -> tuple[Any, Any, Any, list[Any], list[Any]]:
        x, h0 = inputs[0], inputs[1]
        k = 2
        c0 = None
        if self.use_cell:
            c0 = inputs[2]
            k = 3
        ws = list(inputs[k : k + self.n_w])
        bs = list(inputs[k + self.n_w : k + 2 * self.n_w])
        return x, h0, c0, ws, bs

    def check_type_forward(self, in_types: Any) -> None:
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == 2)
        for t in in_types[1:]:
            type_check.expect(t.dtype == x_type.dtype)

    # -- forward ---------------------------------------------------------
    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        x, h0, c0, ws, bs = self._split_inputs(inputs)
        xp = backend.get_array_module(x)
        self._xp = xp
        if self.mode == "lstm":
            return self._forward_lstm(xp, x, h0, c0, ws, bs)
        if self.mode == "gru":
            return self._forward_gru(xp, x, h0, ws, bs)
        return self._forward_rnn(xp, x, h0, ws, bs)

    def _forward_lstm(
        self, xp: Any, x: Any, h0: Any, c0: Any, ws: list[Any], bs: list[Any]
    ) -> tuple[Any, ...]:
        # Internal gate order i, f, o, a (the three sigmoids are contiguous).
        H = h0.shape[1]
        Wx = xp.concatenate([ws[0], ws[1], ws[3], ws[2]])
        Wh = xp.concatenate([ws[4], ws[5], ws[7], ws[6]])
        bias = xp.concatenate(
            [bs[0] + bs[4], bs[1] + bs[5], bs[3] + bs[7], bs[2] + bs[6]]
        )
        z = x @ Wx.T
        z += bias
        WhT = Wh.T
        n = x.shape[0]
        h = h0.copy()
        c = c0.copy()
        y = xp.empty((n, H), dtype=x.dtype)
        tcs = xp.empty_like(y)
        hprev = xp.empty_like(y)
        cprev = xp.empty_like(y)
        offs, bsz = self.offsets, self.batch_sizes
        H3 = 3 * H
        for t in self.order:
            s, b = offs[t], bsz[t]
            e = s + b
            zt = z[s:e]
            hp = h[:b]
            zt += hp @ WhT
            hprev[s:e] = hp
            cp = c[:b]
            cprev[s:e] = cp
            _sigmoid_(zt[:, :H3], xp)
            a = zt[:, H3:]
            xp.tanh(a, out=a)
            cn = zt[:, :H] * a
            cn += zt[:, H : 2 * H] * cp
            c[:b] = cn
            tc = tcs[s:e]
            xp.tanh(cn, out=tc)
            hn = y[s:e]
            xp.multiply(zt[:, 2 * H : H3], tc, out=hn)
            h[:b] = hn
        self._saved = (Wx, Wh, z, tcs, hprev, cprev)
        return y, h, c

    def _forward_gru(
        self, xp: Any, x: Any, h0: Any, ws: list[Any], bs: list[Any]
    ) -> tuple[Any, ...]:
        H = h0.shape[1]
        Wx = xp.concatenate(ws[0:3])
        Wh = xp.concatenate(ws[3:6])
        bh = xp.concatenate(bs[3:6])
        z = x @ Wx.T
        z += xp.concatenate(bs[0:3])
        WhT = Wh.T
        n = x.shape[0]
        h = h0.copy()
        y = xp.empty((n, H), dtype=x.dtype)
        hwn = xp.empty_like(y)
        hprev = xp.empty_like(y)
        offs, bsz = self.offsets, self.batch_sizes
        H2 = 2 * H
        for t in self.order:
            s, b = offs[t], bsz[t]
            e = s + b
            zt = z[s:e]
            hp = h[:b]
            hprev[s:e] = hp
            hw = hp @ WhT
            hw += bh
            rz = zt[:, :H2]
            rz += hw[:, :H2]
            _sigmoid_(rz, xp)
            hwn[s:e] = hw[:, H2:]
            nt = zt[:, H2:]
            nt += zt[:, :H] * hw[:, H2:]
            xp.tanh(nt, out=nt)
            hn = y[s:e]
            xp.subtract(hp, nt, out=hn)
            hn *= zt[:, H:H2]
            hn += nt
            h[:b] = hn
        self._saved = (Wx, Wh, z, hwn, hprev)
        return y, h

    def _forward_rnn(
        self, xp: Any, x: Any, h0: Any, ws: list[Any], bs: list[Any]
    ) -> tuple[Any, ...]:
        Wx, Wh = ws
        y = x @ Wx.T
        y += bs[0] + bs[1]
        WhT = Wh.T
        h = h0.copy()
        hprev = xp.empty((x.shape[0], h0.shape[1]), dtype=x.dtype)
        offs, bsz = self.offsets, self.batch_sizes
        relu = self.mode == "rnn_relu"
        for t in self.order:
            s, b = offs[t], bsz[t]
            e = s + b
            yt = y[s:e]
            hp = h[:b]
            hprev[s:e] = hp
            yt += hp @ WhT
            if relu:
                xp.maximum(yt, 0, out=yt)
            else:
                xp.tanh(yt, out=yt)
            h[:b] = yt
        self._saved = (hprev,)
        self._y = y
        return y, h

    # -- backward --------------------------------------------------------
    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        inputs = self.get_retained_inputs()
        if configuration.config.enable_backprop:
            return self._backward_composed(indexes, inputs, grad_outputs)
        arrays = [v.array for v in inputs]
        gouts = [None if g is None else g.array for g in grad_outputs]
        x, h0, c0, ws, bs = self._split_inputs(arrays)
        xp = backend.get_array_module(x)
        self._need_gx = 0 in indexes
        if self.mode == "lstm":
            grads = self._backward_lstm(xp, x, h0, c0, ws, bs, gouts)
        elif self.mode == "gru":
            grads = self._backward_gru(xp, x, h0, ws, gouts)
        else:
            grads = self._backward_rnn(xp, x, h0, ws, gouts)
        return tuple(Variable(grads[i]) for i in indexes)

    def _init_grad(self, xp: Any, g: Any, like: Any) -> Any:
        return xp.zeros_like(like) if g is None else g.copy()

    def _backward_lstm(
        self,
        xp: Any,
        x: Any,
        h0: Any,
        c0: Any,
        ws: list[Any],
        bs: list[Any],
        gouts: list[Any],
    ) -> list[Any]:
        gy, ghy, gcy = gouts
        Wx, Wh, z, tcs, hprev, cprev = self._saved
        H = h0.shape[1]
        one = x.dtype.type(1)
        gh = self._init_grad(xp, ghy, h0)
        gc = self._init_grad(xp, gcy, c0)
        gz = xp.empty_like(z)
        offs, bsz = self.offsets, self.batch_sizes
        for t in reversed(self.order):
            s, b = offs[t], bsz[t]
            e = s + b
            ghb = gh[:b]
            if gy is not None:
                ghb += gy[s:e]
            zt = z[s:e]
            i = zt[:, :H]
            f = zt[:, H : 2 * H]
            o = zt[:, 2 * H : 3 * H]
            a = zt[:, 3 * H :]
            tc = tcs[s:e]
            G = gz[s:e]
            go = G[:, 2 * H : 3 * H]
            xp.multiply(ghb, tc, out=go)
            gct = ghb * o
            go *= o
            go *= one - o
            tc2 = tc * tc
            xp.subtract(one, tc2, out=tc2)
            gct *= tc2
            gct += gc[:b]
            gi = G[:, :H]
            xp.multiply(gct, a, out=gi)
            gi *= i
            gi *= one - i
            gf = G[:, H : 2 * H]
            xp.multiply(gct, cprev[s:e], out=gf)
            gf *= f
            gf *= one - f
            ga = G[:, 3 * H :]
            xp.multiply(gct, i, out=ga)
            ga *= one - a * a
            xp.multiply(gct, f, out=gc[:b])
            gh[:b] = G @ Wh
        gWx = gz.T @ x
        gWh = gz.T @ hprev
        gx = gz @ Wx if self._need_gx else None
        gb = gz.sum(axis=0)
        order = (0, 1, 3, 2)  # internal block k holds Chainer's weight order[k]
        gw: list[Any] = [None] * 8
        gbs: list[Any] = [None] * 8
        for k, j in enumerate(order):
            gw[j] = gWx[k * H : (k + 1) * H]
            gw[j + 4] = gWh[k * H : (k + 1) * H]
            gbs[j] = gb[k * H : (k + 1) * H]
            gbs[j + 4] = gbs[j].copy()
        return [gx, gh, gc] + gw + gbs

    def _backward_gru(
        self, xp: Any, x: Any, h0: Any, ws: list[Any], gouts: list[Any]
    ) -> list[Any]:
        gy, ghy = gouts
        Wx, Wh, z, hwn, hprev = self._saved
        H = h0.shape[1]
        one = x.dtype.type(1)
        gh = self._init_grad(xp, ghy, h0)
        gxw = xp.empty_like(z)
        ghw = xp.empty_like(z)
        offs, bsz = self.offsets, self.batch_sizes
        for t in reversed(self.order):
            s, b = offs[t], bsz[t]
            e = s + b
            ghb = gh[:b]
            if gy is not None:
                ghb += gy[s:e]
            zt = z[s:e]
            r = zt[:, :H]
            u = zt[:, H : 2 * H]
            nt = zt[:, 2 * H :]
            hp = hprev[s:e]
            gx_t = gxw[s:e]
            gh_t = ghw[s:e]
            dn = gx_t[:, 2 * H :]
            xp.multiply(ghb, one - u, out=dn)
            dn *= one - nt * nt
            xp.multiply(dn, r, out=gh_t[:, 2 * H :])
            dr = gx_t[:, :H]
            xp.multiply(dn, hwn[s:e], out=dr)
            dr *= r
            dr *= one - r
            du = gx_t[:, H : 2 * H]
            xp.subtract(hp, nt, out=du)
            du *= ghb
            du *= u
            du *= one - u
            gh_t[:, : 2 * H] = gx_t[:, : 2 * H]
            ghn = gh_t @ Wh
            ghn += ghb * u
            gh[:b] = ghn
        gWx = gxw.T @ x
        gWh = ghw.T @ hprev
        gx = gxw @ Wx if self._need_gx else None
        gbx = gxw.sum(axis=0)
        gbh = ghw.sum(axis=0)
        gw = [gWx[k * H : (k + 1) * H] for k in range(3)] + [
            gWh[k * H : (k + 1) * H] for k in range(3)
        ]
        gbs = [gbx[k * H : (k + 1) * H] for k in range(3)] + [
            gbh[k * H : (k + 1) * H] for k in range(3)
        ]
        return [gx, gh] + gw + gbs

    def _backward_rnn(
        self, xp: Any, x: Any, h0: Any, ws: list[Any], gouts: list[Any]
    ) -> list[Any]:
        gy, ghy = gouts
        (hprev,) = self._saved
        y = self._y
        Wx, Wh = ws
        one = x.dtype.type(1)
        gh = self._init_grad(xp, ghy, h0)
        gpre = xp.empty_like(y)
        offs, bsz = self.offsets, self.batch_sizes
        relu = self.mode == "rnn_relu"
        for t in reversed(self.order):
            s, b = offs[t], bsz[t]
            e = s + b
            ghb = gh[:b]
            if gy is not None:
                ghb += gy[s:e]
            yt = y[s:e]
            g = gpre[s:e]
            if relu:
                xp.multiply(ghb, yt > 0, out=g)
            else:
                xp.multiply(ghb, one - yt * yt, out=g)
            gh[:b] = g @ Wh
        gb = gpre.sum(axis=0)
        gx = gpre @ Wx if self._need_gx else None
        return [gx, gh, gpre.T @ x, gpre.T @ hprev, gb, gb.copy()]

    def _backward_composed(
        self, indexes: Any, inputs: Sequence[Variable], grad_outputs: Any
    ) -> tuple[Any, ...]:
        x, h0, c0, ws, bs = self._split_inputs(inputs)
        composed = composed_layer(
            self.mode, x, h0, c0, ws, bs, self.batch_sizes, self.reverse
        )
        outs = [o for o in composed if o is not None]
        gouts = []
        for o, g in zip(outs, grad_outputs):
            if g is None:
                xp = backend.get_array_module(o.array)
                g = Variable(xp.zeros_like(o.array))
            gouts.append(g)
        targets = [inputs[i] for i in indexes]
        gxs = grad(outs, targets, gouts, enable_double_backprop=True)
        return tuple(gxs)


def composed_layer(
    mode: str,
    x: Any,
    h0: Any,
    c0: Any,
    ws: Sequence[Any],
    bs: Sequence[Any],
    batch_sizes: Sequence[int],
    reverse: bool,
) -> tuple[Any, Any, Any]:
    """The same layer built from differentiable ops, one time step at a time."""
    from kusari.functions.activation.relu import relu
    from kusari.functions.activation.sigmoid import sigmoid
    from kusari.functions.activation.tanh import tanh
    from kusari.functions.connection.linear import linear

    xs = _ops.split(x, list(batch_sizes), 0)
    B = h0.shape[0]
    h, c = h0, c0
    ys: list[Any] = [None] * len(xs)
    steps = range(len(xs))
    for t in reversed(steps) if reverse else steps:
        b = batch_sizes[t]
        xt = xs[t]
        h_rest = c_rest = None
        if b < B:
            h, h_rest = _ops.split(h, [b, B - b], 0)
            if c is not None:
                c, c_rest = _ops.split(c, [b, B - b], 0)
        if mode == "lstm":
            i = sigmoid(linear(xt, ws[0], bs[0]) + linear(h, ws[4], bs[4]))
            f = sigmoid(linear(xt, ws[1], bs[1]) + linear(h, ws[5], bs[5]))
            a = tanh(linear(xt, ws[2], bs[2]) + linear(h, ws[6], bs[6]))
            o = sigmoid(linear(xt, ws[3], bs[3]) + linear(h, ws[7], bs[7]))
            c = a * i + f * c
            h = o * tanh(c)
        elif mode == "gru":
            r = sigmoid(linear(xt, ws[0], bs[0]) + linear(h, ws[3], bs[3]))
            u = sigmoid(linear(xt, ws[1], bs[1]) + linear(h, ws[4], bs[4]))
            n = tanh(linear(xt, ws[2], bs[2]) + r * linear(h, ws[5], bs[5]))
            h = (1.0 - u) * n + u * h
        else:
            pre = linear(xt, ws[0], bs[0]) + linear(h, ws[1], bs[1])
            h = relu(pre) if mode == "rnn_relu" else tanh(pre)
        ys[t] = h
        if h_rest is not None:
            h = _ops.concat([h, h_rest], 0)
            if c_rest is not None:
                c = _ops.concat([c, c_rest], 0)
    y = _ops.concat(ys, 0)
    return y, h, c
