"""Connect a delegate variable to real outputs so that one backward covers both."""

from __future__ import annotations

from typing import Any

from kusari import FunctionNode, backend
from kusari_mn.functions._utility import as_variables, grad_arrays


class PseudoConnect(FunctionNode):
    """Identity on the actual variables; the delegate gets a zero gradient."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._delegate = (inputs[0].shape, inputs[0].dtype)
        self._like = [
            backend.get_array_module(x).empty(x.shape, x.dtype) for x in inputs[1:]
        ]
        return tuple(inputs[1:])

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        grads = grad_arrays(grad_outputs, self._like)
        xp = backend.get_array_module(self._like[0])
        shape, dtype = self._delegate
        return as_variables([xp.zeros(shape, dtype), *grads])


def pseudo_connect(delegate_variable: Any, *actual_variables: Any) -> Any:
    """Return ``actual_variables`` unchanged but attached to ``delegate_variable``.

    Backprop from the result then also runs the graph behind the delegate
    (e.g. a :func:`~kusari_mn.functions.send` whose backward receives a
    gradient), which would otherwise be cut off.

    Args:
        delegate_variable: A delegate from ``send`` (or None: no-op).
        actual_variables: The variables to pass through.

    Returns:
        One variable, or a tuple for several.
    """
    if not actual_variables:
        raise ValueError("pseudo_connect: give at least one actual variable")
    if delegate_variable is None:
        return actual_variables[0] if len(actual_variables) == 1 else actual_variables
    ys = PseudoConnect().apply((delegate_variable, *actual_variables))
    return ys[0] if len(ys) == 1 else ys
