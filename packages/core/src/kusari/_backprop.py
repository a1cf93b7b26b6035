"""The backward pass: walks the graph from outputs to leaves by rank.

A pass (:class:`BackwardPass`) runs in five phases:

1. **collect** (:meth:`BackwardPass.seed`): the initial gradients go into a
   table keyed by node, and the functions that made those nodes are queued;
2. **order** (:meth:`BackwardPass.schedule`, :func:`run`): functions come
   off a heap in decreasing rank, so every consumer of a variable runs
   before its creator and each gradient is complete when used;
3. **run a node** (:meth:`BackwardPass.run_node`): the outputs' gradients
   are taken out of the table and the function's backward computes its
   inputs' gradients;
4. **accumulate** (:meth:`BackwardPass.accumulate`): each input gradient is
   added to the table, and a node's first gradient queues its creator;
5. **hand out** (:meth:`BackwardPass.hand_out`): what reached the leaves
   becomes their ``grad``.

In a :func:`grad_destinations` block a leaf's gradient is moved into the
array given for it as soon as it is computed (phase 4).

Without double backprop the table holds bare arrays: no graph is recorded
and nothing can observe the Variables that would wrap them, so they are made
only where they are handed out, and functions with a ``backward_array`` run
entirely on arrays. Unless the caller keeps the graph (``retain_grad`` or
double backprop), the arrays that functions retained for backward are
dropped as soon as the last function that needs them has run, so
activations are freed while the pass proceeds instead of when the loss is
dropped.

:class:`BackwardPass` (in :mod:`kusari._backprop_pass`) keeps a pass's state
and has a method for each phase. The commonest pass, first order with
nothing watching it, runs phases 2 to 4 in one loop instead
(:func:`_run_arrays`), which is most of what a chain of small operations
costs in backward.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from heapq import heappop, heappush
from typing import Any

import numpy

from kusari import backend, configuration

# The names below were all defined here once; code still imports them from
# this module.
from kusari._backprop_pass import BackwardPass as BackwardPass
from kusari._backprop_pass import target_indexes
from kusari._backprop_steps import (  # noqa: F401
    _add_arrays,
    _as_grad_array,
    _backward_variables,
    _check_nan_backward,
    _grad_arrays,
    _sum_grads,
    current_destinations,
    fill_destination,
    freed_message,
    initial_grad,
    normalize_grads,
    raise_old_style_twice,
    store_leaf_grad,
)
from kusari._backprop_steps import (
    grad_destinations as grad_destinations,
)
from kusari.variable import (  # noqa: F401
    Variable,
    VariableNode,
    _check_grad_type,
    _new_variable,
)

_ndarray = numpy.ndarray


def run(
    out_nodes: Sequence[Any],
    gys: Sequence[Any],
    retain_grad: bool,
    enable_double_backprop: bool,
    loss_scale: float | None,
    *,
    stop_nodes: set[Any] | None = None,
    initial_input_grads: dict[Any, Any] | None = None,
    set_leaf_grads: bool = True,
    free_graph: bool | None = None,
    capture_nodes: Iterable[Any] = (),
) -> dict[Any, Any]:
    """Backprop from ``out_nodes`` with initial gradients ``gys``.

    Returns the table of gradients (Variables) left at the leaves (and
    ``stop_nodes``), and those that ``capture_nodes`` had when their
    creators ran.
    """
    # Destinations are for gradients that become the leaves' grad.
    dests = current_destinations() if set_leaf_grads and not stop_nodes else None
    bp = BackwardPass(
        retain_grad, enable_double_backprop, loss_scale, stop_nodes, free_graph, dests
    )
    captured = dict.fromkeys(capture_nodes)
    if captured:
        bp.captured = captured
    bp.seed(out_nodes, gys, initial_input_grads)
    # Functions applied inside backward get inputs the framework made and
    # checked (gradient shapes are verified in accumulate), so their type
    # checks only cost time; debug mode keeps them.
    with (
        configuration.using_config("enable_backprop", enable_double_backprop),
        configuration.using_config(
            "type_check", bp.debug and configuration.config.type_check
        ),
    ):
        if bp.array_ok and not bp.lazy and not bp.retain_grad and bp.captured is None:
            _run_arrays(bp)
        else:
            # Phase 2, order: the queue yields the function of highest rank.
            heap = bp.heap
            run_node = bp.run_node
            while heap:
                run_node(heappop(heap)[2])
        return bp.hand_out(set_leaf_grads)


def _run_arrays(bp: BackwardPass) -> None:
    """Phases 2 to 4 of a first-order pass that nothing watches, in one loop.

    The pass holds arrays, no hook or debug check observes it, gradients are
    summed as they come and no intermediate gradient is kept or captured:
    then a function of one output with a ``backward_array`` (almost every
    function) is run and its gradients accumulated right here, doing what
    :meth:`BackwardPass.run_node` and :meth:`BackwardPass.accumulate` do
    with the pass's state in local variables. Any other function goes
    through ``run_node``, on the same table and queue.
    """
    grads = bp.grads
    pop = grads.pop
    heap = bp.heap
    seen = bp.seen
    stops = bp.stops
    owned = bp.owned
    first_leaf_grad = bp.first_leaf_grad
    free = bp.free_graph
    counter = bp.counter
    run_node = bp.run_node
    while heap:
        func = heappop(heap)[2]
        inputs = func.inputs
        out_refs = func.outputs
        if (
            inputs is None
            or func._freed is inputs  # run_node says why
            or not func._has_backward_array
            or func._local_function_hooks
            or len(out_refs) != 1
        ):
            run_node(func)
            continue
        # The output has a gradient: that is how its creator got queued.
        y = out_refs[0]()
        gy = None if y is None else pop(y, None)
        targets = target_indexes(inputs)
        if targets and gy is not None:
            gxs = func.backward_array(targets, (gy,))
            if type(gxs) is not tuple or len(gxs) != len(targets):
                gxs = normalize_grads(func, targets, gxs)
            for i, gx in zip(targets, gxs):
                if gx is None:
                    continue
                if type(gx) is not _ndarray:
                    gx = _as_grad_array(func, gx)
                x = inputs[i]
                dtype = gx.dtype
                if gx.shape != x.shape or (dtype is not x.dtype and dtype != x.dtype):
                    _check_grad_type(func, x, True, gx)
                cur = grads.get(x)
                if cur is None:
                    f = x.creator_node
                    if f is None or (stops is not None and x in stops):
                        first_leaf_grad(x, gx)
                        continue
                    grads[x] = gx
                    if f not in seen:
                        seen.add(f)
                        heappush(heap, (-f.rank, next(counter), f))
                elif x in owned:
                    cur += gx  # a sum made by this pass: nobody else holds it
                else:
                    grads[x] = _add_arrays(cur, gx)
                    owned.add(x)
        if free:
            # As in run_node: the arrays retained for this function go.
            func._retained_output_data = None
            if y is not None:
                y.data = None
            func._freed = inputs


def backward_variable(
    var: Variable,
    retain_grad: bool,
    enable_double_backprop: bool,
    loss_scale: float | None,
) -> None:
    """:meth:`Variable.backward`: seed ``var``'s gradient (ones by default), run."""
    node = var._node
    if node is None:
        return
    if node._old_style_grad_generator is not None:
        raise_old_style_twice(node)
    if node.creator_node is None:
        return
    gv = var._grad_var
    if gv is None:
        data = var._data
        if data.dtype.kind not in "fc":
            # An integer or boolean output (argmax, a comparison) has no
            # gradient to start from: nothing to do, as in Chainer.
            return
        if data.size != 1:
            raise ValueError(
                "Variable.backward: the variable has shape "
                f"{data.shape}, so its gradient is ambiguous. Set `y.grad` "
                "(e.g. to ones) before calling backward, or reduce it to a "
                "scalar (e.g. F.sum) first."
            )
        g = backend.get_array_module(data).ones_like(data)
        if loss_scale is not None:
            g *= loss_scale
        gv = var._grad_var = Variable(g, requires_grad=False)
    # The output's gradient is used up, as in Chainer v6+: after backward
    # ``var.grad`` is None, unless retain_grad keeps every gradient (and
    # then the output keeps the very Variable it had).
    var._grad_var = None
    run([node], [gv], retain_grad, enable_double_backprop, loss_scale)
    if retain_grad:
        var._grad_var = gv


def backward(
    outputs: Sequence[Any], grad_outputs: Sequence[Any] | None = None, **kwargs: Any
) -> None:
    """Backprop from several outputs at once (``kusari.backward``).

    Args:
        outputs: Output Variables.
        grad_outputs: Their initial gradients (None: their ``grad``, or ones
            for single-element outputs).
        **kwargs: ``retain_grad``, ``enable_double_backprop``, ``loss_scale``.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> x = kusari.Variable(np.array([2.], dtype=np.float32))
        >>> kusari.backward([x * x, x * 3])
        >>> x.grad
        array([7.], dtype=float32)
    """
    retain_grad = kwargs.pop("retain_grad", False)
    double = kwargs.pop("enable_double_backprop", False)
    loss_scale = kwargs.pop("loss_scale", None)
    if kwargs:
        raise TypeError(f"kusari.backward got unexpected arguments: {sorted(kwargs)}")
    outputs = list(outputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise ValueError(
            f"kusari.backward: {len(outputs)} outputs but {len(grad_outputs)} "
            "grad_outputs"
        )
    nodes = []
    gys = []
    for y, gy in zip(outputs, grad_outputs):
        if y.creator_node is None and not y.requires_grad:
            continue
        # A leaf among the outputs receives its gradient directly.
        nodes.append(y.node)
        gys.append(initial_grad(y, gy, loss_scale, "kusari.backward"))
    if nodes:
        run(nodes, gys, retain_grad, double, loss_scale)
