"""A transpose node with a fixed permutation (base of swapaxes, moveaxis, ...)."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.functions.array._util import inverse_permutation


class Permute(FunctionNode):
    """Permute the axes; subclasses compute ``perm(ndim)`` and check arguments."""

    def perm(self, ndim: int) -> tuple[int, ...]:
        raise NotImplementedError

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._perm = self.perm(x.ndim)
        return (x.transpose(self._perm),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.transpose import transpose

        return (transpose(grad_outputs[0], inverse_permutation(self._perm)),)
