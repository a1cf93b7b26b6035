"""Converters of the layer functions: linear, convolution, pooling,
normalization and embedding."""

from __future__ import annotations

from typing import Any

import numpy

from kusari.functions.connection.convolution_nd import ConvolutionND
from kusari.functions.connection.deconvolution_nd import DeconvolutionND
from kusari.functions.connection.embed_id import EmbedIDFunction
from kusari.functions.connection.linear import LinearFunction
from kusari.functions.normalization.batch_normalization import (
    BatchNormalization,
    FixedBatchNormalization,
)
from kusari.functions.normalization.l2_normalization import NormalizeL2
from kusari.functions.normalization.local_response_normalization import (
    LocalResponseNormalization,
)
from kusari.functions.pooling.average_pooling_nd import SumPooling
from kusari.functions.pooling.max_pooling_nd import MaxPoolingND
from kusari.onnx._context import ConvertContext, Tensor, register_converter, unsupported


def _linear(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x, w = ins[0], ins[1]
    nb = func.n_batch_axes
    if nb == 1:
        x2 = x.name
        if x.ndim != 2:
            x2 = ctx.node("Flatten", [x.name], axis=1)[0]
        args = [x2, w.name] + ([ins[2].name] if len(ins) == 3 else [])
        ctx.node("Gemm", args, [outs[0].name], transB=1)
        return
    # Several batch axes: keep them (0 copies a dim), flatten the rest.
    xr = ctx.node("Reshape", [x.name, ctx.ints([0] * nb + [-1], "shape")])[0]
    wt = ctx.node("Transpose", [w.name], perm=[1, 0])[0]
    if len(ins) == 2:
        ctx.node("MatMul", [xr, wt], [outs[0].name])
    else:
        y = ctx.node("MatMul", [xr, wt])[0]
        ctx.node("Add", [y, ins[2].name], [outs[0].name])


def _end_pads(
    func: Any,
    x: Tensor,
    y: Tensor,
    k: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    cover_all: bool,
) -> list[int]:
    """ONNX ``pads`` that give kusari's output size.

    ``cover_all`` adds ``s - 1`` to the end padding, which turns the floor in
    the output size formula into Chainer's ceiling; the extra padding is zeros
    for convolution and ignored by MaxPool, as in kusari.
    """
    ends = [pi + (si - 1 if cover_all else 0) for pi, si in zip(p, s)]
    for i, (n, ki, si, di) in enumerate(zip(x.shape[2:], k, s, d)):
        size = (n + p[i] + ends[i] - (ki - 1) * di - 1) // si + 1
        if size != y.shape[2 + i]:
            raise unsupported(
                func,
                f"its output size {y.shape[2:]} on input {x.shape[2:]} has no "
                "ONNX padding that reproduces it",
            )
    return list(p) + ends


def _convolution(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x, w = ins[0], ins[1]
    k = tuple(w.shape[2:])
    pads = _end_pads(
        func, x, outs[0], k, func.stride, func.pad, func.dilate, func.cover_all
    )
    ctx.node(
        "Conv",
        [t.name for t in ins],
        [outs[0].name],
        kernel_shape=list(k),
        strides=list(func.stride),
        pads=pads,
        dilations=list(func.dilate),
        group=func.groups,
    )


def _deconvolution(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x, w = ins[0], ins[1]
    k = w.shape[2:]
    extra = []
    for i, (n, ki, si, pi, di) in enumerate(
        zip(x.shape[2:], k, func.stride, func.pad, func.dilate)
    ):
        default = si * (n - 1) + di * (ki - 1) + 1 - 2 * pi
        extra.append(outs[0].shape[2 + i] - default)
    if any(e < 0 or e >= s for e, s in zip(extra, func.stride)):
        raise unsupported(func, f"its output size {outs[0].shape[2:]} is not reachable")
    attrs: dict[str, Any] = {}
    if any(extra):
        attrs["output_padding"] = extra
    ctx.node(
        "ConvTranspose",
        [t.name for t in ins],
        [outs[0].name],
        kernel_shape=list(k),
        strides=list(func.stride),
        pads=list(func.pad) * 2,
        dilations=list(func.dilate),
        group=func.groups,
        **attrs,
    )


def _max_pooling(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    pp = func.pp
    ones = (1,) * len(pp.k)
    pads = _end_pads(func, ins[0], outs[0], pp.k, pp.s, pp.p, ones, pp.cover_all)
    ctx.node(
        "MaxPool",
        [ins[0].name],
        [outs[0].name],
        kernel_shape=list(pp.k),
        strides=list(pp.s),
        pads=pads,
    )


def _sum_pooling(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    pp = func.pp
    ones = (1,) * len(pp.k)
    pads = _end_pads(func, ins[0], outs[0], pp.k, pp.s, pp.p, ones, pp.cover_all)
    window = int(numpy.prod(pp.k))
    c = func._c  # the scale kusari applied to each window's sum
    if c is not None and numpy.ndim(c) != 0:
        # Per-window counts: average over the valid (unpadded) pixels only.
        include_pad, scale = 0, 1.0
    else:
        include_pad, scale = 1, window * (1.0 if c is None else float(c))
    attrs = {"kernel_shape": list(pp.k), "strides": list(pp.s), "pads": pads}
    if abs(scale - 1.0) < 1e-12:
        ctx.node(
            "AveragePool",
            [ins[0].name],
            [outs[0].name],
            count_include_pad=include_pad,
            **attrs,
        )
        return
    y = ctx.node("AveragePool", [ins[0].name], count_include_pad=include_pad, **attrs)
    ctx.node("Mul", [y[0], ctx.const(scale, "scale", ins[0].dtype)], [outs[0].name])


def _fixed_batch_normalization(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x, gamma, beta, mean, var = ins
    if tuple(func._axis) == (0,) + tuple(range(2, x.ndim)):
        ctx.node(
            "BatchNormalization",
            [x.name, gamma.name, beta.name, mean.name, var.name],
            [outs[0].name],
            epsilon=float(func.eps),
        )
        return
    # Other axes: (x - mean) / sqrt(var + eps) * gamma + beta, broadcast.
    shape = ctx.ints(func._bshape, "bshape")

    def bc(t: Tensor) -> str:
        return ctx.node("Reshape", [t.name, shape])[0]

    eps = ctx.const(func.eps, "eps", x.dtype)
    std = ctx.node("Sqrt", [ctx.node("Add", [bc(var), eps])[0]])[0]
    xc = ctx.node("Sub", [x.name, bc(mean)])[0]
    xn = ctx.node("Div", [xc, std])[0]
    y = ctx.node("Mul", [xn, bc(gamma)])[0]
    ctx.node("Add", [y, bc(beta)], [outs[0].name])


def _batch_normalization(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    """Normalization by the statistics of the input itself.

    What kusari computes in training mode, and what layer and group
    normalization are built from; updating running averages is a side effect
    the graph does not need.
    """
    x, gamma, beta = ins
    axes = [int(a) for a in func._axis]
    mean = ctx.fresh("mean")
    ctx.reduce("ReduceMean", x.name, axes, True, mean)
    xc = ctx.node("Sub", [x.name, mean])[0]
    var = ctx.fresh("var")
    ctx.reduce("ReduceMean", ctx.node("Mul", [xc, xc])[0], axes, True, var)
    eps = ctx.const(func.eps, "eps", x.dtype)
    std = ctx.node("Sqrt", [ctx.node("Add", [var, eps])[0]])[0]
    shape = ctx.ints(func._bshape, "bshape")
    g = ctx.node("Reshape", [gamma.name, shape])[0]
    b = ctx.node("Reshape", [beta.name, shape])[0]
    y = ctx.node("Mul", [ctx.node("Div", [xc, std])[0], g])[0]
    ctx.node("Add", [y, b], [outs[0].name])


def _normalize_l2(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    # x / (sqrt(sum(x^2, axis)) + eps): eps outside the root, unlike LpNormalization.
    x = ins[0]
    axis = func.axis if isinstance(func.axis, tuple) else (func.axis,)
    sq = ctx.node("Mul", [x.name, x.name])[0]
    total = ctx.fresh("sumsq")
    ctx.reduce("ReduceSum", sq, [int(a) % x.ndim for a in axis], True, total)
    norm = ctx.node("Sqrt", [total])[0]
    norm = ctx.node("Add", [norm, ctx.const(func.eps, "eps", x.dtype)])[0]
    ctx.node("Div", [x.name, norm], [outs[0].name])


def _lrn(ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]) -> None:
    size = 2 * func.half + 1
    # ONNX divides alpha by the window size; kusari does not.
    ctx.node(
        "LRN",
        [ins[0].name],
        [outs[0].name],
        size=size,
        alpha=float(func.alpha) * size,
        beta=float(func.beta),
        bias=float(func.k),
    )


def _embed_id(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    ids, w = ins
    if func.ignore_label is None:
        ctx.node("Gather", [w.name, ids.name], [outs[0].name], axis=0)
        return
    ignore = ctx.const(func.ignore_label, "ignore_label", ids.dtype)
    hit = ctx.node("Equal", [ids.name, ignore])[0]
    zero = ctx.const(0, "zero", ids.dtype)
    safe = ctx.node("Where", [hit, zero, ids.name])[0]
    rows = ctx.node("Gather", [w.name, safe], axis=0)[0]
    mask = ctx.node("Unsqueeze", [hit, ctx.ints([-1], "axes")])[0]
    fill = ctx.const(0, "zero", w.dtype)
    ctx.node("Where", [mask, fill, rows], [outs[0].name])


register_converter(LinearFunction, _linear)
register_converter(ConvolutionND, _convolution)
register_converter(DeconvolutionND, _deconvolution)
register_converter(MaxPoolingND, _max_pooling)
register_converter(SumPooling, _sum_pooling)
register_converter(FixedBatchNormalization, _fixed_batch_normalization)
register_converter(LocalResponseNormalization, _lrn)
register_converter(BatchNormalization, _batch_normalization)
register_converter(NormalizeL2, _normalize_l2)
register_converter(EmbedIDFunction, _embed_id)
