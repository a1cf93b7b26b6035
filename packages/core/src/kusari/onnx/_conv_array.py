"""Converters of the array functions: shape changes, joins, splits, indexing.

Shapes are written from what the model saw during export, except that a
leading run of axes that a reshape keeps is written as ``0`` ("copy this
axis"), so a batch axis declared in ``dynamic_axes`` stays free.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.functions.array._permute import Permute
from kusari.functions.array.broadcast import BroadcastTo
from kusari.functions.array.cast import Cast
from kusari.functions.array.concat import Concat
from kusari.functions.array.depth2space import Depth2Space
from kusari.functions.array.expand_dims import ExpandDims
from kusari.functions.array.flatten import Flatten
from kusari.functions.array.flip import Flip
from kusari.functions.array.fliplr import FlipLR
from kusari.functions.array.flipud import FlipUD
from kusari.functions.array.get_item import GetItem
from kusari.functions.array.pad import Pad
from kusari.functions.array.repeat import Repeat
from kusari.functions.array.reshape import Reshape
from kusari.functions.array.resize_images import ResizeImages
from kusari.functions.array.separate import Separate
from kusari.functions.array.space2depth import Space2Depth
from kusari.functions.array.split_axis import SplitAxis
from kusari.functions.array.squeeze import Squeeze
from kusari.functions.array.stack import Stack
from kusari.functions.array.tile import Tile
from kusari.functions.array.transpose import Transpose
from kusari.functions.array.where import Where
from kusari.onnx._context import ConvertContext, Tensor, register_converter, unsupported

_INT64_MAX = 2**63 - 1
_INT64_MIN = -(2**63)


def _reshape_to(
    ctx: ConvertContext, x: Tensor, shape: tuple[int, ...], out: str
) -> None:
    target = list(shape)
    for i, (a, b) in enumerate(zip(x.shape, shape)):
        if a != b:
            break
        target[i] = 0
    ctx.node("Reshape", [x.name, ctx.ints(target, "shape")], [out])


def _reshape(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    _reshape_to(ctx, ins[0], outs[0].shape, outs[0].name)


def _flatten(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    ctx.node("Reshape", [ins[0].name, ctx.ints([-1], "shape")], [outs[0].name])


def _transpose(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    ndim = ins[0].ndim
    if isinstance(func, Permute):
        perm = list(func.perm(ndim))
    elif func.axes is None:
        perm = list(reversed(range(ndim)))
    else:
        perm = [int(a) % ndim for a in func.axes]
    ctx.node("Transpose", [ins[0].name], [outs[0].name], perm=perm)


def _concat(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    axis = int(func.axis) % ins[0].ndim
    ctx.node("Concat", [t.name for t in ins], [outs[0].name], axis=axis)


def _stack(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    axis = int(func.axis) % outs[0].ndim
    axes = ctx.ints([axis], "axes")
    parts = [ctx.node("Unsqueeze", [t.name, axes])[0] for t in ins]
    ctx.node("Concat", parts, [outs[0].name], axis=axis)


def _split_axis(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x = ins[0]
    axis = int(func.axis) % x.ndim
    spans = func._spans
    if func._tiles:
        sizes = ctx.ints([b - a for a, b in spans], "split")
        ctx.node("Split", [x.name, sizes], [t.name for t in outs], axis=axis)
        return
    for (a, b), y in zip(spans, outs):
        ctx.node(
            "Slice",
            [
                x.name,
                ctx.ints([a], "starts"),
                ctx.ints([b], "ends"),
                ctx.ints([axis], "axes"),
            ],
            [y.name],
        )


def _separate(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x = ins[0]
    axis = int(func.axis) % x.ndim
    n = x.shape[axis]
    parts = ctx.node("Split", [x.name, ctx.ints([1] * n, "split")], n, axis=axis)
    axes = ctx.ints([axis], "axes")
    for p, y in zip(parts, outs):
        ctx.node("Squeeze", [p, axes], [y.name])


def _expand_dims(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    axis = int(func.axis) % outs[0].ndim
    ctx.node("Unsqueeze", [ins[0].name, ctx.ints([axis], "axes")], [outs[0].name])


def _squeeze(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x = ins[0]
    if func.axis is None:
        axes = [i for i, n in enumerate(x.shape) if n == 1]
    else:
        axis = func.axis if isinstance(func.axis, tuple) else (func.axis,)
        axes = [int(a) % x.ndim for a in axis]
    if not axes:
        ctx.node("Identity", [x.name], [outs[0].name])
        return
    ctx.node("Squeeze", [x.name, ctx.ints(axes, "axes")], [outs[0].name])


def _broadcast_to(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    ctx.node("Expand", [ins[0].name, ctx.ints(outs[0].shape, "shape")], [outs[0].name])


def _tile(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x = ins[0]
    reps = list(func.reps)
    name = x.name
    if len(reps) > x.ndim:  # numpy.tile prepends unit axes
        shape = [1] * (len(reps) - x.ndim) + list(x.shape)
        name = ctx.node("Reshape", [name, ctx.ints(shape, "shape")])[0]
    else:
        reps = [1] * (x.ndim - len(reps)) + reps
    ctx.node("Tile", [name, ctx.ints(reps, "repeats")], [outs[0].name])


def _cast(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    to = ctx.tensor_type(func.type)
    ctx.node("Cast", [ins[0].name], [outs[0].name], to=to)


def _where(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    cond = ctx.const(numpy.asarray(func.condition, dtype=bool), "condition")
    ctx.node("Where", [cond, ins[0].name, ins[1].name], [outs[0].name])


def _pad(ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]) -> None:
    x = ins[0]
    modes = {"constant": "constant", "edge": "edge", "reflect": "reflect"}
    if func.mode not in modes:
        raise unsupported(func, f"mode {func.mode!r} has no ONNX Pad equivalent")
    widths = numpy.broadcast_to(numpy.asarray(func.pad_width), (x.ndim, 2))
    pads = [int(w) for w in widths[:, 0]] + [int(w) for w in widths[:, 1]]
    args = [x.name, ctx.ints(pads, "pads")]
    if func.mode == "constant":
        value = numpy.asarray(func.keywords.get("constant_values", 0))
        if value.size != 1:
            raise unsupported(func, "constant_values must be one scalar")
        args.append(ctx.const(value.reshape(()), "constant_value", x.dtype))
    ctx.node("Pad", args, [outs[0].name], mode=modes[func.mode])


def _flip(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x = ins[0]
    axis = int(func.axis) % x.ndim
    args = [
        x.name,
        ctx.ints([-1], "starts"),
        ctx.ints([_INT64_MIN], "ends"),
        ctx.ints([axis], "axes"),
        ctx.ints([-1], "steps"),
    ]
    ctx.node("Slice", args, [outs[0].name])


def _depth_space(op_type: str) -> Any:
    # kusari's layouts are ONNX's DCR DepthToSpace and its SpaceToDepth.
    def convert(
        ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
    ) -> None:
        ctx.node(op_type, [ins[0].name], [outs[0].name], blocksize=int(func.r))

    return convert


def _repeat(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x, axis = ins[0], func.axis
    name = x.name
    if axis is None:  # numpy.repeat flattens first
        name = ctx.node("Reshape", [name, ctx.ints([-1], "shape")])[0]
        n, axis = int(numpy.prod(x.shape)), 0
    else:
        axis = int(axis) % x.ndim
        n = x.shape[axis]
    repeats = numpy.broadcast_to(numpy.asarray(func.repeats), (n,))
    picks = ctx.ints(numpy.repeat(numpy.arange(n), repeats).tolist(), "indices")
    ctx.node("Gather", [name, picks], [outs[0].name], axis=axis)


def _resize_images(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    if func.mode != "bilinear":
        raise unsupported(func, f"mode {func.mode!r} (only 'bilinear' converts)")
    x = ins[0]
    sizes = ctx.ints(list(x.shape[:2]) + list(func.out_hw), "sizes")
    transform = "align_corners" if func.align_corners else "half_pixel"
    ctx.node(
        "Resize",
        [x.name, "", "", sizes],
        [outs[0].name],
        mode="linear",
        coordinate_transformation_mode=transform,
    )


def _get_item(
    ctx: ConvertContext, func: Any, ins: list[Tensor], outs: list[Tensor]
) -> None:
    x = ins[0]
    slices = list(func.slices)
    arrays = [i for i, s in enumerate(slices) if hasattr(s, "dtype")]
    if arrays:
        _gather(ctx, func, x, slices, arrays, outs[0])
        return
    if Ellipsis in slices:
        at = slices.index(Ellipsis)
        fill = x.ndim - (len(slices) - 1 - slices.count(None))
        slices[at : at + 1] = [slice(None)] * fill
    slices += [slice(None)] * (x.ndim - (len(slices) - slices.count(None)))
    starts, ends, axes, steps = [], [], [], []
    squeeze, unsqueeze = [], []
    in_axis = out_axis = 0
    for s in slices:
        if s is None:
            unsqueeze.append(out_axis)
            out_axis += 1
            continue
        n = x.shape[in_axis]
        if isinstance(s, slice):
            if s != slice(None):
                start, stop, step = s.indices(n)
                if step < 0 and stop < 0:  # runs past the front
                    stop = _INT64_MIN
                starts.append(start)
                ends.append(stop)
                axes.append(in_axis)
                steps.append(step)
            out_axis += 1
        else:
            i = int(s) % n
            starts.append(i)
            ends.append(i + 1)
            axes.append(in_axis)
            steps.append(1)
            squeeze.append(in_axis)
        in_axis += 1
    name = x.name
    if axes:
        name = ctx.node(
            "Slice",
            [
                name,
                ctx.ints(starts, "starts"),
                ctx.ints(ends, "ends"),
                ctx.ints(axes, "axes"),
                ctx.ints(steps, "steps"),
            ],
        )[0]
    if squeeze:
        name = ctx.node("Squeeze", [name, ctx.ints(squeeze, "axes")])[0]
    if unsqueeze:
        name = ctx.node("Unsqueeze", [name, ctx.ints(unsqueeze, "axes")])[0]
    ctx.node("Identity", [name], [outs[0].name])


def _gather(
    ctx: ConvertContext,
    func: Any,
    x: Tensor,
    slices: list[Any],
    arrays: list[int],
    out: Tensor,
) -> None:
    """``x[:, ..., idx]``: one integer index array, full slices elsewhere."""
    (at,) = arrays if len(arrays) == 1 else (None,)
    others = [s for i, s in enumerate(slices) if i != at]
    if at is None or any(s != slice(None) for s in others) or at >= x.ndim:
        raise unsupported(
            func, "only one integer index array with full slices elsewhere is supported"
        )
    idx = numpy.asarray(_host(slices[at]))
    if idx.dtype.kind not in "iu":
        raise unsupported(func, f"index arrays of dtype {idx.dtype} are not supported")
    ids = ctx.const(idx.astype(numpy.int64), "indices")
    ctx.node("Gather", [x.name, ids], [out.name], axis=at)


def _host(a: Any) -> Any:
    return a.get() if hasattr(a, "get") and not isinstance(a, numpy.ndarray) else a


register_converter(Reshape, _reshape)
register_converter(Flatten, _flatten)
register_converter(Transpose, _transpose)
register_converter(Permute, _transpose)
register_converter(Concat, _concat)
register_converter(Stack, _stack)
register_converter(SplitAxis, _split_axis)
register_converter(Separate, _separate)
register_converter(ExpandDims, _expand_dims)
register_converter(Squeeze, _squeeze)
register_converter(BroadcastTo, _broadcast_to)
register_converter(Tile, _tile)
register_converter(Cast, _cast)
register_converter(Where, _where)
register_converter(Pad, _pad)
register_converter(GetItem, _get_item)
register_converter(Flip, _flip)
register_converter(FlipLR, _flip)
register_converter(FlipUD, _flip)
register_converter(Depth2Space, _depth_space("DepthToSpace"))
register_converter(Space2Depth, _depth_space("SpaceToDepth"))
register_converter(Repeat, _repeat)
register_converter(ResizeImages, _resize_images)
