"""The backward pass: walks the graph from outputs to leaves by rank.

Functions are visited in decreasing rank, so every consumer of a variable is
processed before its creator and each gradient is complete when it is used.
Gradients live in a table keyed by node and are dropped as soon as they have
been passed on. Unless the caller keeps the graph (``retain_grad`` or double
backprop), the arrays that functions retained for backward are dropped as
soon as the last function that needs them has run, so activations are freed
while the backward pass proceeds instead of when the loss is dropped.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

import numpy

from kusari import configuration, function_hook

_FIRST = (0,)
_SECOND = (1,)
_BOTH = (0, 1)
_ndarray = numpy.ndarray


def raise_old_style_twice(node: Any) -> None:
    """Refuse to differentiate a gradient made by an old-style Function."""
    raise RuntimeError(
        "cannot twice-differentiate an old style Function "
        f'"{node._old_style_grad_generator}" (its backward works on arrays, '
        "so the gradient it returned has no graph)"
    )


def freed_message(func: Any) -> str:
    return (
        f"{func.label}: the graph through this function was freed by an earlier "
        "backward(). To backprop through the same graph twice, call the first "
        "backward with retain_grad=True (or enable_double_backprop=True)."
    )


def initial_grad(y: Any, gy: Any, loss_scale: float | None, who: str) -> Any:
    """The starting gradient of output ``y`` (``gy``, its grad, or ones)."""
    from kusari.variable import Variable, _check_grad_type

    if gy is None:
        gv = y._grad_var
        if gv is not None:
            return gv
        data = y._data
        if data.size != 1:
            raise ValueError(
                f"{who}: an output has shape {data.shape}, so its gradient is "
                "ambiguous; pass it explicitly (grad_outputs) or set `y.grad`."
            )
        from kusari import backend

        g = backend.get_array_module(data).ones_like(data)
        if loss_scale is not None:
            g *= loss_scale
        return Variable(g, requires_grad=False)
    if not isinstance(gy, Variable):
        _check_grad_type(None, y, False, gy)
        return Variable(gy, requires_grad=False)
    _check_grad_type(None, y, False, gy._data)
    return gy


def normalize_grads(func: Any, targets: tuple[int, ...], gxs: Any) -> tuple[Any, ...]:
    """Check a backward's result; return one entry per target input."""
    if type(gxs) is not tuple:
        if isinstance(gxs, list):
            gxs = tuple(gxs)
        else:
            raise TypeError(
                f"{func.label}.backward must return a tuple of Variables, got "
                f"{type(gxs).__name__}"
            )
    n = len(gxs)
    if n == len(targets):
        return gxs
    if n == len(func.inputs):
        return tuple([gxs[i] for i in targets])
    raise ValueError(
        f"{func.label}.backward returned {n} gradients; expected "
        f"{len(targets)} (one per target input) or {len(func.inputs)} (one per input)"
    )


def _sum_grads(grads: list[Any], double: bool) -> Any:
    total = grads[0]
    for g in grads[1:]:
        total = total + g if double else _add_arrays(total, g)
    return total


def _add_arrays(a: Any, b: Any) -> Any:
    s = a + b
    if isinstance(s, numpy.generic):
        s = numpy.asarray(s)  # NumPy turns 0-dim sums into scalars
    return s


def _as_grad_array(func: Any, gx: Any) -> Any:
    """Check a gradient that backward_array returned (not a NumPy ndarray)."""
    from kusari.variable import _array_types

    if isinstance(gx, numpy.generic):
        return numpy.asarray(gx)  # a 0-dim result of NumPy arithmetic
    if isinstance(gx, _array_types):
        return gx
    raise TypeError(
        f"{func.label}.backward_array returned {type(gx).__name__}; gradients "
        "must be arrays"
    )


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
) -> dict[Any, Any]:
    """Backprop from ``out_nodes`` with initial gradients ``gys``.

    Returns the table of gradients (Variables) left at the leaves (and
    ``stop_nodes``).
    """
    from kusari.variable import Variable, _check_grad_type, _new_variable

    double = enable_double_backprop
    if free_graph is None:
        free_graph = not (retain_grad or double)
    lazy = bool(configuration.config.lazy_grad_sum)
    debug = configuration.hot_flags().debug
    # Double backprop records the gradients' computation, so the table holds
    # Variables. Otherwise it holds bare arrays: no graph is recorded and
    # nothing can observe the Variables that would wrap them, so they are
    # made only where they are handed out (a Variable backward, grad_var).
    # Functions with a backward_array then run entirely on arrays, unless
    # something watches the functions that backward applies (hooks, debug).
    arrays = not double
    array_ok = arrays and not debug and not function_hook._n_registered[0]
    grads: dict[Any, Any] = {}
    heap: list[Any] = []
    seen: set[Any] = set()
    leaves: list[Any] = []
    counter = 0
    heappush = heapq.heappush
    heappop = heapq.heappop
    grads_get = grads.get
    grads_pop = grads.pop
    # Nodes whose gradient entry is a sum allocated by this loop (never seen
    # by anyone else), so further contributions may be added in place.
    owned: set[Any] = set()
    no_stop = stop_nodes is None
    stops: set[Any] = set() if stop_nodes is None else stop_nodes

    def accumulate(node: Any, g: Any) -> bool:
        """Add ``g`` to node's gradient; True if it is the node's first."""
        if arrays:
            g = g._data
        cur = grads_get(node)
        if cur is None:
            grads[node] = [g] if lazy else g
            return True
        if lazy:
            cur.append(g)
        else:
            grads[node] = _add_arrays(cur, g) if arrays else cur + g
        return False

    for node, gy in zip(out_nodes, gys):
        if accumulate(node, gy):
            func = node.creator_node
            if func is None or (not no_stop and node in stops):
                leaves.append(node)
            elif func not in seen:
                seen.add(func)
                heappush(heap, (-func.rank, counter, func))
                counter += 1
    if initial_input_grads:
        for node, g in initial_input_grads.items():
            if accumulate(node, g) and node not in leaves:
                leaves.append(node)

    # Functions applied inside backward get inputs the framework made and
    # checked (gradient shapes are verified below), so their type checks
    # only cost time; debug mode keeps them.
    with (
        configuration.using_config("enable_backprop", double),
        configuration.using_config(
            "type_check", debug and configuration.config.type_check
        ),
    ):
        while heap:
            func = heappop(heap)[2]
            inputs = func.inputs
            if inputs is None or func._freed:
                raise RuntimeError(freed_message(func))
            out_refs = func.outputs
            if len(out_refs) == 1:
                # The common case: one output, which has a gradient (that is
                # how the function got here).
                y = out_refs[0]()
                out_nodes_f: Any = (y,)
                g = grads_pop(y, None) if y is not None else None
                if g is not None and lazy:
                    g = _sum_grads(g, double)
                gys_t: tuple[Any, ...] = (g,)
                any_grad = g is not None
            else:
                out_nodes_f = [ref() for ref in out_refs]
                gys_l = []
                any_grad = False
                for y in out_nodes_f:
                    g = None if y is None else grads_pop(y, None)
                    if g is not None:
                        if lazy:
                            g = _sum_grads(g, double)
                        any_grad = True
                    gys_l.append(g)
                gys_t = tuple(gys_l)
            if retain_grad:
                for y, g in zip(out_nodes_f, gys_t):
                    if y is not None and g is not None:
                        var = y._variable()
                        if var is not None:
                            var._grad_var = _new_variable(g, False) if arrays else g
            targets: tuple[int, ...]
            n_in = len(inputs)
            if n_in == 1:
                targets = _FIRST if inputs[0].requires_grad else ()
            elif n_in == 2:
                r0 = inputs[0].requires_grad
                r1 = inputs[1].requires_grad
                targets = (_BOTH if r1 else _FIRST) if r0 else (_SECOND if r1 else ())
            else:
                targets = tuple([i for i, x in enumerate(inputs) if x.requires_grad])
            if targets and any_grad:
                via_array = (
                    array_ok
                    and func._has_backward_array
                    and not func._local_function_hooks
                )
                if via_array:
                    gxs = func.backward_array(targets, gys_t)
                    if type(gxs) is not tuple or len(gxs) != len(targets):
                        gxs = normalize_grads(func, targets, gxs)
                else:
                    gxs = _backward_variables(func, targets, gys_t, arrays)
                for i, gx in zip(targets, gxs):
                    if gx is None:
                        continue
                    if via_array:
                        if type(gx) is not _ndarray:
                            gx = _as_grad_array(func, gx)
                        data = gx
                    else:
                        if type(gx) is not Variable and not isinstance(gx, Variable):
                            raise TypeError(
                                f"{func.label}.backward returned "
                                f"{type(gx).__name__}; gradients must be Variables"
                            )
                        data = gx._data
                        if arrays:
                            gx = data
                    x = inputs[i]
                    if data.shape != x.shape or data.dtype != x.dtype:
                        _check_grad_type(func, x, True, data)
                    if debug:
                        _check_nan_backward(func, data)
                    cur = grads_get(x)
                    if cur is not None:
                        if lazy:
                            cur.append(gx)
                        elif double:
                            grads[x] = cur + gx
                        elif x in owned:
                            # A sum made here below: nobody else holds it,
                            # so later contributions add in place.
                            cur += data
                        else:
                            grads[x] = _add_arrays(cur, data)
                            owned.add(x)
                        continue
                    grads[x] = [gx] if lazy else gx
                    f = x.creator_node
                    if f is None or (not no_stop and x in stops):
                        if x._old_style_grad_generator is not None:
                            raise_old_style_twice(x)
                        leaves.append(x)
                    elif f not in seen:
                        seen.add(f)
                        heappush(heap, (-f.rank, counter, f))
                        counter += 1
            if free_graph:
                # Every consumer of these outputs has run its backward (rank
                # order), so the arrays retained for them can go. The graph's
                # structure stays, small as it is, so unchain_backward still
                # works; a second backward through here raises instead.
                func._retained_output_data = None
                for y in out_nodes_f:
                    if y is not None:
                        y.data = None
                func._freed = True

        if lazy:
            for node in leaves:
                g = grads.get(node)
                if g is not None:
                    grads[node] = _sum_grads(g, double)
        if arrays:
            for node, g in grads.items():
                grads[node] = _new_variable(g, False)
        if set_leaf_grads:
            for node in leaves:
                g = grads.pop(node, None)
                if g is None:
                    continue
                var = node._variable()
                if var is None:
                    continue
                old = var._grad_var
                if old is not None:
                    g = (
                        old + g
                        if double
                        else _new_variable(_add_arrays(old._data, g._data), False)
                    )
                var._grad_var = g
                var._loss_scale = loss_scale
    return grads


def _backward_variables(
    func: Any, targets: tuple[int, ...], gys: tuple[Any, ...], arrays: bool
) -> tuple[Any, ...]:
    """Call ``func.backward`` (on Variables), with its function hooks."""
    from kusari.variable import _new_variable

    if arrays:
        g_data = gys
        if len(gys) == 1:
            gys = (_new_variable(gys[0], False),)  # got here: it has a gradient
        else:
            gys = tuple([None if g is None else _new_variable(g, False) for g in gys])
    else:
        g_data = tuple([None if g is None else g._data for g in gys])
    hooks = None
    if function_hook._n_registered[0] or func._local_function_hooks:
        hooks = func._all_hooks()
        in_data = tuple([x.data for x in func.inputs])
        for hook in hooks:
            hook.backward_preprocess(func, in_data, g_data)
    gxs = func.backward(targets, gys)
    if hooks is not None:
        for hook in hooks:
            hook.backward_postprocess(func, in_data, g_data)
    if type(gxs) is not tuple or len(gxs) != len(targets):
        gxs = normalize_grads(func, targets, gxs)
    return gxs


def _check_nan_backward(func: Any, data: Any) -> None:
    from kusari.backends import cuda

    if data.dtype.kind != "f":
        return
    host = cuda.to_cpu(data)
    if bool((host != host).any()):
        raise RuntimeError(f"NaN is detected on backward computation of {func.label}")


def backward_all(
    out_nodes: Sequence[Any],
    gys: Sequence[Any],
    retain_grad: bool,
    enable_double_backprop: bool,
    loss_scale: float | None,
) -> None:
    run(out_nodes, gys, retain_grad, enable_double_backprop, loss_scale)


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
