"""The gradient table and the queue of a backward pass (:class:`BackwardPass`).

:mod:`kusari._backprop` runs passes (``Variable.backward``,
``kusari.backward``, ``kusari.grad``) and describes their phases; this
module holds the state a pass keeps between them and the methods of each
phase, which the general loop of :func:`kusari._backprop.run` calls one
function at a time. ``kusari._backprop`` re-exports the class.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from heapq import heappush
from typing import Any

import numpy

from kusari import configuration, function_hook
from kusari._backprop_steps import (
    _add_arrays,
    _as_grad_array,
    _backward_variables,
    _check_nan_backward,
    _grad_arrays,
    _sum_grads,
    fill_destination,
    freed_message,
    normalize_grads,
    raise_old_style_twice,
    store_leaf_grad,
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
            :func:`kusari.grad_destinations`; not with double backprop, lazy
            sums).
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
        # Ties in rank leave the heap in the order functions were queued
        # (and functions themselves are never compared).
        self.counter = itertools.count()
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

        Functions come off the heap (see :func:`kusari._backprop.run`) in
        decreasing rank.
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
            heappush(self.heap, (-f.rank, next(self.counter), f))

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
        targets = target_indexes(inputs)
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
                    heappush(heap, (-f.rank, next(self.counter), f))
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

    def first_leaf_grad(self, x: VariableNode, gx: Any) -> None:
        """Enter leaf (or stop node) ``x``'s first gradient, an array.

        :meth:`accumulate`'s steps for a leaf in a pass that sums as it goes
        (for :func:`kusari._backprop._run_arrays`, which does the rest).
        """
        dests = self.dests
        if dests is not None and x in dests and x.creator_node is None:
            gx = self._to_destination(x, dests[x], gx)
        self.grads[x] = gx
        self.schedule(x)

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


def target_indexes(inputs: tuple[VariableNode, ...]) -> tuple[int, ...]:
    """The indexes of the inputs that need a gradient (shared tuples for one
    or two inputs, the commonest)."""
    n_in = len(inputs)
    if n_in == 1:
        return _FIRST if inputs[0].requires_grad else ()
    if n_in == 2:
        r1 = inputs[1].requires_grad
        if inputs[0].requires_grad:
            return _BOTH if r1 else _FIRST
        return _SECOND if r1 else ()
    return tuple([i for i, x in enumerate(inputs) if x.requires_grad])
