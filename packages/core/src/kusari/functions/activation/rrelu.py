"""Randomized leaky ReLU."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.configuration import config
from kusari.function_node import FunctionNode
from kusari.functions.activation.relu import ReLUGrad
from kusari.utils import force_array, type_check


class RReLU(FunctionNode):
    """``x`` where ``x >= 0``, ``r * x`` elsewhere, ``r ~ U(lower, upper)`` per element.

    In test mode (``config.train`` False) ``r`` is ``(lower + upper) / 2`` everywhere.
    """

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, r: Any = None
    ) -> None:
        if not 0.0 <= lower < 1.0:
            raise ValueError(f"rrelu: l must be in [0, 1), got {lower!r}")
        if not 0.0 <= upper < 1.0:
            raise ValueError(f"rrelu: u must be in [0, 1), got {upper!r}")
        if not lower < upper:
            raise ValueError(
                f"rrelu: l must be less than u, got l={lower!r}, u={upper!r}"
            )
        self.lower = lower
        self.upper = upper
        self.r = r

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")
        r = self.r
        if r is not None:
            dtype = type_check.eval(x_type.dtype)
            shape = type_check.eval(x_type.shape)
            if r.dtype != dtype:
                raise type_check.InvalidType(
                    "r.dtype == x.dtype", f"{r.dtype} != {dtype}"
                )
            if r.shape != shape:
                raise type_check.InvalidType(
                    "r.shape == x.shape", f"{r.shape} != {shape}"
                )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        if config.train:
            if self.r is None:
                self.r = xp.random.uniform(self.lower, self.upper, x.shape).astype(
                    x.dtype, copy=False
                )
        else:
            self.r = xp.full(x.shape, (self.lower + self.upper) / 2, dtype=x.dtype)
        self.factor = xp.where(x >= 0, x.dtype.type(1), self.r)
        return (force_array(x * self.factor),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return ReLUGrad(self.factor).apply(grad_outputs)


def rrelu(
    x: Any,
    l: float = 1.0 / 8,
    u: float = 1.0 / 3,
    *,
    r: Any = None,
    return_r: bool = False,
) -> Any:
    """Randomized leaky ReLU.

    In training mode each negative element is multiplied by its own slope drawn
    from ``U(l, u)`` (or taken from ``r`` when given); in test mode the slope is
    ``(l + u) / 2``.

    Args:
        x: Input variable of a float dtype.
        l: Lower bound of the slopes, in ``[0, 1)``.
        u: Upper bound of the slopes, in ``(l, 1)``.
        r: Slopes to use in training mode (an array shaped and typed like ``x``).
        return_r: Also return the slopes used.

    Returns:
        The output Variable, or ``(output, r)`` when ``return_r`` is True.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> import kusari.functions as F
        >>> with kusari.using_config('train', False):
        ...     F.rrelu(np.array([-1., 2.], np.float32), l=0.2, u=0.4).array
        array([-0.3,  2. ], dtype=float32)
    """
    func = RReLU(l, u, r)
    out = func.apply((x,))[0]
    if return_r:
        return out, func.r
    return out
