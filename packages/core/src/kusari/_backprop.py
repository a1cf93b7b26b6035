"""The backward pass: walks the graph from outputs to leaves by rank.

A pass (:class:`BackwardPass`) runs in five phases:

1. **collect** (:meth:`BackwardPass.seed`): the initial gradients go into a
   table keyed by node, and the functions that made those nodes are queued;
2. **order** (:meth:`BackwardPass.schedule`, :meth:`BackwardPass.pop`):
   functions come off a heap in decreasing rank, so every consumer of a
   variable runs before its creator and each gradient is complete when used;
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
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from heapq import heappush
from typing import Any

import numpy

from kusari import backend, configuration, function_hook
from kusari._backprop_steps import (
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
from kusari.variable import (
    Variable,
    VariableNode,
    _check_grad_type,
    _new_variable,
)

_FIRST = (0,)
_SECOND = (1,)
_BOTH = (0, 1)
_ndarray = numpy.ndarray


class BackwardPass:
    """One backward pass: the gradient table and the queue its phases share.

    Args:
        retain_grad: Store the gradients of intermediate variables.
        enable_double_backprop: Record the gradients' computation as a graph
            (the table then holds Variables instead of arrays).
        loss_scale: Stored with the leaves' gradients.
        stop_nodes: Nodes treated as leaves (``kusari.grad``'s inputs).
        free_graph: Drop retained arrays once used (None: unless the graph
            is kept by ``retain_grad``, double backprop or
            ``config.free_graph_in_backward = False``, which Chainer code
            that backprops twice through one graph needs).
        destinations: Leaf node -> array for its gradient (see
            :func:`grad_destinations`; not with double backprop, lazy sums).
    """

    __slots__ = (
        "array_ok",
        "arrays",
        "counter",
        "debug",
        "dests",
        "double",
        "free_graph",
        "grads",
        "heap",
        "in_dest",
        "lazy",
        "leaves",
        "loss_scale",
        "captured",
        "owned",
        "retain_grad",
        "seen",
        "stops",
    )

    def __init__(
        self,
        retain_grad: bool,
        enable_double_backprop: bool,
        loss_scale: float | None,
        stop_nodes: set[Any] | None = None,
        free_graph: bool | None = None,
        destinations: dict[Any, Any] | None = None,
    ) -> None:
        double = enable_double_backprop
        self.retain_grad = retain_grad
        self.double = double
        self.loss_scale = loss_scale
        if free_graph is None:
            free_graph = not (retain_grad or double) and bool(
                configuration.config.free_graph_in_backward
            )
        self.free_graph = free_graph
        self.lazy = bool(configuration.config.lazy_grad_sum)
        self.debug = configuration.hot_flags().debug
        self.arrays = not double
        # backward_array is only for passes nothing watches: the functions
        # that backward applies are seen by hooks and debug checks.
        self.array_ok = (
            self.arrays and not self.debug and not function_hook._n_registered[0]
        )
        self.grads: dict[VariableNode, Any] = {}
        self.heap: list[tuple[int, int, Any]] = []
        self.seen: set[Any] = set()
        self.leaves: list[VariableNode] = []
        self.counter = 0
        # Nodes whose table entry is a sum allocated by this pass (seen by no
        # one else), so further contributions may be added in place.
        self.owned: set[VariableNode] = set()
        self.stops = stop_nodes
        # kusari.grad's inputs that are not stop nodes (another input lies
        # behind them): their gradient is taken when their creator runs, as
        # the table drops it then.
        self.captured: dict[VariableNode, Any] | None = None
        self.dests = None if double or self.lazy else destinations or None
        # leaves in their destination -> it includes the old gradient already
        self.in_dest: dict[VariableNode, bool] = {}

    # -- phase 1: collect -------------------------------------------------
    def seed(
        self,
        out_nodes: Sequence[VariableNode],
        gys: Sequence[Variable],
        initial_input_grads: dict[Any, Any] | None = None,
    ) -> None:
        """Enter the outputs' initial gradients and queue their creators."""
        for node, gy in zip(out_nodes, gys):
            if self._add_initial(node, gy):
                self.schedule(node)
        if initial_input_grads:
            for node, g in initial_input_grads.items():
                # A stop node is a leaf; any other input's creator runs, so
                # that this gradient flows on to the inputs behind it.
                if self._add_initial(node, g):
                    self.schedule(node)

    def _add_initial(self, node: VariableNode, g: Variable) -> bool:
        """Add an initial gradient; True when it is the node's first."""
        grads = self.grads
        g = g._data if self.arrays else g
        cur = grads.get(node)
        if cur is None:
            grads[node] = [g] if self.lazy else g
            return True
        if self.lazy:
            cur.append(g)
        else:
            grads[node] = _add_arrays(cur, g) if self.arrays else cur + g
        return False

    # -- phase 2: order ---------------------------------------------------
    def schedule(self, node: VariableNode) -> None:
        """Queue the creator of ``node``, which just got its first gradient.

        Functions come off the heap (see :func:`run`) in decreasing rank.
        Leaves (and stop nodes) are remembered for :meth:`hand_out` instead.
        """
        f = node.creator_node
        stops = self.stops
        if f is None or (stops is not None and node in stops):
            if node._old_style_grad_generator is not None:
                raise_old_style_twice(node)
            self.leaves.append(node)
        elif f not in self.seen:
            self.seen.add(f)
            heapq.heappush(self.heap, (-f.rank, self.counter, f))
            self.counter += 1

    # -- phase 3: run a node ----------------------------------------------
    def run_node(self, func: Any) -> None:
        """Run ``func``'s backward and accumulate its inputs' gradients."""
        inputs = func.inputs
        # A freed function holds the inputs tuple of the application that was
        # freed; applying the function again makes a new one.
        if inputs is None or func._freed is inputs:
            raise RuntimeError(freed_message(func))
        out_refs = func.outputs
        if len(out_refs) == 1:
            # The common case: one output, which has a gradient (that is how
            # the function got queued).
            y = out_refs[0]()
            g = None if y is None else self.grads.pop(y, None)
            if g is not None and self.lazy:
                g = _sum_grads(g, self.double)
            out_nodes: Any = (y,)
            gys: tuple[Any, ...] = (g,)
            any_grad = g is not None
            if self.retain_grad:
                self._retain_output_grads(out_nodes, gys)
        else:
            out_nodes, gys, any_grad = self._take_output_grads(out_refs)
        if self.captured is not None:
            self._capture(out_nodes, gys)
        # The inputs that need a gradient (spelled out for one or two).
        n_in = len(inputs)
        targets: tuple[int, ...]
        if n_in == 1:
            targets = _FIRST if inputs[0].requires_grad else ()
        elif n_in == 2:
            r0 = inputs[0].requires_grad
            r1 = inputs[1].requires_grad
            targets = (_BOTH if r1 else _FIRST) if r0 else (_SECOND if r1 else ())
        else:
            targets = tuple([i for i, x in enumerate(inputs) if x.requires_grad])
        if targets and any_grad:
            if (
                self.array_ok
                and func._has_backward_array
                and not func._local_function_hooks
            ):
                gxs = func.backward_array(targets, gys)
                if type(gxs) is not tuple or len(gxs) != len(targets):
                    gxs = normalize_grads(func, targets, gxs)
                self.accumulate(func, inputs, targets, gxs, gxs)
            else:
                gxs = _backward_variables(func, targets, gys, self.arrays)
                datas = _grad_arrays(func, gxs)
                self.accumulate(
                    func, inputs, targets, datas if self.arrays else gxs, datas
                )
        if self.free_graph:
            # Every consumer of these outputs has run its backward (rank
            # order), so the arrays retained for them can go. The graph's
            # structure stays, small as it is, so unchain_backward still
            # works; a second backward through here raises instead.
            func._retained_output_data = None
            for y in out_nodes:
                if y is not None:
                    y.data = None
            func._freed = inputs

    def _take_output_grads(self, out_refs: Any) -> tuple[Any, tuple[Any, ...], bool]:
        """Remove several outputs' gradients from the table (complete by now)."""
        pop = self.grads.pop
        out_nodes = [ref() for ref in out_refs]
        gys = tuple([None if y is None else pop(y, None) for y in out_nodes])
        if self.lazy:
            gys = tuple(
                [None if g is None else _sum_grads(g, self.double) for g in gys]
            )
        if self.retain_grad:
            self._retain_output_grads(out_nodes, gys)
        return out_nodes, gys, any(g is not None for g in gys)

    def _capture(self, out_nodes: Any, gys: tuple[Any, ...]) -> None:
        captured = self.captured
        assert captured is not None
        for y, g in zip(out_nodes, gys):
            if y is not None and g is not None and y in captured:
                captured[y] = _new_variable(g, False) if self.arrays else g

    def _retain_output_grads(self, out_nodes: Any, gys: tuple[Any, ...]) -> None:
        for y, g in zip(out_nodes, gys):
            if y is not None and g is not None:
                var = y._variable()
                if var is not None:
                    var._grad_var = _new_variable(g, False) if self.arrays else g

    # -- phase 4: accumulate ----------------------------------------------
    def accumulate(
        self,
        func: Any,
        inputs: tuple[VariableNode, ...],
        targets: tuple[int, ...],
        gxs: tuple[Any, ...],
        datas: tuple[Any, ...],
    ) -> None:
        """Add the gradients ``func`` gave its inputs to the table.

        ``gxs`` are what the table holds (arrays, or Variables in double
        backprop) and ``datas`` their arrays. An input's first gradient
        queues its creator (:meth:`schedule`).
        """
        grads = self.grads
        lazy = self.lazy
        stops = self.stops
        seen = self.seen
        heap = self.heap
        dests = self.dests
        for i, gx, data in zip(targets, gxs, datas):
            if gx is None:
                continue
            if type(data) is not _ndarray:
                data = _as_grad_array(func, data)
                gx = data if self.arrays else gx
            x = inputs[i]
            if data.shape != x.shape or data.dtype != x.dtype:
                _check_grad_type(func, x, True, data)
            if self.debug:
                _check_nan_backward(func, data)
            cur = grads.get(x)
            if cur is None:
                if dests is not None and x in dests and x.creator_node is None:
                    gx = data = self._to_destination(x, dests[x], data)
                grads[x] = [gx] if lazy else gx
                # The first gradient of x: queue its creator (as schedule
                # does; spelled out here, where it runs once per node).
                f = x.creator_node
                if f is None or (stops is not None and x in stops):
                    self.schedule(x)  # a leaf
                elif f not in seen:
                    seen.add(f)
                    heappush(heap, (-f.rank, self.counter, f))
                    self.counter += 1
            elif lazy:
                cur.append(gx)
            elif self.double:
                grads[x] = cur + gx
            elif x in self.owned:
                # A sum made here below: nobody else holds it, so later
                # contributions add in place.
                cur += data
            else:
                grads[x] = _add_arrays(cur, data)
                self.owned.add(x)

    def _to_destination(self, x: VariableNode, dest: Any, data: Any) -> Any:
        """Leaf ``x``'s first gradient, moved into its destination (which
        then collects the pass's further contributions in place)."""
        if type(data) is not type(dest):
            return data
        self.in_dest[x] = fill_destination(x, dest, data)
        self.owned.add(x)
        return dest

    # -- phase 5: hand out ------------------------------------------------
    def hand_out(self, set_leaf_grads: bool) -> dict[Any, Any]:
        """Turn the table into Variables; store the leaves' in their ``grad``.

        Returns:
            The gradients left in the table (those of the leaves and stop
            nodes, unless ``set_leaf_grads`` moved them into the variables).
        """
        grads = self.grads
        if self.lazy:
            for node in self.leaves:
                g = grads.get(node)
                if g is not None:
                    grads[node] = _sum_grads(g, self.double)
        if self.arrays:
            for node, g in grads.items():
                grads[node] = _new_variable(g, False)
        if set_leaf_grads:
            for node in self.leaves:
                g = grads.pop(node, None)
                var = None if g is None else node._variable()
                if var is not None:
                    store_leaf_grad(
                        var, g, self.double, self.loss_scale, self.in_dest.get(node)
                    )
        if self.captured:
            for node, g in self.captured.items():
                if g is not None:
                    grads[node] = g
        return grads


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
        # Phase 2, order: the queue yields the function of highest rank.
        heap = bp.heap
        heappop = heapq.heappop
        run_node = bp.run_node
        while heap:
            run_node(heappop(heap)[2])
        return bp.hand_out(set_leaf_grads)


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
