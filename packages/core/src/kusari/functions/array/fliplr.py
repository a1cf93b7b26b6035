"""``fliplr``: reverse the second axis (left/right)."""

from __future__ import annotations

from typing import Any

from kusari.functions.array.flip import Flip
from kusari.utils import type_check
from kusari.variable import Variable


class FlipLR(Flip):
    """Reverse axis 1 of an array with at least two axes."""

    def __init__(self) -> None:
        super().__init__(1)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a",))
        type_check.expect(in_types[0].ndim >= 2)


def fliplr(a: Any) -> Variable:
    """Flip ``a`` left/right (along axis 1; needs ``a.ndim >= 2``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.fliplr(np.arange(4, dtype=np.float32).reshape(2, 2)).array
        array([[1., 0.],
               [3., 2.]], dtype=float32)
    """
    return FlipLR().apply((a,))[0]
