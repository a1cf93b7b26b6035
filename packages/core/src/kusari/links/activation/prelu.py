"""The parametric ReLU link (``PReLU``)."""

from __future__ import annotations

from typing import Any

from kusari import link, variable
from kusari.functions.activation import prelu as prelu_module


class PReLU(link.Link):
    """Parametric ReLU: ``max(x, 0) + W * min(x, 0)`` with a learnt ``W``.

    Args:
        shape: Shape of ``W`` (``()`` shares one slope); it is broadcast
            along the input's axes from axis 1.
        init: Initial value (or initializer) of ``W``.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> L.PReLU()(np.array([-2.0, 3.0], np.float32)).array
        array([-0.5,  3. ], dtype=float32)
    """

    def __init__(self, shape: Any = (), init: Any = 0.25) -> None:
        super().__init__()
        with self.init_scope():
            self.W = variable.Parameter(init, shape)

    def forward(self, x: Any) -> Any:
        return prelu_module.prelu(x, self.W)
