"""WeightStandardization: zero-mean, unit-variance weights per output unit."""

from __future__ import annotations

from typing import Any

from kusari import backend, function_node
from kusari.functions.array import where as where_module
from kusari.functions.math import basic_math  # noqa: F401  (Variable operators)
from kusari.functions.math import sum as sum_module
from kusari.link_hooks._weight_hook import _WeightReplacingHook
from kusari.utils import force_array, type_check


class _Standardize(function_node.FunctionNode):
    """``(x - mean) / (std + eps)`` over all axes but the first."""

    def __init__(self, eps: float) -> None:
        self.eps = eps

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        axes = tuple(range(1, x.ndim))
        x_mu = x - x.mean(axis=axes, keepdims=True)
        std = backend.get_array_module(x).sqrt(
            (x_mu * x_mu).mean(axis=axes, keepdims=True)
        )
        return (force_array(x_mu / (std + self.eps), x.dtype),)

    def backward(
        self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        axes = tuple(range(1, x.ndim))
        n = x.size // x.shape[0]

        def mean(a: Any) -> Any:
            return sum_module.sum(a, axis=axes, keepdims=True) * (1.0 / n)

        x_mu = x - mean(x)
        var = mean(x_mu * x_mu)
        # Rows with zero spread have x_mu == 0 there: their second term is 0,
        # so divide by 1 instead of 0 (keeps double backward finite too).
        nonzero = var.array != 0
        safe_var = where_module.where(nonzero, var, x.xp.ones_like(var.array))
        std_noeps = safe_var**0.5
        std = std_noeps + self.eps
        g_x_mu = gy / std - mean(gy * x_mu) * x_mu / (std * std * std_noeps)
        return (g_x_mu - mean(g_x_mu),)


def _standardize(x: Any, eps: float) -> Any:
    return _Standardize(eps).apply((x,))[0]


class WeightStandardization(_WeightReplacingHook):
    """Weight standardization of a link's weight (Qiao et al., 2019).

    In every forward the link uses ``(W - mean) / (std + eps)``, where the
    mean and (biased) standard deviation are taken per output unit or channel,
    over all axes of ``W`` but the first. The link's attribute stays the raw
    :class:`~kusari.Parameter` outside of forward, and gradients flow through
    the standardization into it. Meant for convolutions (usually followed by
    group or batch normalization); it also works on Linear and other links
    with a weight of two or more dimensions.

    Args:
        eps: Added to the standard deviation before dividing.
        weight_name: Name of the weight attribute of the link.
        name: Name of the hook (``'WeightStandardization'`` by default).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> from kusari.link_hooks import WeightStandardization
        >>> conv = L.Convolution2D(3, 4, 3).add_hook(WeightStandardization())
        >>> conv(np.ones((1, 3, 5, 5), np.float32)).shape
        (1, 4, 3, 3)
    """

    name = "WeightStandardization"

    def __init__(
        self, eps: float = 1e-6, weight_name: str = "W", name: str | None = None
    ) -> None:
        super().__init__(weight_name, name)
        self.eps = eps

    def _transform(self, link: Any, weight: Any) -> Any:
        return _standardize(weight, self.eps)
