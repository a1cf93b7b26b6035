"""Converters of activations, arithmetic, reductions and matmul."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from kusari.functions.activation.clipped_relu import ClippedReLU
from kusari.functions.activation.crelu import CReLU
from kusari.functions.activation.elu import ELU
from kusari.functions.activation.hard_sigmoid import HardSigmoid
from kusari.functions.activation.leaky_relu import LeakyReLU
from kusari.functions.activation.log_softmax import LogSoftmax
from kusari.functions.activation.prelu import PReLU
from kusari.functions.activation.relu import ReLU
from kusari.functions.activation.sigmoid import Sigmoid
from kusari.functions.activation.softmax import Softmax
from kusari.functions.activation.softplus import Softplus
from kusari.functions.activation.swish import Swish
from kusari.functions.activation.tanh import Tanh
from kusari.functions.math import basic_math as bm
from kusari.functions.math.clip import Clip
from kusari.functions.math.cumsum import Cumsum
from kusari.functions.math.einsum import EinSum
from kusari.functions.math.erf import Erf
from kusari.functions.math.exponential import Exp, Log, Log2, Log10
from kusari.functions.math.exponential_m1 import Expm1
from kusari.functions.math.hyperbolic import Cosh, Sinh
from kusari.functions.math.identity import Identity
from kusari.functions.math.logarithm_1p import Log1p
from kusari.functions.math.logsumexp import LogSumExp
from kusari.functions.math.matmul import MatMul
from kusari.functions.math.maximum import Maximum
from kusari.functions.math.minimum import Minimum
from kusari.functions.math.minmax import ArgMax, ArgMin, Max, Min
from kusari.functions.math.prod import Prod
from kusari.functions.math.sqrt import Sqrt
from kusari.functions.math.square import Square
from kusari.functions.math.squared_difference import SquaredDifference
from kusari.functions.math.sum import Sum
from kusari.functions.math.trigonometric import Arccos, Arcsin, Arctan, Cos, Sin, Tan
from kusari.onnx._context import ConvertContext, Tensor, register_converter

ConverterFn = Callable[[ConvertContext, Any, list[Tensor], list[Tensor]], None]


def _simple(op_type: str, **attrs: Any) -> ConverterFn:
    """A converter to one ONNX node with the same inputs and outputs."""

    def convert(
        ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
    ) -> None:
        ctx.node(op_type, [t.name for t in ins], [outs[0].name], **attrs)

    return convert


_UNARY = {
    ReLU: "Relu",
    Sigmoid: "Sigmoid",
    Tanh: "Tanh",
    Exp: "Exp",
    Log: "Log",
    Sqrt: "Sqrt",
    Sin: "Sin",
    Cos: "Cos",
    Tan: "Tan",
    Sinh: "Sinh",
    Cosh: "Cosh",
    bm.Neg: "Neg",
    bm.Absolute: "Abs",
    Erf: "Erf",
    Arcsin: "Asin",
    Arccos: "Acos",
    Arctan: "Atan",
}
_BINARY = {
    bm.Add: "Add",
    bm.Sub: "Sub",
    bm.Mul: "Mul",
    bm.Div: "Div",
    bm.PowVarVar: "Pow",
    Maximum: "Max",
    Minimum: "Min",
}


def _multi_add(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    ctx.node("Sum", [t.name for t in ins], [outs[0].name])


def _constant_op(op_type: str, const_first: bool) -> ConverterFn:
    """``x op value`` (or ``value op x``) for the ``*Constant`` nodes."""

    def convert(
        ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
    ) -> None:
        c = ctx.const(func.value, "value", ins[0].dtype)
        args = [c, ins[0].name] if const_first else [ins[0].name, c]
        ctx.node(op_type, args, [outs[0].name])

    return convert


def _square(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    ctx.node("Mul", [ins[0].name, ins[0].name], [outs[0].name])


def _squared_difference(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    d = ctx.node("Sub", [ins[0].name, ins[1].name])[0]
    ctx.node("Mul", [d, d], [outs[0].name])


def _identity(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    for x, y in zip(ins, outs):
        ctx.node("Identity", [x.name], [y.name])


def _softmax(op_type: str) -> ConverterFn:
    def convert(
        ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
    ) -> None:
        ctx.node(op_type, [ins[0].name], [outs[0].name], axis=int(func.axis))

    return convert


def _leaky_relu(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    ctx.node("LeakyRelu", [ins[0].name], [outs[0].name], alpha=float(func.slope))


def _elu(ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]) -> None:
    ctx.node("Elu", [ins[0].name], [outs[0].name], alpha=float(func.alpha))


def _softplus(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    beta = float(func.beta)
    if beta == 1.0:
        ctx.node("Softplus", [ins[0].name], [outs[0].name])
        return
    # log(1 + exp(beta x)) / beta
    b = ctx.const(beta, "beta", ins[0].dtype)
    bx = ctx.node("Mul", [ins[0].name, b])[0]
    sp = ctx.node("Softplus", [bx])[0]
    ctx.node("Div", [sp, b], [outs[0].name])


def _clip_between(
    ctx: ConvertContext, x: Tensor, low: Any, high: Any, out: str
) -> None:
    lo = "" if low is None else ctx.const(low, "min", x.dtype)
    hi = "" if high is None else ctx.const(high, "max", x.dtype)
    ctx.node("Clip", [x.name, lo, hi], [out])


def _clipped_relu(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    _clip_between(ctx, ins[0], 0, func.cap, outs[0].name)


def _clip(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    _clip_between(ctx, ins[0], func.x_min, func.x_max, outs[0].name)


def _hard_sigmoid(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    # kusari's hard_sigmoid is clip(0.2 x + 0.5, 0, 1), ONNX's defaults.
    ctx.node("HardSigmoid", [ins[0].name], [outs[0].name], alpha=0.2, beta=0.5)


def _prelu(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x, w = ins
    # W covers the axes right after the batch axis; ONNX broadcasts from the
    # right, so give W trailing unit axes.
    shape = list(w.shape) + [1] * (x.ndim - 1 - w.ndim)
    slope = ctx.node("Reshape", [w.name, ctx.ints(shape, "shape")])[0]
    ctx.node("PRelu", [x.name, slope], [outs[0].name])


def _swish(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x, beta = ins
    # x * sigmoid(beta x), beta broadcast like PReLU's slope.
    shape = list(beta.shape) + [1] * (x.ndim - 1 - beta.ndim)
    b = ctx.node("Reshape", [beta.name, ctx.ints(shape, "shape")])[0]
    bx = ctx.node("Mul", [x.name, b])[0]
    ctx.node("Mul", [x.name, ctx.node("Sigmoid", [bx])[0]], [outs[0].name])


def _matmul(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    a, b = ins
    names = []
    for t, trans in ((a, func.transa), (b, func.transb)):
        if trans and t.ndim >= 2:
            perm = list(range(t.ndim - 2)) + [t.ndim - 1, t.ndim - 2]
            names.append(ctx.node("Transpose", [t.name], perm=perm)[0])
        else:
            names.append(t.name)
    ctx.node("MatMul", names, [outs[0].name])


def _log_base(base: float) -> ConverterFn:
    def convert(
        ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
    ) -> None:
        ln = ctx.node("Log", [ins[0].name])[0]
        inv = ctx.const(1.0 / numpy.log(base), "inv_log_base", ins[0].dtype)
        ctx.node("Mul", [ln, inv], [outs[0].name])

    return convert


def _expm1(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    e = ctx.node("Exp", [ins[0].name])[0]
    ctx.node("Sub", [e, ctx.const(1, "one", ins[0].dtype)], [outs[0].name])


def _log1p(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    p = ctx.node("Add", [ins[0].name, ctx.const(1, "one", ins[0].dtype)])[0]
    ctx.node("Log", [p], [outs[0].name])


def _crelu(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x = ins[0]
    pos = ctx.node("Relu", [x.name])[0]
    neg = ctx.node("Relu", [ctx.node("Neg", [x.name])[0]])[0]
    ctx.node("Concat", [pos, neg], [outs[0].name], axis=int(func.axis) % x.ndim)


def _cumsum(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x = ins[0]
    name, axis = x.name, func.axis
    if axis is None:  # numpy.cumsum flattens first
        name = ctx.node("Reshape", [name, ctx.ints([-1], "shape")])[0]
        axis = 0
    ax = ctx.const(numpy.asarray(int(axis), numpy.int64), "axis")
    ctx.node("CumSum", [name, ax], [outs[0].name])


def _einsum(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    equation = ",".join(func.in_subs) + "->" + func.out_sub
    ctx.node("Einsum", [t.name for t in ins], [outs[0].name], equation=equation)


def _logsumexp(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x = ins[0]
    axes = None if func._axis is None else [int(a) % x.ndim for a in func._axis]
    ctx.reduce("ReduceLogSumExp", x.name, axes, False, outs[0].name)


def _arg_reduction(op_type: str) -> ConverterFn:
    def convert(
        ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
    ) -> None:
        x, axis = ins[0].name, func.axis
        if axis is None:  # over the flattened array, as numpy does
            x = ctx.node("Reshape", [x, ctx.ints([-1], "shape")])[0]
            axis = 0
        y = ctx.node(op_type, [x], axis=int(axis), keepdims=0)[0]
        ctx.node("Cast", [y], [outs[0].name], to=ctx.tensor_type(outs[0].dtype))

    return convert


def _axes(func: Any, ndim: int) -> list[int] | None:
    axis = func.axis
    if axis is None:
        return None
    if isinstance(axis, int):
        axis = (axis,)
    return [int(a) % ndim for a in axis]


def _reduction(op_type: str) -> ConverterFn:
    def convert(
        ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
    ) -> None:
        x = ins[0]
        if x.ndim == 0:
            ctx.node("Identity", [x.name], [outs[0].name])
            return
        ctx.reduce(op_type, x.name, _axes(func, x.ndim), func.keepdims, outs[0].name)

    return convert


for _cls, _op in _UNARY.items():
    register_converter(_cls, _simple(_op))
for _cls, _op in _BINARY.items():
    register_converter(_cls, _simple(_op))
register_converter(bm.MultiAdd, _multi_add)
register_converter(bm.AddConstant, _constant_op("Add", False))
register_converter(bm.SubFromConstant, _constant_op("Sub", True))
register_converter(bm.MulConstant, _constant_op("Mul", False))
register_converter(bm.DivFromConstant, _constant_op("Div", True))
register_converter(bm.PowVarConst, _constant_op("Pow", False))
register_converter(bm.PowConstVar, _constant_op("Pow", True))
register_converter(Square, _square)
register_converter(SquaredDifference, _squared_difference)
register_converter(Identity, _identity)
register_converter(Softmax, _softmax("Softmax"))
register_converter(LogSoftmax, _softmax("LogSoftmax"))
register_converter(LeakyReLU, _leaky_relu)
register_converter(ELU, _elu)
register_converter(Softplus, _softplus)
register_converter(ClippedReLU, _clipped_relu)
register_converter(Clip, _clip)
register_converter(HardSigmoid, _hard_sigmoid)
register_converter(PReLU, _prelu)
register_converter(Swish, _swish)
register_converter(MatMul, _matmul)
register_converter(Sum, _reduction("ReduceSum"))
register_converter(Max, _reduction("ReduceMax"))
register_converter(Min, _reduction("ReduceMin"))
register_converter(Prod, _reduction("ReduceProd"))
register_converter(LogSumExp, _logsumexp)
register_converter(ArgMax, _arg_reduction("ArgMax"))
register_converter(ArgMin, _arg_reduction("ArgMin"))
register_converter(Log2, _log_base(2.0))
register_converter(Log10, _log_base(10.0))
register_converter(Expm1, _expm1)
register_converter(Log1p, _log1p)
register_converter(CReLU, _crelu)
register_converter(Cumsum, _cumsum)
register_converter(EinSum, _einsum)
