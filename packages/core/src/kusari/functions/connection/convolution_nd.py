"""N-d convolution (``convolution_nd``, ``convolution_1d``, ``convolution_3d``).

The forward is im2col as one strided view plus one batched GEMM (see
``_conv_core``); the input gradient is a transposed convolution and the weight
gradient a :class:`ConvolutionNDGradW` node, both differentiable again.

``x`` and ``W`` may differ in float dtype, as in Chainer 7 (e.g. a float16
``x`` with a float32 ``W``): the convolution is computed in the promoted
dtype, ``y`` (and the bias) has ``x``'s dtype, ``gx`` comes back in ``x``'s
dtype and ``gW`` in ``W``'s.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari import utils
from kusari.function_node import FunctionNode
from kusari.functions.connection import _conv_core as core
from kusari.utils import type_check
from kusari.variable import Variable


class OutputSizeError(ValueError, AssertionError):
    """A convolution's output would have a non-positive spatial size.

    Also an :class:`AssertionError`, which is what Chainer 7 raises there.
    """


def _check_x_w(
    in_types: Any, ndim: int, groups: int, w_in_axis: int, bias_same_dtype: bool
) -> None:
    """Shared checks of (x, W[, b]) for convolutions (w_in_axis=1) and
    deconvolutions (w_in_axis=0).

    Chainer 7's 2-d functions require ``b.dtype == x.dtype``; its N-d ones
    accept any float bias (``y`` keeps ``x``'s dtype, ``gb`` gets ``b``'s).
    """
    n_in = len(in_types)
    type_check._argname(in_types, ("x", "W") if n_in == 2 else ("x", "W", "b"))
    x, w = in_types[0], in_types[1]
    type_check.expect(
        x.dtype.kind == "f",
        w.dtype.kind == "f",
        x.ndim == ndim + 2,
        w.ndim == ndim + 2,
    )
    if w_in_axis == 1:
        type_check.expect(x.shape[1] == w.shape[1] * groups)
    else:
        type_check.expect(x.shape[1] == w.shape[0])
    if n_in == 3:
        b = in_types[2]
        b_dtype_ok = b.dtype == x.dtype if bias_same_dtype else b.dtype.kind == "f"
        if w_in_axis == 1:
            type_check.expect(b_dtype_ok, b.ndim == 1, b.shape[0] == w.shape[0])
        else:
            type_check.expect(
                b_dtype_ok, b.ndim == 1, b.shape[0] == w.shape[1] * groups
            )


def _widen(x: Any, *others: Any) -> Any:
    """``x`` in the dtype promoted with ``others`` (arrays or dtypes).

    The kernels compute in their first operand's dtype (float16 in float32)
    and cast the other operand to it, so a mixed-dtype call first widens the
    first operand: a float16 ``x`` with a float32 ``W`` is convolved in
    float32, as NumPy's promotion does in Chainer.
    """
    wide = numpy.result_type(x.dtype, *(getattr(o, "dtype", o) for o in others))
    return x if x.dtype == wide else x.astype(wide)


class ConvolutionND(FunctionNode):
    """N-d convolution of ``x`` (N, C, *in) with ``W`` (O, C/groups, *k)."""

    def __init__(
        self,
        ndim: int,
        stride: Any = 1,
        pad: Any = 0,
        cover_all: bool = False,
        dilate: Any = 1,
        groups: int = 1,
        outsize: tuple[int, ...] | None = None,
        fname: str = "convolution_nd",
    ) -> None:
        self.ndim = ndim
        self.stride = core.as_tuple(stride, ndim, fname, "stride")
        self.pad = core.as_tuple(pad, ndim, fname, "pad")
        self.dilate = core.as_tuple(dilate, ndim, fname, "dilate")
        self.cover_all = bool(cover_all)
        self.groups = int(groups)
        self.outsize = (
            outsize  # explicit output size (used by deconvolution's backward)
        )
        self.fname = fname
        if any(v <= 0 for v in self.stride) or any(v <= 0 for v in self.dilate):
            raise ValueError(
                f"{fname}: stride and dilate must be positive, got "
                f"stride={stride!r}, dilate={dilate!r}"
            )
        if any(v < 0 for v in self.pad):
            raise ValueError(f"{fname}: pad must be non-negative, got {pad!r}")
        if self.groups <= 0:
            raise ValueError(f"{fname}: groups must be positive, got {groups!r}")

    @property
    def label(self) -> str:
        return "Convolution2DFunction" if self.ndim == 2 else "ConvolutionND"

    def check_type_forward(self, in_types: Any) -> None:
        _check_x_w(in_types, self.ndim, self.groups, 1, self.fname == "convolution_2d")
        w_out = type_check.eval(in_types[1].shape)[0]
        if w_out % self.groups:
            raise type_check.InvalidType(
                "W.shape[0] % groups == 0", f"{w_out} % {self.groups} != 0"
            )

    def _out_size(
        self, x_shape: tuple[int, ...], k: tuple[int, ...]
    ) -> tuple[int, ...]:
        if self.outsize is not None:
            return tuple(self.outsize)
        out = tuple(
            utils.get_conv_outsize(n, kk, s, p, cover_all=self.cover_all, d=d)
            for n, kk, s, p, d in zip(x_shape, k, self.stride, self.pad, self.dilate)
        )
        if any(o <= 0 for o in out):
            raise OutputSizeError(
                f"{self.fname}: the output size {out} is not positive (input "
                f"{tuple(x_shape)}, kernel {k}, stride {self.stride}, pad {self.pad}, "
                f"dilate {self.dilate})"
            )
        return out

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        self._b_dtype = None if b is None else b.dtype
        out = self._out_size(x.shape[2:], tuple(W.shape[2:]))
        y = core.conv_forward(
            _widen(x, W), W, b, self.stride, self.pad, self.dilate, self.groups, out
        )
        return (y if y.dtype == x.dtype else y.astype(x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.connection.deconvolution_nd import DeconvolutionND

        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(
                    DeconvolutionND(
                        self.ndim,
                        self.stride,
                        self.pad,
                        tuple(x.shape[2:]),
                        self.dilate,
                        self.groups,
                        check_outsize=False,
                    ).apply((gy, W))[0]
                )
            elif i == 1:
                ret.append(
                    ConvolutionNDGradW(self, tuple(W.shape), W.dtype).apply((x, gy))[0]
                )
            else:
                ret.append(_bias_grad(gy, self._b_dtype))
        return tuple(ret)


def _bias_grad(gy: Any, b_dtype: Any) -> Any:
    """``gb``: ``gy`` summed over all axes but the channel one, in ``b_dtype``."""
    from kusari.functions.array.cast import cast
    from kusari.functions.math.sum import sum as _sum

    gb = _sum(gy, axis=(0,) + tuple(range(2, gy.ndim)))
    return gb if gb.dtype == b_dtype else cast(gb, b_dtype)


class ConvolutionNDGradW(FunctionNode):
    """Weight gradient of a convolution: ``(x, gy) -> gW``.

    ``w_dtype`` is the weight's dtype, that of ``gW`` (``x``'s when None).
    """

    def __init__(
        self, conv: Any, w_shape: tuple[int, ...], w_dtype: Any = None
    ) -> None:
        self.ndim = conv.ndim
        self.stride = conv.stride
        self.pad = conv.pad
        self.dilate = conv.dilate
        self.groups = conv.groups
        self.w_shape = w_shape
        self.w_dtype = None if w_dtype is None else numpy.dtype(w_dtype)

    @property
    def label(self) -> str:
        return "Convolution2DGradW" if self.ndim == 2 else "ConvolutionNDGradW"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        w_dtype = x.dtype if self.w_dtype is None else self.w_dtype
        # Summed in the dtype promoted from x, gy and W, returned in W's.
        x = _widen(x, gy, w_dtype)
        gW = core.conv_grad_weight(
            x,
            _widen(gy, x),
            self.w_shape,
            self.stride,
            self.pad,
            self.dilate,
            self.groups,
        )
        return (gW if gW.dtype == w_dtype else gW.astype(w_dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.connection.deconvolution_nd import DeconvolutionND

        x, gy = self.get_retained_inputs()
        (ggW,) = grad_outputs
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(
                    DeconvolutionND(
                        self.ndim,
                        self.stride,
                        self.pad,
                        tuple(x.shape[2:]),
                        self.dilate,
                        self.groups,
                        check_outsize=False,
                    ).apply((gy, ggW))[0]
                )
            else:
                ret.append(
                    ConvolutionND(
                        self.ndim,
                        self.stride,
                        self.pad,
                        False,
                        self.dilate,
                        self.groups,
                        outsize=tuple(gy.shape[2:]),
                    ).apply((x, ggW))[0]
                )
        return tuple(ret)


def _conv(
    x: Any,
    W: Any,
    b: Any,
    ndim: int,
    stride: Any,
    pad: Any,
    cover_all: bool,
    dilate: Any,
    groups: int,
    fname: str,
) -> Variable:
    node = ConvolutionND(ndim, stride, pad, cover_all, dilate, groups, fname=fname)
    args = (x, W) if b is None else (x, W, b)
    return node.apply(args)[0]


def _ndim_of(x: Any, fname: str) -> int:
    shape = x.shape
    if len(shape) < 3:
        raise ValueError(
            f"{fname}: x must have at least 3 dimensions (N, C, *spatial), "
            f"got shape {tuple(shape)}"
        )
    return len(shape) - 2


def convolution_nd(
    x: Any,
    W: Any,
    b: Any = None,
    stride: Any = 1,
    pad: Any = 0,
    cover_all: bool = False,
    dilate: Any = 1,
    groups: int = 1,
) -> Variable:
    """N-dimensional convolution.

    Args:
        x: Input of shape ``(n, c_I, d_1, ..., d_N)``.
        W: Filter of shape ``(c_O, c_I / groups, k_1, ..., k_N)``.
        b: Optional bias of shape ``(c_O,)``.
        stride: Stride (int or tuple of N ints).
        pad: Zero padding on both sides (int or tuple).
        cover_all: Extend the output so every input pixel is covered.
        dilate: Dilation of the filter (int or tuple).
        groups: Number of channel groups.

    Returns:
        Output of shape ``(n, c_O, l_1, ..., l_N)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones((1, 1, 4), np.float32)
        >>> W = np.ones((1, 1, 3), np.float32)
        >>> F.convolution_nd(x, W).array
        array([[[3., 3.]]], dtype=float32)
    """
    ndim = _ndim_of(x, "convolution_nd")
    return _conv(
        x, W, b, ndim, stride, pad, cover_all, dilate, groups, "convolution_nd"
    )


def convolution_1d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: Any = 1,
    pad: Any = 0,
    cover_all: bool = False,
    dilate: Any = 1,
    groups: int = 1,
) -> Variable:
    """1-dimensional convolution (:func:`convolution_nd` with a 3-d ``x``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.convolution_1d(np.ones((1, 2, 5), np.float32),
        ...                  np.ones((3, 2, 2), np.float32)).shape
        (1, 3, 4)
    """
    if len(x.shape) != 3:
        raise ValueError(
            f"convolution_1d: x must be 3-dimensional, got shape {tuple(x.shape)}"
        )
    return _conv(x, W, b, 1, stride, pad, cover_all, dilate, groups, "convolution_1d")


def convolution_3d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: Any = 1,
    pad: Any = 0,
    cover_all: bool = False,
    dilate: Any = 1,
    groups: int = 1,
) -> Variable:
    """3-dimensional convolution (:func:`convolution_nd` with a 5-d ``x``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.convolution_3d(np.ones((1, 1, 3, 3, 3), np.float32),
        ...                  np.ones((2, 1, 2, 2, 2), np.float32)).shape
        (1, 2, 2, 2, 2)
    """
    if len(x.shape) != 5:
        raise ValueError(
            f"convolution_3d: x must be 5-dimensional, got shape {tuple(x.shape)}"
        )
    return _conv(x, W, b, 3, stride, pad, cover_all, dilate, groups, "convolution_3d")
