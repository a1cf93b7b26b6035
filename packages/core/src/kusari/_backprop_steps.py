"""The steps of the backward pass around one function, and its error messages.

:class:`kusari._backprop.BackwardPass` schedules the functions and keeps
the table of gradients; the helpers here start a pass (``initial_grad``),
call a function's ``backward`` with its hooks, check, convert and sum what
it returns, and say what went wrong. :mod:`kusari._backprop` re-exports
them, so both modules' names stay where callers look for them.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterable, Iterator
from typing import Any

import numpy

from kusari import backend, function_hook
from kusari._variable_node import BackwardGradientError
from kusari.backends import cuda
from kusari.utils import threads
from kusari.variable import (
    Variable,
    _array_types,
    _check_grad_type,
    _new_variable,
)

_ndarray = numpy.ndarray
# Gradients of at least this many elements are summed over the intra-op
# threads (a variable used twice, e.g. a residual connection's input).
_BIG = threads.MIN_ELEMENTS


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
            raise BackwardGradientError(
                "type of gradients returned from backward is incorrect: "
                f"{func.label}.backward must return a tuple of Variables, got "
                f"{type(gxs).__name__}"
            )
    n = len(gxs)
    if n == len(targets):
        return gxs
    if n == len(func.inputs):
        return tuple([gxs[i] for i in targets])
    raise BackwardGradientError(
        f"number of gradients returned from backward is incorrect: {n} != "
        f"expected {len(targets)} or {len(func.inputs)} ({func.label}.backward "
        f"returned {n} gradients; it must return one per target input or one "
        "per input)"
    )


def _sum_grads(grads: list[Any], double: bool) -> Any:
    total = grads[0]
    for g in grads[1:]:
        total = total + g if double else _add_arrays(total, g)
    return total


def _add_arrays(a: Any, b: Any) -> Any:
    if type(a) is _ndarray and a.size >= _BIG and type(b) is _ndarray:
        return threads.elementwise(numpy.add, a, b)
    s = a + b
    if isinstance(s, numpy.generic):
        s = numpy.asarray(s)  # NumPy turns 0-dim sums into scalars
    return s


def _as_grad_array(func: Any, gx: Any) -> Any:
    """Check a gradient that backward_array returned (not a NumPy ndarray)."""
    if isinstance(gx, numpy.generic):
        return numpy.asarray(gx)  # a 0-dim result of NumPy arithmetic
    if isinstance(gx, _array_types):
        return gx
    raise TypeError(
        f"{func.label}.backward_array returned {type(gx).__name__}; gradients "
        "must be arrays"
    )


def _grad_arrays(func: Any, gxs: tuple[Any, ...]) -> tuple[Any, ...]:
    """The arrays of the gradient Variables that ``func.backward`` returned."""
    datas: list[Any] = []
    for gx in gxs:
        if gx is None:
            datas.append(None)
        elif type(gx) is Variable or isinstance(gx, Variable):
            datas.append(gx._data)
        else:
            raise BackwardGradientError(
                "type of gradients returned from backward is incorrect: "
                f"{func.label}.backward returned {type(gx).__name__}; "
                "gradients must be Variables"
            )
    return tuple(datas)


def _backward_variables(
    func: Any, targets: tuple[int, ...], gys: tuple[Any, ...], arrays: bool
) -> tuple[Any, ...]:
    """Call ``func.backward`` (on Variables), with its function hooks."""
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
    if data.dtype.kind != "f":
        return
    host = cuda.to_cpu(data)
    if bool((host != host).any()):
        raise RuntimeError(f"NaN is detected on backward computation of {func.label}")


# -- gradient destinations --------------------------------------------------

#: The destinations of the innermost :func:`grad_destinations` block: leaf
#: node -> array, or None outside any block.
_destinations: contextvars.ContextVar[dict[Any, Any] | None] = contextvars.ContextVar(
    "kusari_grad_destinations", default=None
)


@contextlib.contextmanager
def grad_destinations(pairs: Iterable[tuple[Variable, Any]]) -> Iterator[None]:
    """Let the backward passes in this block write leaves' gradients into
    given arrays.

    A kusari addition (Chainer has no such switch), for code that keeps
    gradients in buffers of its own: kusari-mn averages all of a model's
    gradients in one flat buffer per dtype, and its multi-node optimizer
    hands the buffer's views here, so that the buffer needs no copying pass
    of its own after backward. Nothing changes outside such a block.

    Inside it, when a backward pass that stores the leaves' gradients
    (``Variable.backward``, ``kusari.backward``; not ``kusari.grad``, not
    with ``enable_double_backprop`` or ``config.lazy_grad_sum``) gives
    variable ``v`` of a pair its first gradient of the pass, the gradient
    is copied into the pair's array at once, while it is still in cache,
    and later contributions of the pass are added there in place. Afterwards
    ``v.grad`` *is* that array, holding what it would have held without the
    block: ``v``'s old gradient (if it had one) plus the pass's gradient.
    The only difference is rounding order when ``v``'s old gradient lies in
    the destination itself and the pass gives ``v`` several contributions
    (the old gradient is added first instead of last). A variable that gets
    no gradient in the pass keeps its ``grad``, and its array is not
    touched. A gradient of another array type than the destination (a
    device gradient for a host array) is handed out as usual.

    The arrays must not overlap one another or anything backward reads
    (the graph's retained arrays, an initial gradient).

    Args:
        pairs: ``(variable, array)`` pairs; each array of the variable's
            array type, shape and dtype, writeable. A later pair for the
            same variable replaces an earlier one.

    Raises:
        TypeError: When a pair's variable is not a :class:`Variable` or its
            array is not an array of the variable's array type.
        ValueError: When a variable has no array yet, or an array's shape
            or dtype differs from its variable's, or it is read-only.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> w = kusari.Parameter(np.ones(3, np.float32))
        >>> out = np.empty(3, np.float32)
        >>> with kusari.grad_destinations([(w, out)]):
        ...     kusari.functions.sum(w * 2.0).backward()
        >>> w.grad is out, out
        (True, array([2., 2., 2.], dtype=float32))
    """
    table: dict[Any, Any] = {}
    for pair in pairs:
        var, dest = pair
        _check_destination(var, dest)
        table[var.node] = dest
    token = _destinations.set(table)
    try:
        yield
    finally:
        _destinations.reset(token)


def _check_destination(var: Any, dest: Any) -> None:
    if not isinstance(var, Variable):
        raise TypeError(
            "grad_destinations: expected (Variable, array) pairs, got a "
            f"{type(var).__name__} where the Variable goes"
        )
    array = var.array
    name = var.name or "a variable"
    if array is None:
        raise ValueError(
            f"grad_destinations: {name} has no array yet (an uninitialized "
            "parameter), so its gradient has no shape to write into"
        )
    if type(dest) is not type(array):
        raise TypeError(
            f"grad_destinations: the destination of {name} must be a "
            f"{type(array).__name__} like its array, got {type(dest).__name__}"
        )
    if dest.shape != array.shape or dest.dtype != array.dtype:
        raise ValueError(
            f"grad_destinations: the destination of {name} must have shape "
            f"{array.shape} and dtype {array.dtype}, got {dest.shape} "
            f"{dest.dtype}"
        )
    flags = getattr(dest, "flags", None)
    if flags is not None and not flags.writeable:
        raise ValueError(f"grad_destinations: the destination of {name} is read-only")


def current_destinations() -> dict[Any, Any] | None:
    """The innermost :func:`grad_destinations` block's node -> array table."""
    return _destinations.get()


def fill_destination(node: Any, dest: Any, data: Any) -> bool:
    """Put leaf ``node``'s first gradient of a pass, ``data``, into ``dest``.

    Where the variable's current gradient may share memory with ``dest``
    (its old gradient lies there), the sum is written at once, since a copy
    would overwrite the old gradient before it is added.

    Returns:
        Whether ``dest`` now includes the old gradient (else it holds
        ``data`` alone and the old gradient, if any, is added when the
        gradients are handed out: :func:`store_leaf_grad`).
    """
    xp = backend.get_array_module(dest)
    var = node._variable()
    old = None if var is None else var._grad_var
    if old is not None and xp.may_share_memory(old._data, dest):
        if old._data is dest or xp is numpy:
            # (NumPy buffers overlapping operands itself)
            xp.add(old._data, data, out=dest)
        else:
            xp.copyto(dest, old._data + data)
        return True
    xp.copyto(dest, data)
    return False


def store_leaf_grad(
    var: Variable,
    g: Any,
    double: bool,
    loss_scale: float | None,
    in_dest: bool | None = None,
) -> None:
    """Make ``g`` (a Variable) ``var``'s gradient, added to its old one.

    Args:
        var: The leaf variable.
        g: The gradient of the pass.
        double: Whether the pass records a graph (then the sum does too).
        loss_scale: Stored with the gradient.
        in_dest: None for a gradient the pass made; else ``g`` is the
            variable's destination, and whether it includes the old
            gradient already (see :func:`fill_destination`).
    """
    old = var._grad_var
    if old is not None and not in_dest:
        if in_dest is not None:
            # the destination holds the pass's part: old first, as below
            backend.get_array_module(g._data).add(old._data, g._data, out=g._data)
        elif double:
            g = old + g
        else:
            g = _new_variable(_add_arrays(old._data, g._data), False)
    var._grad_var = g
    var._loss_scale = loss_scale
