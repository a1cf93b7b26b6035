"""``kusari.grad``: gradients of outputs with respect to chosen inputs.

The function behind :func:`kusari.grad` (also importable, as in Chainer, from
:mod:`kusari.function_node`). It shares the backward pass of
:meth:`Variable.backward <kusari.Variable.backward>` (:mod:`kusari._backprop`)
and differs in what it starts from and where it stops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kusari import _backprop
from kusari.variable import Variable


def grad(
    outputs: Sequence[Variable],
    inputs: Sequence[Variable],
    grad_outputs: Sequence[Any] | None = None,
    grad_inputs: Sequence[Any] | None = None,
    set_grad: bool = False,
    retain_grad: bool = False,
    enable_double_backprop: bool = False,
    loss_scale: float | None = None,
) -> list[Variable | None]:
    """Gradients of ``outputs`` with respect to ``inputs``.

    Unlike :meth:`Variable.backward` this touches no ``grad`` attribute
    (unless ``set_grad``) and stops at ``inputs``.

    Args:
        outputs: Output Variables.
        inputs: Variables to differentiate with respect to.
        grad_outputs: Initial gradients of the outputs (default: their
            ``grad_var``, or ones for single-element outputs).
        grad_inputs: Initial gradients added to the inputs' results.
        set_grad: Also store the results in ``inputs[i].grad_var``.
        retain_grad: Store the gradients of intermediate variables.
        enable_double_backprop: Make the results differentiable.
        loss_scale: Multiply the initial gradients by this.

    Returns:
        One gradient Variable (or None where unreachable) per input.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> x = kusari.Variable(np.array([3.], dtype=np.float32))
        >>> gx, = kusari.grad([x * x * x], [x], enable_double_backprop=True)
        >>> gx.array
        array([27.], dtype=float32)
    """
    outputs = list(outputs)
    inputs = list(inputs)
    for v in outputs + inputs:
        if not isinstance(v, Variable):
            raise TypeError(
                "kusari.grad: outputs and inputs must be Variables, got "
                f"{type(v).__name__}"
            )
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif len(grad_outputs) != len(outputs):
        raise ValueError(
            f"kusari.grad: {len(outputs)} outputs but {len(grad_outputs)} grad_outputs"
        )
    gys = [
        _backprop.initial_grad(y, gy, loss_scale, "kusari.grad")
        for y, gy in zip(outputs, grad_outputs)
    ]
    for y in outputs:
        # A gradient made by an old-style Function has no record of how.
        if y._node is not None and y._node._old_style_grad_generator is not None:
            _backprop.raise_old_style_twice(y._node)
    in_nodes = [x.node for x in inputs]
    init = None
    if grad_inputs is not None:
        if len(grad_inputs) != len(inputs):
            raise ValueError(
                f"kusari.grad: {len(inputs)} inputs but {len(grad_inputs)} grad_inputs"
            )
        init = {}
        for node, g in zip(in_nodes, grad_inputs):
            if g is not None:
                init[node] = (
                    g if isinstance(g, Variable) else Variable(g, requires_grad=False)
                )
    result = _backprop.run(
        [y.node for y in outputs],
        gys,
        retain_grad,
        enable_double_backprop,
        loss_scale,
        stop_nodes=set(in_nodes),
        initial_input_grads=init,
        set_leaf_grads=False,
        free_graph=False,
    )
    ret = [result.get(node) for node in in_nodes]
    if set_grad:
        for x, gx in zip(inputs, ret):
            x._grad_var = gx
    return ret
