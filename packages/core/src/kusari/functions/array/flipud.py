"""``flipud``: reverse the first axis (up/down)."""

from __future__ import annotations

from typing import Any

from kusari.functions.array.flip import Flip
from kusari.utils import type_check
from kusari.variable import Variable


class FlipUD(Flip):
    """Reverse axis 0 of an array with at least one axis."""

    def __init__(self) -> None:
        super().__init__(0)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a",))
        type_check.expect(in_types[0].ndim >= 1)


def flipud(a: Any) -> Variable:
    """Flip ``a`` up/down (along axis 0; needs ``a.ndim >= 1``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.flipud(np.arange(4, dtype=np.float32).reshape(2, 2)).array
        array([[2., 3.],
               [0., 1.]], dtype=float32)
    """
    return FlipUD().apply((a,))[0]
