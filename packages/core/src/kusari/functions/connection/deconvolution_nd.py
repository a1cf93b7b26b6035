"""N-dimensional transposed convolution (``deconvolution_nd``, ``_1d``, ``_3d``).

The forward is one batched GEMM ``W^T x`` followed by ``col2im`` (one
vectorised add per kernel offset); its input gradient is a convolution and its
weight gradient a :class:`ConvolutionNDGradW` with the roles of input and
output exchanged, so double backprop works. As for convolutions, ``x`` and
``W`` may differ in float dtype: ``y`` has ``x``'s dtype and each gradient its
input's dtype.
"""

from __future__ import annotations

from typing import Any

from kusari import utils
from kusari.function_node import FunctionNode
from kusari.functions.connection import _conv_core as core
from kusari.functions.connection.convolution_nd import (
    ConvolutionND,
    ConvolutionNDGradW,
    OutputSizeError,
    _bias_grad,
    _check_x_w,
    _widen,
)
from kusari.utils import type_check
from kusari.variable import Variable


class DeconvolutionND(FunctionNode):
    """Transposed convolution of ``x`` (N, C_in, *in) by ``W`` (C_in, C_out/g, *k)."""

    def __init__(
        self,
        ndim: int,
        stride: Any = 1,
        pad: Any = 0,
        outsize: Any = None,
        dilate: Any = 1,
        groups: int = 1,
        check_outsize: bool = True,
        fname: str = "deconvolution_nd",
    ) -> None:
        self.ndim = ndim
        self.stride = core.as_tuple(stride, ndim, fname, "stride")
        self.pad = core.as_tuple(pad, ndim, fname, "pad")
        self.dilate = core.as_tuple(dilate, ndim, fname, "dilate")
        self.outsize = (
            None if outsize is None else core.as_tuple(outsize, ndim, fname, "outsize")
        )
        self.groups = int(groups)
        self.check_outsize = check_outsize
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
        return "Deconvolution2DFunction" if self.ndim == 2 else "DeconvolutionND"

    def check_type_forward(self, in_types: Any) -> None:
        _check_x_w(
            in_types, self.ndim, self.groups, 0, self.fname == "deconvolution_2d"
        )
        w_in = type_check.eval(in_types[1].shape)[0]
        if w_in % self.groups:
            raise type_check.InvalidType(
                "W.shape[0] % groups == 0", f"{w_in} % {self.groups} != 0"
            )
        if self.outsize is not None and self.check_outsize:
            x_shape = type_check.eval(in_types[0].shape)
            k = type_check.eval(in_types[1].shape)[2:]
            for ax, (n, o, kk, s, p, d) in enumerate(
                zip(x_shape[2:], self.outsize, k, self.stride, self.pad, self.dilate)
            ):
                lo = utils.get_conv_outsize(o, kk, s, p, d=d)
                hi = utils.get_conv_outsize(o, kk, s, p, cover_all=True, d=d)
                if not lo <= n <= hi:
                    raise type_check.InvalidType(
                        f"{lo} <= x.shape[{ax + 2}] <= {hi} "
                        f"(from outsize={self.outsize})",
                        f"x.shape[{ax + 2}] == {n}",
                    )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        self._b_dtype = None if b is None else b.dtype
        k = tuple(W.shape[2:])
        if self.outsize is None:
            out = tuple(
                utils.get_deconv_outsize(n, kk, s, p, d=d)
                for n, kk, s, p, d in zip(
                    x.shape[2:], k, self.stride, self.pad, self.dilate
                )
            )
            if any(o <= 0 for o in out):
                raise OutputSizeError(
                    f"{self.fname}: the output size {out} is not positive (input "
                    f"{tuple(x.shape[2:])}, kernel {k}, stride {self.stride}, pad "
                    f"{self.pad}, dilate {self.dilate})"
                )
        else:
            out = self.outsize
        y = core.deconv_forward(
            _widen(x, W),
            W,
            b,
            self.stride,
            self.pad,
            self.dilate,
            self.groups,
            tuple(out),
        )
        return (y if y.dtype == x.dtype else y.astype(x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(
                    ConvolutionND(
                        self.ndim,
                        self.stride,
                        self.pad,
                        False,
                        self.dilate,
                        self.groups,
                        outsize=tuple(x.shape[2:]),
                    ).apply((gy, W))[0]
                )
            elif i == 1:
                ret.append(
                    ConvolutionNDGradW(self, tuple(W.shape), W.dtype).apply((gy, x))[0]
                )
            else:
                ret.append(_bias_grad(gy, self._b_dtype))
        return tuple(ret)


def _deconv(
    x: Any,
    W: Any,
    b: Any,
    ndim: int,
    stride: Any,
    pad: Any,
    outsize: Any,
    dilate: Any,
    groups: int,
    fname: str,
) -> Variable:
    node = DeconvolutionND(ndim, stride, pad, outsize, dilate, groups, fname=fname)
    args = (x, W) if b is None else (x, W, b)
    return node.apply(args)[0]


def deconvolution_nd(
    x: Any,
    W: Any,
    b: Any = None,
    stride: Any = 1,
    pad: Any = 0,
    outsize: Any = None,
    dilate: Any = 1,
    groups: int = 1,
) -> Variable:
    """N-dimensional transposed convolution (the adjoint of :func:`convolution_nd`).

    Args:
        x: Input of shape ``(n, c_I, d_1, ..., d_N)``.
        W: Filter of shape ``(c_I, c_O / groups, k_1, ..., k_N)``.
        b: Optional bias of shape ``(c_O,)``.
        stride: Stride (int or tuple).
        pad: Padding removed from the output (int or tuple).
        outsize: Output spatial size; inferred (``s (d - 1) + k - 2p``) if None.
        dilate: Dilation of the filter.
        groups: Number of channel groups.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.deconvolution_nd(np.ones((1, 1, 2), np.float32),
        ...                    np.ones((1, 1, 3), np.float32)).array
        array([[[1., 2., 2., 1.]]], dtype=float32)
    """
    if len(x.shape) < 3:
        raise ValueError(
            f"deconvolution_nd: x must have at least 3 dimensions, got "
            f"shape {tuple(x.shape)}"
        )
    return _deconv(
        x,
        W,
        b,
        len(x.shape) - 2,
        stride,
        pad,
        outsize,
        dilate,
        groups,
        "deconvolution_nd",
    )


def deconvolution_1d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: Any = 1,
    pad: Any = 0,
    outsize: Any = None,
    dilate: Any = 1,
    groups: int = 1,
) -> Variable:
    """1-dimensional transposed convolution.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.deconvolution_1d(np.ones((1, 2, 3), np.float32),
        ...                    np.ones((2, 4, 2), np.float32), stride=2).shape
        (1, 4, 6)
    """
    if len(x.shape) != 3:
        raise ValueError(
            f"deconvolution_1d: x must be 3-dimensional, got shape {tuple(x.shape)}"
        )
    return _deconv(x, W, b, 1, stride, pad, outsize, dilate, groups, "deconvolution_1d")


def deconvolution_3d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: Any = 1,
    pad: Any = 0,
    outsize: Any = None,
    dilate: Any = 1,
    groups: int = 1,
) -> Variable:
    """3-dimensional transposed convolution.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.deconvolution_3d(np.ones((1, 1, 2, 2, 2), np.float32),
        ...                    np.ones((1, 3, 2, 2, 2), np.float32)).shape
        (1, 3, 3, 3, 3)
    """
    if len(x.shape) != 5:
        raise ValueError(
            f"deconvolution_3d: x must be 5-dimensional, got shape {tuple(x.shape)}"
        )
    return _deconv(x, W, b, 3, stride, pad, outsize, dilate, groups, "deconvolution_3d")
