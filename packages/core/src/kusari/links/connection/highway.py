"""The highway network layer (``Highway``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kusari import link
from kusari.functions.activation import relu as relu_module
from kusari.functions.activation import sigmoid as sigmoid_module
from kusari.links.connection.linear import Linear


class Highway(link.Chain):
    """Highway module (Srivastava et al., 2015).

    ``y = activate(plain(x)) * T + x * (1 - T)`` with the transform gate
    ``T = sigmoid(transform(x))``; ``plain`` and ``transform`` are square
    :class:`Linear` links.

    Args:
        in_out_size: Dimension of the input and output.
        nobias: Leave out the biases.
        activate: Activation of the plain path (ReLU by default).
        init_Wh: Initializer of ``plain.W``.
        init_Wt: Initializer of ``transform.W``.
        init_bh: Initializer of ``plain.b`` (zero by default).
        init_bt: Initializer of ``transform.b``; -1 by default, which favours
            carrying the input through at first.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> hw = L.Highway(4)
        >>> hw(np.ones((2, 4), np.float32)).shape
        (2, 4)
    """

    def __init__(
        self,
        in_out_size: int,
        nobias: bool = False,
        activate: Callable[[Any], Any] = relu_module.relu,
        init_Wh: Any = None,
        init_Wt: Any = None,
        init_bh: Any = None,
        init_bt: Any = -1,
    ) -> None:
        super().__init__()
        self.activate = activate
        with self.init_scope():
            self.plain = Linear(
                in_out_size,
                in_out_size,
                nobias=nobias,
                initialW=init_Wh,
                initial_bias=init_bh,
            )
            self.transform = Linear(
                in_out_size,
                in_out_size,
                nobias=nobias,
                initialW=init_Wt,
                initial_bias=init_bt,
            )

    def forward(self, x: Any) -> Any:
        out_plain = self.activate(self.plain(x))
        out_transform = sigmoid_module.sigmoid(self.transform(x))
        return out_plain * out_transform + x * (1 - out_transform)
