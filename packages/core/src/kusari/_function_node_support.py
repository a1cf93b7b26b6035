"""The parts of :class:`~kusari.FunctionNode` that run off the hot path.

``apply`` calls these only when the configuration or the inputs ask for
them: the type check of the inputs, the debug-mode NaN check, the function
hooks around ``forward``, and the error messages of bad inputs and outputs;
recording a function of several outputs, and applying one with backprop off
to inputs that ``apply``'s shortcuts do not take (arrays, three or more);
``get_retained_outputs`` runs in a backward pass that records a graph.
Keeping them here keeps :mod:`kusari.function_node` to the steps every call
takes. ``FunctionNode`` binds the functions that take ``func`` first as its
methods, so calling them costs what calling methods written in its class
body would.
"""

from __future__ import annotations

import collections
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy

from kusari import _backprop, function_hook
from kusari.backends import cuda
from kusari.utils import type_check
from kusari.variable import (
    Variable,
    VariableNode,
    _array_types,
    _new_output,
    _new_variable,
)

_cuda_available = cuda.available

if TYPE_CHECKING:
    from kusari.function_node import FunctionNode


def output_data(func: FunctionNode) -> tuple[Any, ...]:
    """The retained output arrays (None for the others)."""
    if func._output_indexes_to_retain is None or func.outputs is None:
        raise RuntimeError(f"{func.label}: no output data is retained")
    ret: list[Any] = [None] * len(func.outputs)
    for i, data in zip(
        func._output_indexes_to_retain, func._retained_output_data or ()
    ):
        ret[i] = data
    return tuple(ret)


def record(
    func: FunctionNode,
    outputs: tuple[Any, ...],
    in_nodes: tuple[VariableNode, ...],
    in_data: tuple[Any, ...],
    rank: int,
) -> tuple[Variable, ...]:
    """Record the graph (``FunctionNode._record``): link the inputs' and new
    outputs' nodes through ``func``, and keep what backward needs.

    ``rank`` is the highest rank of the inputs that need a gradient.
    """
    func.inputs = in_nodes
    # Chainer's numbering: a function has its inputs' highest rank and
    # its outputs one more.
    func.rank = rank
    rank += 1
    ret = tuple([_new_output(y, func, rank) for y in outputs])
    func.outputs = tuple([weakref.ref(v._node) for v in ret])  # type: ignore[arg-type]
    retain = func._input_indexes_to_retain
    if retain is not None:
        for i in retain:
            in_nodes[i].data = in_data[i]
    retain = func._output_indexes_to_retain
    if retain is not None:
        func._retained_output_data = tuple([outputs[i] for i in retain])
    return ret


def apply_no_graph(
    func: FunctionNode, inputs: Iterable[Any], flags: Any
) -> tuple[Variable, ...]:
    """``apply`` with backprop off: outputs are new leaves, nothing recorded.

    No input node is made, no rank computed and no retained array kept
    (``retain_inputs`` only names indexes); the outputs require a
    gradient when an input does, as in Chainer.
    """
    data = []
    requires_grad = False
    for x in inputs:
        if type(x) is not Variable and not isinstance(x, Variable):
            x = as_input(x, func)
        data.append(x._data)
        if x._requires_grad:
            requires_grad = True
    outputs = func._forward_observed(tuple(data), flags)
    return tuple([_new_variable(y, requires_grad) for y in outputs])


def check_data_type_forward(func: FunctionNode, in_data: tuple[Any, ...]) -> None:
    """Run ``func.check_type_forward`` on ``in_data``; raise InvalidType if it fails.

    The light check (on the arrays' dtypes and shapes, no expression trees)
    runs first; only when it fails is the check re-run in full mode, to
    build the message or to give a check written for full mode only its due.
    """
    try:
        func.check_type_forward(type_check.LightTypeInfoTuple(in_data))
        return
    except (type_check.InvalidType, AttributeError, TypeError):
        pass  # explained below: a missing array, or a full-mode re-check
    for i, d in enumerate(in_data):
        if d is None:
            raise RuntimeError(
                f"{func.label}: input {i} has no array (data is None). A "
                "Parameter was used before it was initialized: call "
                "param.initialize(shape), or let its link infer the shape "
                "on its first call."
            )
    in_types = type_check.get_types(in_data, "in_types", False)
    try:
        with type_check.get_function_check_context(func):
            func.check_type_forward(in_types)
    except type_check.InvalidType as e:
        msg = f"\nInvalid operation is performed in: {func.label} (Forward)\n\n{e}"
        raise type_check.InvalidType(e.expect, e.actual, msg=msg) from None
    # The light check failed where the full one passed: a check written
    # only for full mode. Trust the full check.


def check_nan_in_forward(
    func: FunctionNode, in_data: tuple[Any, ...], outputs: tuple[Any, ...]
) -> None:
    """Raise RuntimeError if a floating-point output of ``func`` has a NaN."""
    for y in outputs:
        if y.dtype.kind == "f" and bool(numpy.isnan(_to_host_any(y)).any()):
            shapes = ", ".join(
                f"{getattr(x, 'shape', None)} {getattr(x, 'dtype', None)}"
                for x in in_data
            )
            raise RuntimeError(
                f"NaN is detected on forward computation of {func.label} "
                f"(inputs: {shapes})"
            )


def check_outputs(func: FunctionNode, outputs: Any, check: bool) -> None:
    """Raise TypeError unless ``outputs`` is a tuple (of arrays, if ``check``)."""
    if type(outputs) is not tuple:
        # Chainer's words first (user code matches on them).
        raise TypeError(
            f"forward output must be a tuple ({func.label})\n"
            f"Actual: {type(outputs)}\n"
            f"{func.label}.forward must return a tuple of arrays"
        )
    if not check:
        return
    for y in outputs:
        if not isinstance(y, _array_types):
            raise TypeError(
                f"forward output must be a tuple of ndarrays "
                f"({func.label})\n{func.label}.forward returned "
                f"{type(y).__name__} among its outputs (wrap scalars "
                "with kusari.utils.force_array)"
            )


# What FunctionNode.apply does about a class's type check (its
# ``_type_check_kind``): nothing (the class has none), decide it on sight
# where it is known to pass (the operands of an elementwise binary operation
# alike, or one float input), else run it.
NO_CHECK = 0
FULL_CHECK = 1
SAME_OPERANDS = 2
ONE_FLOAT = 3


def type_check_kind(cls: type[FunctionNode]) -> int:
    """The ``_type_check_kind`` of a FunctionNode class (see the constants)."""
    if not cls._has_type_check:
        return NO_CHECK
    if cls._same_operands_pass_type_check:
        return SAME_OPERANDS
    if cls._float_input_passes_type_check:
        return ONE_FLOAT
    return FULL_CHECK


def type_check_forward(func: FunctionNode, in_data: tuple[Any, ...]) -> None:
    """Type-check ``func``'s inputs (the operands of a binary operation of
    kind SAME_OPERANDS decided on sight; one float input is decided on sight
    only in ``FunctionNode._apply_one``, the shortcut for one Variable)."""
    if func._type_check_kind == SAME_OPERANDS and len(in_data) == 2:
        a, b = in_data
        if (
            type(a) is numpy.ndarray
            and type(b) is numpy.ndarray
            and a.dtype == b.dtype
            and a.shape == b.shape
        ):
            return
    func._check_data_type_forward(in_data)


def as_input(x: Any, func: FunctionNode) -> Variable:
    """Wrap an input array of ``func`` in a Variable; reject anything else."""
    if isinstance(x, _array_types):
        return _new_variable(x, False)
    raise TypeError(
        f"{func.label}: inputs must be Variables or ndarrays, got "
        f"{type(x).__module__}.{type(x).__name__}"
    )


def _to_host_any(x: Any) -> Any:
    return x if isinstance(x, numpy.ndarray) else cuda.to_cpu(x)


def impl_name(func: FunctionNode) -> str:
    """The name of the class that implements ``func`` (``_impl_name``).

    For the adapter that runs an old-style :class:`~kusari.Function` this is
    the wrapped Function's class name, not the adapter's; otherwise it is the
    class name of ``func`` itself.
    """
    if getattr(type(func), "_wraps_old_style_function", False):
        wrapped = getattr(func, "function", None)
        if wrapped is not None:
            return type(wrapped).__name__
    return type(func).__name__


def forward_in_context(func: FunctionNode, in_data: tuple[Any, ...]) -> Any:
    """``func.forward`` between the function hooks, on the inputs' GPU."""
    hooks = func._all_hooks()
    for hook in hooks:
        hook.forward_preprocess(func, in_data)
    if _cuda_available and in_data and isinstance(in_data[0], cuda.ndarray):
        with in_data[0].device:
            outputs = func.forward(in_data)
    else:
        outputs = func.forward(in_data)
    for hook in hooks:
        hook.forward_postprocess(func, in_data)
    return outputs


def all_hooks(func: FunctionNode) -> list[Any]:
    """The global function hooks, then those registered on ``func``."""
    hooks = list(function_hook.get_function_hooks().values())
    if func._local_function_hooks:
        hooks.extend(func._local_function_hooks.values())
    return hooks


def get_retained_outputs(func: FunctionNode) -> tuple[Variable, ...]:
    """The retained outputs as Variables (connected to the graph).

    An output that nobody holds any more is rebuilt from its retained array
    and linked back to ``func``, so backward graphs can still refer to it.
    """
    indexes = func._output_indexes_to_retain
    if indexes is None:
        return ()
    outputs = func.outputs
    assert outputs is not None
    retained = func._retained_output_data
    if retained is None:
        raise RuntimeError(_backprop.freed_message(func))
    ret = []
    new_outputs = None
    for index, data in zip(indexes, retained):
        node = outputs[index]()
        if node is None:
            var = _new_output(data, func, func.rank + 1)
            if new_outputs is None:
                new_outputs = list(outputs)
            new_outputs[index] = weakref.ref(var._node)  # type: ignore[arg-type]
        else:
            var = node.get_variable()
            if var._data is None:
                var._data = data
        ret.append(var)
    if new_outputs is not None:
        func.outputs = tuple(new_outputs)
    return tuple(ret)


def retained_input_array(func: Any, i: int) -> Any:
    """Retained input ``i`` of ``func`` as an array, for ``backward_array``.

    An earlier backward through a shared subgraph may have dropped the input
    node's copy while the Variable lives on; ``get_retained_inputs`` reads the
    Variable then, and so does this.
    """
    node = func.inputs[i]
    data = node.data
    if data is None:
        data = node.get_variable()._data
    return data


def default_backward(
    func: Any, targets: tuple[int, ...], grad_outputs: tuple[Any, ...]
) -> tuple[Any, ...]:
    """``FunctionNode.backward`` of a class that does not define it.

    Chainer lets a function define only ``backward_accumulate``; with no
    earlier input gradients to add (all None) its result is the plain
    gradient, which the engine then accumulates as for any ``backward``.
    Otherwise the function has no gradient: None for every target.
    """
    from kusari.function_node import FunctionNode

    if type(func).backward_accumulate is not FunctionNode.backward_accumulate:
        return func.backward_accumulate(targets, grad_outputs, (None,) * len(targets))
    return (None,) * len(targets)


# -- hooks registered on one function -------------------------------------------
# FunctionNode binds these as its ``local_function_hooks`` and
# ``_n_local_function_hooks`` properties and its ``add_hook`` and
# ``delete_hook`` methods.


def local_function_hooks(func: FunctionNode) -> collections.OrderedDict[str, Any]:
    """Hooks registered on this function only."""
    if func._local_function_hooks is None:
        func._local_function_hooks = collections.OrderedDict()
    return func._local_function_hooks


def n_local_function_hooks(func: FunctionNode) -> int:
    hooks = func._local_function_hooks
    return 0 if hooks is None else len(hooks)


def add_hook(func: FunctionNode, hook: Any, name: str | None = None) -> None:
    """Register a :class:`~kusari.FunctionHook` on this function only.

    Args:
        hook: The hook.
        name: Its name on this function (default: ``hook.name``).
    """
    name = hook.name if name is None else name
    hooks = func.local_function_hooks
    if name in hooks:
        raise KeyError(f"hook {name} already exists on {func.label}")
    hooks[name] = hook
    hook.added(func)


def delete_hook(func: FunctionNode, name: str) -> None:
    """Unregister the hook called ``name`` from this function.

    Args:
        name: The hook's name on this function.
    """
    hook = func.local_function_hooks.pop(name)
    hook.deleted(func)
