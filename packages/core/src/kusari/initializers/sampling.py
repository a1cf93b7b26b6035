"""Bilinear up/down-sampling filters for (de)convolution weights."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend, initializer
from kusari.initializer import DTypeLike


def _linear_filter(size: int, ndim: int, upsampling: bool) -> numpy.ndarray:
    """An ``ndim``-D separable tent kernel of width ``size``."""
    factor = (size + 1) // 2
    center = factor - 1.0 if size % 2 == 1 else factor - 0.5
    kernel = numpy.ones((size,) * ndim)
    for axis in range(ndim):
        coords = numpy.arange(size).reshape(
            [-1 if i == axis else 1 for i in range(ndim)]
        )
        kernel = kernel * (1.0 - numpy.abs(coords - center) / factor)
    if not upsampling:
        # A downsampling filter averages, so its weights sum to one.
        kernel /= kernel.sum()
    return kernel


class _SamplingFilter(initializer.Initializer):
    _upsampling: bool

    def __init__(
        self, interpolation: str = "linear", dtype: DTypeLike | None = None
    ) -> None:
        if interpolation != "linear":
            raise ValueError(
                f"Unsupported interpolation method: {interpolation!r} "
                "(only 'linear' is available)"
            )
        self.interpolation = interpolation
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        if array.ndim < 3:
            raise ValueError(
                f"{type(self).__name__} needs a (de)convolution weight of shape "
                f"(c_out, c_in, k, ...), got shape={array.shape}"
            )
        in_c, out_c = array.shape[:2]
        if not (in_c == out_c or out_c == 1):
            raise ValueError(
                "the first two axes must be equal, or the second must be 1 "
                f"(depthwise), got shape={array.shape}"
            )
        ksizes = set(array.shape[2:])
        if len(ksizes) != 1:
            raise ValueError(f"ksize must be all same, got {array.shape[2:]}")
        (ksize,) = ksizes
        xp = backend.get_array_module(array)
        kernel = xp.asarray(_linear_filter(ksize, array.ndim - 2, self._upsampling))
        array[...] = 0
        channels = xp.arange(in_c)
        # Channel i only sees channel i: a per-channel (depthwise) resampler.
        if out_c == 1:
            array[channels, 0, ...] = kernel
        else:
            array[channels, channels, ...] = kernel


class UpsamplingDeconvFilter(_SamplingFilter):
    """Bilinear upsampling kernel for a deconvolution weight (Long et al. 2015).

    Use with a deconvolution of ``stride = (ksize + 1) // 2``.

    Args:
        interpolation: Only ``'linear'`` is supported.
        dtype: Data type specifier.

    Example:
        >>> import numpy
        >>> w = numpy.empty((1, 1, 4, 4), dtype=numpy.float32)
        >>> UpsamplingDeconvFilter()(w)
        >>> w[0, 0, 0].tolist()
        [0.0625, 0.1875, 0.1875, 0.0625]
    """

    _upsampling = True


class DownsamplingConvFilter(_SamplingFilter):
    """Bilinear downsampling (averaging) kernel for a convolution weight.

    Use with a convolution of ``stride = (ksize + 1) // 2``; each kernel
    sums to one.

    Args:
        interpolation: Only ``'linear'`` is supported.
        dtype: Data type specifier.

    Example:
        >>> import numpy
        >>> w = numpy.empty((2, 2, 3, 3), dtype=numpy.float32)
        >>> DownsamplingConvFilter()(w)
        >>> float(w[0, 0].sum()), float(w[0, 1].sum())
        (1.0, 0.0)
    """

    _upsampling = False
