"""Determinants: ``det`` of one matrix, ``batch_det`` of a stack."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_square, linalg
from kusari.utils import force_array
from kusari.variable import Variable


class BatchDet(FunctionNode):
    @property
    def label(self) -> str:
        return "batch_det"

    def check_type_forward(self, in_types: Any) -> None:
        check_square(in_types, 3, "batch_det")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        (a,) = inputs
        xp = backend.get_array_module(a)
        return (force_array(linalg("batch_det", xp.linalg.det, a)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to
        from kusari.functions.array.reshape import reshape
        from kusari.functions.array.transpose import transpose
        from kusari.functions.math.inv import batch_inv

        (a,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        # d det(A) / dA = det(A) A^-T
        c = reshape(grad_outputs[0] * y, (len(y), 1, 1))
        return (broadcast_to(c, a.shape) * transpose(batch_inv(a), (0, 2, 1)),)


def batch_det(a: Any) -> Variable:
    """Determinants of a batch of square matrices (``(B, N, N)`` to ``(B,)``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.batch_det(np.stack([2 * np.eye(2, dtype=np.float32)] * 3)).array
        array([4., 4., 4.], dtype=float32)
    """
    return BatchDet().apply((a,))[0]


def det(a: Any) -> Variable:
    """Determinant of a square matrix (2-D), as a 0-dim Variable.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> float(F.det(np.array([[1., 2.], [3., 4.]], np.float32)).array)
        -2.0
    """
    from kusari.functions.array.reshape import reshape
    from kusari.utils import type_check
    from kusari.variable import as_variable

    a = as_variable(a)
    if a.ndim != 2:
        raise type_check.InvalidType("det: a.ndim == 2", f"a.ndim = {a.ndim}")
    return reshape(batch_det(reshape(a, (1,) + a.shape)), ())
