"""``resize_images``: bilinear or nearest-neighbour resizing of image batches."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.array._util import scatter_add_flat
from kusari.utils import type_check
from kusari.variable import Variable


def _coords(
    out_size: int, in_size: int, mode: str, align_corners: bool
) -> tuple[Any, Any]:
    """Source index (int) and the weight of the next pixel, along one axis."""
    if mode == "bilinear":
        if align_corners:
            pos = numpy.linspace(0, in_size - 1, num=out_size, dtype=numpy.float64)
        else:
            scale = in_size / out_size
            pos = numpy.maximum((numpy.arange(out_size) + 0.5) * scale - 0.5, 0)
        frac, base = numpy.modf(pos)
    else:
        scale = in_size / out_size
        base = numpy.minimum(numpy.floor(numpy.arange(out_size) * scale), in_size - 1)
        frac = numpy.zeros(out_size)
    return base.astype(numpy.intp), frac


class _Plan:
    """Four (index, weight) taps per output pixel, shared by forward/backward."""

    def __init__(
        self,
        in_hw: tuple[int, int],
        out_hw: tuple[int, int],
        mode: str,
        align_corners: bool,
    ) -> None:
        h, w = in_hw
        v, vw = _coords(out_hw[0], h, mode, align_corners)
        u, uw = _coords(out_hw[1], w, mode, align_corners)
        v1 = numpy.minimum(v + 1, h - 1)
        u1 = numpy.minimum(u + 1, w - 1)
        idx = [(vv[:, None] * w + uu[None, :]) for vv in (v, v1) for uu in (u, u1)]
        wts = [(a[:, None] * b[None, :]) for a in (1 - vw, vw) for b in (1 - uw, uw)]
        self.index = numpy.stack(idx)  # (4, out_h, out_w)
        self.weight = numpy.stack(wts)  # (4, out_h, out_w), float64
        self.in_hw = in_hw
        self.out_hw = out_hw

    def apply(self, x: Any) -> Any:
        xp = backend.get_array_module(x)
        n, c = x.shape[:2]
        flat = x.reshape(n, c, -1)
        idx = xp.asarray(self.index)
        wt = xp.asarray(self.weight.astype(x.dtype))
        taps = flat[:, :, idx]  # (n, c, 4, out_h, out_w)
        return (taps * wt).sum(axis=2).astype(x.dtype, copy=False)

    def adjoint(self, gy: Any) -> Any:
        xp = backend.get_array_module(gy)
        n, c = gy.shape[:2]
        h, w = self.in_hw
        idx = (
            xp.asarray(self.index)[None]
            + (xp.arange(n * c) * (h * w))[:, None, None, None]
        )
        wt = xp.asarray(self.weight)
        vals = gy.reshape(n * c, 1, *self.out_hw).astype(numpy.float64) * wt
        gx = scatter_add_flat(xp, idx, vals, n * c * h * w, gy.dtype)
        return gx.reshape(n, c, h, w)


class ResizeImages(FunctionNode):
    """Resize ``(n, c, h, w)`` images to ``(n, c, out_h, out_w)``."""

    def __init__(
        self, output_shape: Any, mode: str = "bilinear", align_corners: bool = True
    ) -> None:
        if mode not in ("bilinear", "nearest"):
            raise ValueError(
                f"resize_images: mode must be 'bilinear' or 'nearest', got {mode!r}"
            )
        out = tuple(int(s) for s in output_shape)
        if len(out) != 2 or min(out) < 1:
            raise ValueError(
                "resize_images: output_shape must be a pair of positive "
                f"ints, got {output_shape!r}"
            )
        self.out_hw = out
        self.mode = mode
        self.align_corners = align_corners

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        type_check.expect(x.dtype.kind == "f", x.ndim == 4)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._plan = _Plan(x.shape[2:], self.out_hw, self.mode, self.align_corners)
        return (self._plan.apply(x),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return ResizeImagesGrad(self._plan).apply(grad_outputs)


class ResizeImagesGrad(FunctionNode):
    """The adjoint of :class:`ResizeImages` (scatter the taps back)."""

    def __init__(self, plan: _Plan) -> None:
        self.plan = plan

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (self.plan.adjoint(inputs[0]),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return _ResizeApply(self.plan).apply(grad_outputs)


class _ResizeApply(FunctionNode):
    def __init__(self, plan: _Plan) -> None:
        self.plan = plan

    @property
    def label(self) -> str:
        return "ResizeImages"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (self.plan.apply(inputs[0]),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return ResizeImagesGrad(self.plan).apply(grad_outputs)


def resize_images(
    x: Any, output_shape: Any, mode: str = "bilinear", align_corners: bool = True
) -> Variable:
    """Resize a batch of images.

    Args:
        x: Variable of shape ``(n, c, h, w)``.
        output_shape: ``(out_h, out_w)`` (height first, unlike OpenCV).
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: For bilinear: map the corner pixels of input and
            output onto each other (True) or use half-pixel centres.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([[[[0., 1.]]]], np.float32)
        >>> F.resize_images(x, (1, 3)).array
        array([[[[0. , 0.5, 1. ]]]], dtype=float32)
    """
    return ResizeImages(output_shape, mode, align_corners).apply((x,))[0]
