"""``kusari.grad``: gradients of outputs with respect to chosen inputs.

The function behind :func:`kusari.grad` (also importable, as in Chainer, from
:mod:`kusari.function_node`). It shares the backward pass of
:meth:`Variable.backward <kusari.Variable.backward>` (:mod:`kusari._backprop`)
and differs in what it starts from and where it stops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kusari import _backprop, backend
from kusari.variable import Variable, VariableNode


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
    _check_sequence(outputs, "outputs", False)
    _check_sequence(inputs, "inputs", False)
    _check_sequence(grad_outputs, "grad_outputs", True)
    _check_sequence(grad_inputs, "grad_inputs", True)
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
    gys = [_initial_grad(y, gy, loss_scale) for y, gy in zip(outputs, grad_outputs)]
    for y in outputs:
        # A gradient made by an old-style Function has no record of how.
        if y._node is not None and y._node._old_style_grad_generator is not None:
            _backprop.raise_old_style_twice(y._node)
    in_nodes = [x.node for x in inputs]
    init = _initial_input_grads(in_nodes, grad_inputs)
    stops, through = _subgraph([y.node for y in outputs], in_nodes)
    result = _backprop.run(
        [y.node for y in outputs],
        gys,
        retain_grad,
        enable_double_backprop,
        loss_scale,
        stop_nodes=stops,
        initial_input_grads=init,
        set_leaf_grads=False,
        free_graph=False,
        capture_nodes=through,
    )
    ret = [result.get(node) for node in in_nodes]
    if retain_grad:
        # Chainer keeps the gradient of every variable whose creator it
        # visits, the inputs with a creator among them.
        for node, gx in zip(in_nodes, ret):
            var = node._variable()
            if gx is not None and var is not None and node.creator_node is not None:
                var._grad_var = gx
    if set_grad:
        for x, gx in zip(inputs, ret):
            x._grad_var = gx
    return ret


def _initial_input_grads(
    in_nodes: list[VariableNode], grad_inputs: Sequence[Any] | None
) -> dict[VariableNode, Variable] | None:
    """``grad_inputs`` as the table's initial entries (None: no entries)."""
    if grad_inputs is None:
        return None
    if len(grad_inputs) != len(in_nodes):
        raise ValueError(
            f"kusari.grad: {len(in_nodes)} inputs but {len(grad_inputs)} grad_inputs"
        )
    init = {}
    for node, g in zip(in_nodes, grad_inputs):
        if g is not None:
            init[node] = (
                g if isinstance(g, Variable) else Variable(g, requires_grad=False)
            )
    return init


def _check_sequence(value: Any, name: str, optional: bool) -> None:
    if optional and value is None:
        return
    if not isinstance(value, (tuple, list)):
        kind = "a tuple or a list" + (" or None" if optional else "")
        raise TypeError(
            f"kusari.grad: {name} must be {kind}, not {type(value).__name__}"
        )


def _initial_grad(y: Variable, gy: Any, loss_scale: float | None) -> Any:
    """The starting gradient of ``y``: ``gy``, or ones (any shape) as in Chainer.

    Unlike ``Variable.backward``, ``grad`` does not read ``y.grad``.
    """
    if gy is None:
        g = backend.get_array_module(y._data).ones_like(y._data)
        if loss_scale is not None:
            g *= loss_scale
        return Variable(g, requires_grad=False)
    return _backprop.initial_grad(y, gy, loss_scale, "kusari.grad")


def _subgraph(
    out_nodes: list[VariableNode], in_nodes: list[VariableNode]
) -> tuple[set[VariableNode], list[VariableNode]]:
    """Where backprop from ``out_nodes`` stops, and the inputs it passes through.

    Gradients flow from the outputs to every input along all paths, also
    through an input that depends on another one (the result is then the
    total derivative, as in Chainer). A node stops the pass when no input
    lies behind it: its creator's inputs all lead to no input. Inputs that
    do not stop it are returned second.
    """
    # The nodes behind the outputs (through inputs that require a gradient),
    # and each node's creator's inputs among them.
    behind: dict[VariableNode, tuple[VariableNode, ...]] = {}
    todo = list(out_nodes)
    while todo:
        node = todo.pop()
        if node in behind:
            continue
        f = node.creator_node
        ins = () if f is None or f.inputs is None else f.inputs
        ins = tuple([x for x in ins if x.requires_grad])
        behind[node] = ins
        todo.extend(ins)
    # Which of them have an input behind them (or are one): decided in
    # creation order, so a node's creator's inputs are decided first.
    reach: set[VariableNode] = set(in_nodes)
    for node in sorted(behind, key=_rank):
        if node not in reach and any(x in reach for x in behind[node]):
            reach.add(node)
    stops = {n for n in behind if not any(x in reach for x in behind[n])}
    stops.update(n for n in in_nodes if n not in behind)
    through = [n for n in in_nodes if n not in stops]
    return stops, through


def _rank(node: VariableNode) -> int:
    return node.rank
