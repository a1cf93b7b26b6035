"""Local response normalization across channels."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import force_array, type_check
from kusari.variable import Variable


def _window_sum(a: Any, half: int) -> Any:
    """``out[:, c] = sum(a[:, c - half : c + half + 1])`` (clipped at the ends)."""
    xp = backend.get_array_module(a)
    c = a.shape[1]
    pad = [(0, 0)] * a.ndim
    pad[1] = (half + 1, half)
    cs = xp.cumsum(xp.pad(a, pad), axis=1)
    return cs[:, 2 * half + 1:2 * half + 1 + c] - cs[:, :c]


class _ChannelWindowSum(FunctionNode):
    """The window sum over ``2 * half + 1`` neighbouring channels; self-adjoint."""

    def __init__(self, half: int) -> None:
        self.half = half

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, = inputs
        ac = a.astype("float32", copy=False) if a.dtype.itemsize < 4 else a
        return force_array(_window_sum(ac, self.half), a.dtype),

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return _ChannelWindowSum(self.half).apply(grad_outputs)


class LocalResponseNormalization(FunctionNode):
    """``x / (k + alpha * window_sum(x ** 2)) ** beta`` (``n // 2`` channels a side)."""

    def __init__(self, n: int = 5, k: float = 2.0, alpha: float = 1e-4,
                 beta: float = 0.75) -> None:
        if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
            raise ValueError(
                f"local_response_normalization: n must be a positive int, got {n!r}")
        self.half = n // 2
        self.k = k
        self.alpha = alpha
        self.beta = beta

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f", in_types[0].ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        xc = x.astype("float32", copy=False) if x.dtype.itemsize < 4 else x
        scale = self.k + self.alpha * _window_sum(xc * xc, self.half)
        return force_array(xc * xp.power(scale, -self.beta), x.dtype),

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        win = _ChannelWindowSum(self.half)
        scale = win.apply((x * x,))[0] * self.alpha + self.k
        s_b = scale ** (-self.beta)
        inner = _ChannelWindowSum(self.half).apply((gy * x * (s_b / scale),))[0]
        return gy * s_b - (2.0 * self.alpha * self.beta) * x * inner,


def local_response_normalization(x: Any, n: int = 5, k: float = 2.0,
                                 alpha: float = 1e-4, beta: float = 0.75) -> Variable:
    """Local response normalization across channels (axis 1).

    ``y[:, c] = x[:, c] / (k + alpha * sum(x[:, c'] ** 2)) ** beta``, the sum
    running over ``c - n // 2 <= c' <= c + n // 2``.

    Args:
        x: Input of a float dtype, ``ndim >= 2``.
        n: Window size (``n // 2`` channels on each side).
        k: Offset.
        alpha: Scale of the sum of squares.
        beta: Exponent.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones((1, 3), np.float32)
        >>> F.local_response_normalization(x, n=3, k=1., alpha=1., beta=1.).array
        array([[0.33333334, 0.25      , 0.33333334]], dtype=float32)
    """
    return LocalResponseNormalization(n, k, alpha, beta).apply((x,))[0]
