"""Matrix inverse: ``inv`` of one matrix, ``batch_inv`` of a stack."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_square, linalg
from kusari.variable import Variable


class Inv(FunctionNode):
    """Inverse of square matrices (the last two axes)."""

    ndim = 2
    name = "inv"

    @property
    def label(self) -> str:
        return self.name

    def check_type_forward(self, in_types: Any) -> None:
        check_square(in_types, self.ndim, self.name)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (a,) = inputs
        xp = backend.get_array_module(a)
        return (linalg(self.name, xp.linalg.inv, a),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.math.matmul import matmul

        (y,) = self.get_retained_outputs()
        # d(A^-1) = -A^-1 dA A^-1  =>  gA = -A^-T gY A^-T
        return (-matmul(matmul(y, grad_outputs[0], transa=True), y, transb=True),)


class BatchInv(Inv):
    ndim = 3
    name = "batch_inv"


def inv(a: Any) -> Variable:
    """Inverse of a square matrix (2-D).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.inv(np.array([[2., 0.], [0., 4.]], np.float32)).array
        array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    return Inv().apply((a,))[0]


def batch_inv(a: Any) -> Variable:
    """Inverses of a batch of square matrices (3-D, ``(B, N, N)``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.batch_inv(np.stack([np.eye(2, dtype=np.float32)] * 3)).shape
        (3, 2, 2)
    """
    return BatchInv().apply((a,))[0]
