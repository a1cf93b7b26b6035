"""Converters of the recurrent functions: the ``lstm`` cell and the fused
layers of ``n_step_lstm`` / ``n_step_gru`` / ``n_step_rnn``.

A fused layer is unrolled over its time steps. The sequence lengths are those
of the export run (they are part of the packed layout kusari hands the layer),
so the exported graph serves inputs of exactly those lengths.
"""

from __future__ import annotations

from typing import Any

from kusari.functions.rnn import _ops
from kusari.functions.rnn._n_step_core import RNNLayer
from kusari.functions.rnn.lstm import LSTM
from kusari.onnx._context import ConvertContext, Tensor, register_converter, unsupported


def _lstm(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    c_prev, x = ins
    if c_prev.shape[0] != x.shape[0]:
        raise unsupported(func, "c_prev and x have different batch sizes")
    units = c_prev.shape[1]
    # Unit k of gate g is column 4k + g: view x as (B, units, 4, ...).
    shape = ctx.ints([0, units, 4] + [0] * (x.ndim - 2), "shape")
    r = ctx.node("Reshape", [x.name, shape])[0]
    gates = ctx.node("Split", [r, ctx.ints([1, 1, 1, 1], "split")], 4, axis=2)
    sq = ctx.ints([2], "axes")
    a, i, f, o = (ctx.node("Squeeze", [g, sq])[0] for g in gates)
    a = ctx.node("Tanh", [a])[0]
    i, f, o = (ctx.node("Sigmoid", [g])[0] for g in (i, f, o))
    ai = ctx.node("Mul", [a, i])[0]
    fc = ctx.node("Mul", [f, c_prev.name])[0]
    ctx.node("Add", [ai, fc], [outs[0].name])
    tc = ctx.node("Tanh", [outs[0].name])[0]
    ctx.node("Mul", [o, tc], [outs[1].name])


def _rows(ctx: ConvertContext, x: str, start: int, stop: int) -> str:
    starts, ends = ctx.ints([start], "starts"), ctx.ints([stop], "ends")
    return ctx.node("Slice", [x, starts, ends, ctx.ints([0], "axes")])[0]


def _split(ctx: ConvertContext, x: str, sizes: list[int]) -> list[str]:
    return ctx.node("Split", [x, ctx.ints(sizes, "split")], len(sizes), axis=0)


def _rnn_layer(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    mode = func.mode
    x, h0 = ins[0].name, ins[1]
    k = 3 if func.use_cell else 2
    ws = [t.name for t in ins[k : k + func.n_w]]
    bs = [t.name for t in ins[k + func.n_w : k + 2 * func.n_w]]
    n_gates = {"lstm": 4, "gru": 3}.get(mode, 1)
    gate_sizes = ctx.ints([h0.shape[1]] * n_gates, "split")

    def cat(names: list[str]) -> str:
        return names[0] if len(names) == 1 else ctx.node("Concat", names, axis=0)[0]

    # The input projections of every step in one Gemm: z = x Wx^T + b.
    wx, wh = cat(ws[:n_gates]), cat(ws[n_gates:])
    bx, bh = cat(bs[:n_gates]), cat(bs[n_gates:])
    if mode != "gru":  # GRU keeps bh apart: it sits inside r * (h Wh^T + bh)
        bx = ctx.node("Add", [bx, bh])[0]
    z = ctx.node("Gemm", [x, wx, bx], transB=1)[0]

    batch = h0.shape[0]
    h, c = h0.name, ins[2].name if func.use_cell else ""
    ys: dict[int, str] = {}
    for t in func.order:
        start, b = func.offsets[t], func.batch_sizes[t]
        zt = _rows(ctx, z, start, start + b)
        h_rest = c_rest = ""
        if b < batch:  # shorter sequences have ended: carry their state
            h, h_rest = _split(ctx, h, [b, batch - b])
            if c:
                c, c_rest = _split(ctx, c, [b, batch - b])
        if mode == "gru":
            hw = ctx.node("Gemm", [h, wh, bh], transB=1)[0]
            zr, zu, zn = ctx.node("Split", [zt, gate_sizes], 3, axis=1)
            hr, hu, hn = ctx.node("Split", [hw, gate_sizes], 3, axis=1)
            r = ctx.node("Sigmoid", [ctx.node("Add", [zr, hr])[0]])[0]
            u = ctx.node("Sigmoid", [ctx.node("Add", [zu, hu])[0]])[0]
            rn = ctx.node("Mul", [r, hn])[0]
            n = ctx.node("Tanh", [ctx.node("Add", [zn, rn])[0]])[0]
            d = ctx.node("Mul", [u, ctx.node("Sub", [h, n])[0]])[0]
            h = ctx.node("Add", [d, n])[0]  # (1 - u) n + u h
        else:
            pre = ctx.node("Add", [zt, ctx.node("Gemm", [h, wh], transB=1)[0]])[0]
            if mode == "lstm":
                i, f, a, o = ctx.node("Split", [pre, gate_sizes], 4, axis=1)
                i, f, o = (ctx.node("Sigmoid", [g])[0] for g in (i, f, o))
                a = ctx.node("Tanh", [a])[0]
                ai = ctx.node("Mul", [a, i])[0]
                c = ctx.node("Add", [ai, ctx.node("Mul", [f, c])[0]])[0]
                h = ctx.node("Mul", [o, ctx.node("Tanh", [c])[0]])[0]
            elif mode == "rnn_relu":
                h = ctx.node("Relu", [pre])[0]
            elif mode == "rnn_tanh":
                h = ctx.node("Tanh", [pre])[0]
            else:
                raise unsupported(func, f"unknown mode {mode!r}")
        ys[t] = h
        if h_rest:
            h = ctx.node("Concat", [h, h_rest], axis=0)[0]
            if c_rest:
                c = ctx.node("Concat", [c, c_rest], axis=0)[0]
    steps = [ys[t] for t in sorted(ys)]  # y is packed in time order
    if len(steps) == 1:
        ctx.node("Identity", steps, [outs[0].name])
    else:
        ctx.node("Concat", steps, [outs[0].name], axis=0)
    ctx.node("Identity", [h], [outs[1].name])
    if func.use_cell:
        ctx.node("Identity", [c], [outs[2].name])


def _ops_concat(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    axis = int(func.axis) % ins[0].ndim
    ctx.node("Concat", [t.name for t in ins], [outs[0].name], axis=axis)


def _ops_split(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x = ins[0]
    axis = int(func.axis) % x.ndim
    sizes = list(func.sections)
    if sum(sizes) != x.shape[axis]:  # the last piece runs to the end
        sizes.append(x.shape[axis] - sum(sizes))
        names = [t.name for t in outs] + [ctx.fresh("rest")]
    else:
        names = [t.name for t in outs]
    ctx.node("Split", [x.name, ctx.ints(sizes, "split")], names, axis=axis)


def _ops_take(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    perm = ctx.ints([int(i) for i in func.perm], "perm")
    ctx.node("Gather", [ins[0].name, perm], [outs[0].name], axis=int(func.axis))


register_converter(LSTM, _lstm)
register_converter(RNNLayer, _rnn_layer)
register_converter(_ops.Concat, _ops_concat)
register_converter(_ops.Split, _ops_split)
register_converter(_ops.Take, _ops_take)
