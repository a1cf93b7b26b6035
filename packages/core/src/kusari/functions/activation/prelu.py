"""Parametric ReLU."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.activation import _param_broadcast as _pb
from kusari.utils import force_array
from kusari.variable import Variable


class PReLU(FunctionNode):
    """``x`` where ``x >= 0``, ``W * x`` elsewhere, ``W`` broadcast from axis 1."""

    def check_type_forward(self, in_types: Any) -> None:
        _pb.check_param(in_types, ("x", "W"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, w = inputs
        xp = backend.get_array_module(x)
        self.neg = x < 0
        return (force_array(xp.where(self.neg, x * _pb.expand_param(w, x.shape), x)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x, w = self.get_retained_inputs()
        (gy,) = grad_outputs
        neg = self.neg.astype(x.dtype)
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                wb = _pb.broadcast_param(w, x.shape)
                # gy on the positive side, gy * W on the negative side.
                ret.append(gy * (1 - neg) + gy * wb * neg)
            else:
                ret.append(_pb.reduce_to_param(gy * x * neg, w.shape))
        return tuple(ret)


def prelu(x: Any, W: Any) -> Variable:
    """Parametric ReLU: ``x`` for ``x >= 0`` and ``W * x`` otherwise.

    Args:
        x: Input variable of a float dtype, ``ndim >= W.ndim + 1``.
        W: Slopes with ``W.shape == x.shape[1:1 + W.ndim]``; broadcast over the
            batch axis and the trailing axes.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([[-1., 2.], [-3., -4.]], np.float32)
        >>> F.prelu(x, np.array([0.5, 0.1], np.float32)).array
        array([[-0.5,  2. ],
               [-1.5, -0.4]], dtype=float32)
    """
    return PReLU().apply((x, W))[0]
