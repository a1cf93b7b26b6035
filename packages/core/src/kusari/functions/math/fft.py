"""Discrete Fourier transforms over the last axis: ``fft`` and ``ifft``."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class FFT(FunctionNode):
    """``method`` is ``'fft'`` or ``'ifft'``; inputs and outputs are (real, imag)."""

    def __init__(self, method: str) -> None:
        self._method = method

    @property
    def label(self) -> str:
        return self._method

    def check_type_forward(self, in_types: Any) -> None:
        check_float(in_types, ("real", "imag"))
        type_check.expect(in_types[0].shape == in_types[1].shape, in_types[0].ndim >= 1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        real, imag = inputs
        xp = backend.get_array_module(real)
        self._shape, self._dtype = real.shape, real.dtype
        x = real + 1j * imag
        y = getattr(xp.fft, self._method)(x, axis=-1)
        return force_array(y.real, real.dtype), force_array(y.imag, real.dtype)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gr, gi = grad_outputs
        n = self._shape[-1]
        if gr is None or gi is None:
            shape, dtype = self._shape, self._dtype
            like = (gr if gr is not None else gi).array
            zeros = backend.get_array_module(like).zeros(shape, dtype)
            gr = zeros if gr is None else gr
            gi = zeros if gi is None else gi
        # The adjoint of fft is n * ifft and that of ifft is fft / n.
        if self._method == "fft":
            r, i = FFT("ifft").apply((gr, gi))
            return tuple([(r if k == 0 else i) * float(n) for k in indexes])
        r, i = FFT("fft").apply((gr, gi))
        return tuple([(r if k == 0 else i) * (1.0 / n) for k in indexes])


def _apply(method: str, x: Any) -> tuple[Variable, Variable]:
    if not isinstance(x, tuple) or len(x) != 2:
        raise TypeError(
            f"{method}: x must be a tuple (real, imag) of two arrays, "
            f"got {type(x).__name__}"
        )
    r, i = FFT(method).apply(x)
    return r, i


def fft(x: Any) -> tuple[Variable, Variable]:
    """1-D discrete Fourier transform over the last axis.

    Args:
        x: A pair ``(real, imag)`` of same-shaped float arrays.

    Returns:
        The pair ``(real, imag)`` of the transform.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> r, i = F.fft((np.ones(4, np.float32), np.zeros(4, np.float32)))
        >>> r.array
        array([4., 0., 0., 0.], dtype=float32)
    """
    return _apply("fft", x)


def ifft(x: Any) -> tuple[Variable, Variable]:
    """1-D inverse discrete Fourier transform over the last axis.

    Args:
        x: A pair ``(real, imag)`` of same-shaped float arrays.

    Returns:
        The pair ``(real, imag)`` of the inverse transform.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([4., 0., 0., 0.], np.float32)
        >>> r, i = F.ifft((x, np.zeros(4, np.float32)))
        >>> r.array
        array([1., 1., 1., 1.], dtype=float32)
    """
    return _apply("ifft", x)
