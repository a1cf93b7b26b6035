"""The steps of the backward pass around one function, and its error messages.

:class:`kusari._backprop.BackwardPass` schedules the functions and keeps
the table of gradients; the helpers here start a pass (``initial_grad``),
call a function's ``backward`` with its hooks, check, convert and sum what
it returns, and say what went wrong. :mod:`kusari._backprop` re-exports
them, so both modules' names stay where callers look for them.
"""

from __future__ import annotations

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
