"""Local response normalization across channels."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import force_array, type_check
from kusari.variable import Variable


def _window_sum(a: Any, half: int) -> Any:
    """``out[:, c] = sum(a[:, c - half : c + half + 1])`` (clipped at the ends)."""
    c = a.shape[1]
    if half <= 8:
        # A few shifted adds beat a strided cumsum for the usual small windows.
        out = a.copy()
        for i in range(1, min(half, c - 1) + 1):
            out[:, i:] += a[:, :-i]
            out[:, :-i] += a[:, i:]
        return out
    xp = backend.get_array_module(a)
    pad = [(0, 0)] * a.ndim
    pad[1] = (half + 1, half)
    cs = xp.cumsum(xp.pad(a, pad), axis=1)
    return cs[:, 2 * half + 1 : 2 * half + 1 + c] - cs[:, :c]


class _ChannelWindowSum(FunctionNode):
    """The window sum over ``2 * half + 1`` neighbouring channels; self-adjoint."""

    def __init__(self, half: int) -> None:
        self.half = half

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (a,) = inputs
        ac = a.astype("float32", copy=False) if a.dtype.itemsize < 4 else a
        return (force_array(_window_sum(ac, self.half), a.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return _ChannelWindowSum(self.half).apply(grad_outputs)


class LocalResponseNormalization(FunctionNode):
    """``x / (k + alpha * window_sum(x ** 2)) ** beta`` (``n // 2`` channels a side)."""

    def __init__(
        self, n: int = 5, k: float = 2.0, alpha: float = 1e-4, beta: float = 0.75
    ) -> None:
        if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
            raise ValueError(
                f"local_response_normalization: n must be a positive int, got {n!r}"
            )
        self.half = n // 2
        self.k = k
        self.alpha = alpha
        self.beta = beta

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f", in_types[0].ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        xc = x.astype("float32", copy=False) if x.dtype.itemsize < 4 else x
        self.scale = self.k + self.alpha * _window_sum(xc * xc, self.half)
        self.scale_pow = xp.power(self.scale, -self.beta)
        self.y = xc * self.scale_pow
        return (force_array(self.y, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return LocalResponseNormalizationGrad(self).apply((x, grad_outputs[0]))


class LocalResponseNormalizationGrad(FunctionNode):
    """``(x, gy) -> gx`` of local response normalization, from the forward's arrays.

    ``gx = gy * s ** -beta - 2 alpha beta x * window_sum(gy * y / s)`` with
    ``s = k + alpha * window_sum(x ** 2)``; its own backward differentiates
    this expression rebuilt from Variables.
    """

    def __init__(self, fwd: LocalResponseNormalization) -> None:
        self.half, self.k, self.alpha, self.beta = fwd.half, fwd.k, fwd.alpha, fwd.beta
        self.scale, self.scale_pow, self.y = fwd.scale, fwd.scale_pow, fwd.y

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        scale = self.scale
        g = gy.astype(scale.dtype, copy=False)
        xc = x.astype(scale.dtype, copy=False)
        inner = _window_sum(g * self.y / scale, self.half)
        gx = g * self.scale_pow - (2 * self.alpha * self.beta) * xc * inner
        return (force_array(gx, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        # With s = k + alpha W(x^2), v = s^(-beta-1), c = 2 alpha beta and W the
        # (self-adjoint) window sum, the gradients of <ggx, gx> are
        #   gy: ggx s^-beta - c x v W(ggx x)
        #   x:  -c ggx W(gy x v) - c W(ggx x) gy v + 2 alpha x W(q),
        #       q = -beta ggx gy v + c (beta + 1) W(ggx x) gy x s^(-beta-2).
        x, gy = self.get_retained_inputs()
        (ggx,) = grad_outputs
        half, alpha, beta = self.half, self.alpha, self.beta
        c = 2.0 * alpha * beta

        def win(a: Any) -> Any:
            return _ChannelWindowSum(half).apply((a,))[0]

        scale = win(x * x) * alpha + self.k
        v = scale ** (-beta - 1.0)
        w2 = win(ggx * x)
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                q = -beta * ggx * gy * v + (c * (beta + 1.0)) * w2 * gy * x * scale ** (
                    -beta - 2.0
                )
                ret.append(
                    -c * ggx * win(gy * x * v)
                    - c * w2 * gy * v
                    + (2.0 * alpha) * x * win(q)
                )
            else:
                ret.append(ggx * scale ** (-beta) - c * x * v * w2)
        return tuple(ret)


def local_response_normalization(
    x: Any, n: int = 5, k: float = 2.0, alpha: float = 1e-4, beta: float = 0.75
) -> Variable:
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
        array([[0.33333, 0.25   , 0.33333]], dtype=float32)
    """
    return LocalResponseNormalization(n, k, alpha, beta).apply((x,))[0]
