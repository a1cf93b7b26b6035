"""``identity``: return the inputs unchanged (a node in the graph)."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode


class Identity(FunctionNode):
    @property
    def label(self) -> str:
        return "identity"

    def check_type_forward(self, in_types: Any) -> None:
        pass

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return inputs

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return tuple([grad_outputs[i] for i in indexes])


def identity(*inputs: Any) -> Any:
    """Just return the inputs, as new Variables connected to them.

    Returns:
        A Variable for one input, a tuple of Variables for several.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.identity(np.ones(2, np.float32)).array
        array([1., 1.], dtype=float32)
    """
    if not inputs:
        raise TypeError("identity takes at least one input")
    ret = Identity().apply(inputs)
    return ret[0] if len(ret) == 1 else ret
