"""Old-style ``Function`` (forward and backward on arrays) and backprop modes.

New code should subclass :class:`~kusari.FunctionNode`. ``Function`` exists
so that Chainer code written against it keeps working: it is wrapped in a
:class:`FunctionAdapter` node. Its backward is not differentiable again.
"""

from __future__ import annotations

import contextlib
import warnings
import weakref
from typing import Any

from kusari import _backprop, configuration
from kusari.function_node import FunctionNode
from kusari.variable import Variable, _check_grad_type


def no_backprop_mode() -> contextlib.AbstractContextManager[None]:
    """Turn off graph recording inside a ``with`` block.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> x = kusari.Variable(np.ones(2, dtype=np.float32))
        >>> with kusari.no_backprop_mode():
        ...     y = x * 2
        >>> y.creator is None
        True
    """
    return configuration.using_config("enable_backprop", False)


def force_backprop_mode() -> contextlib.AbstractContextManager[None]:
    """Turn graph recording back on inside a ``with`` block."""
    return configuration.using_config("enable_backprop", True)


class FunctionAdapter(FunctionNode):
    """Runs an old-style :class:`Function` as a :class:`FunctionNode`."""

    # Until the function is applied the adapter refers to it weakly (the
    # function owns the adapter); Function.__call__ makes the link strong.
    _function: Function | None = None
    # Lets VariableNode.creator unwrap adapters without importing this module.
    _wraps_old_style_function = True

    def __init__(self, function: Function) -> None:
        self._weak_function: weakref.ref[Function] | None = weakref.ref(function)

    @property
    def function(self) -> Function | None:
        """The wrapped :class:`Function` (None if it is gone before a call)."""
        func = self._function
        if func is None and self._weak_function is not None:
            func = self._weak_function()
        return func

    def _own(self, function: Function) -> None:
        self._function = function
        self._weak_function = None

    @property
    def label(self) -> str:
        func = self.function
        return type(self).__name__ if func is None else func.label

    def check_type_forward(self, in_types: Any) -> None:
        func = self._function
        assert func is not None
        func.check_type_forward(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # The old API hands every input to backward unless the function's
        # forward narrows it down with Function.retain_inputs.
        self.retain_inputs(tuple(range(len(inputs))))
        func = self._function
        assert func is not None
        outputs = func.forward(inputs)
        if not isinstance(outputs, tuple):
            raise TypeError(
                f"forward output must be a tuple ({self.label})\n"
                f"Actual: {type(outputs)}\n"
                f"{self.label}.forward must return a tuple of arrays"
            )
        return outputs

    def backward(
        self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        inputs = self.inputs
        if inputs is None:
            raise RuntimeError(_backprop.freed_message(self))
        # Inputs the function did not retain reach its backward as None.
        in_vars: list[Variable | None] = [None] * len(inputs)
        for i, var in zip(
            self._input_indexes_to_retain or (), self.get_retained_inputs()
        ):
            in_vars[i] = var
        in_data = tuple([None if v is None else v._data for v in in_vars])
        g_data = tuple(
            [None if g is None else getattr(g, "_data", g) for g in grad_outputs]
        )
        func = self._function
        assert func is not None
        gxs = func.backward(in_data, g_data)
        if isinstance(gxs, list):
            gxs = tuple(gxs)
        if not isinstance(gxs, tuple):
            raise TypeError(
                f"{self.label}.backward must return a tuple of arrays, got "
                f"{type(gxs).__name__}"
            )
        if len(gxs) != len(in_data):
            raise ValueError(
                f"{self.label}.backward returned {len(gxs)} gradients for "
                f"{len(in_data)} inputs"
            )
        # The input nodes know shape and dtype even where the array is gone.
        for node, gx in zip(inputs, gxs):
            _check_grad_type(self, node, True, gx)
        ret: list[Variable | None] = []
        for i in target_input_indexes:
            g: Any = gxs[i]
            if g is None:
                ret.append(None)
                continue
            # The gradient is a leaf that remembers which old-style function
            # made it, so differentiating it again fails loudly instead of
            # silently giving zero (the array backward records no graph).
            gv = Variable(g)
            gv.node._old_style_grad_generator = func.label
            ret.append(gv)
        return tuple(ret)


class Function:
    """Old-style differentiable function on arrays.

    Implement ``forward`` (or ``forward_cpu``/``forward_gpu``) and
    ``backward`` (or ``backward_cpu``/``backward_gpu``), each taking and
    returning tuples of arrays; call the instance on inputs.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> class Twice(kusari.Function):
        ...     def forward(self, inputs):
        ...         return inputs[0] * 2,
        ...     def backward(self, inputs, grad_outputs):
        ...         return grad_outputs[0] * 2,
        >>> x = kusari.Variable(np.ones(2, dtype=np.float32))
        >>> y = Twice()(x)
        >>> kusari.functions.sum(y).backward()
        >>> x.grad
        array([2., 2.], dtype=float32)
    """

    # Before the first call the function owns its adapter (`_owned_node`);
    # a call hands ownership to the graph and keeps only a weak reference
    # (`_node`), so the graph holds no reference cycle through the function.
    _node: weakref.ref[FunctionAdapter] | None = None
    _owned_node: FunctionAdapter | None = None

    @property
    def node(self) -> FunctionAdapter:
        """The :class:`FunctionAdapter` wrapping this function.

        After a call this is the node in the graph while the graph is alive;
        otherwise a fresh, unapplied node is made.
        """
        ref = self._node
        node = ref() if ref is not None else None
        if node is None:
            node = self._owned_node
            if node is None:
                node = self._owned_node = FunctionAdapter(self)
        return node

    def __call__(self, *inputs: Any) -> Any:
        node = self.node
        node._own(self)
        self._node = weakref.ref(node)
        self._owned_node = None
        ret = node.apply(inputs)
        return ret[0] if len(ret) == 1 else ret

    @property
    def inputs(self) -> Any:
        """The input nodes of the wrapped node (None before a call)."""
        return self.node.inputs

    @property
    def outputs(self) -> Any:
        """Weak references to the output nodes (None before a call)."""
        return self.node.outputs

    @property
    def rank(self) -> int:
        return self.node.rank

    @property
    def label(self) -> str:
        return type(self).__name__

    @property
    def output_data(self) -> Any:
        """The retained output arrays, None for the outputs not retained."""
        return self.node.output_data

    @property
    def local_function_hooks(self) -> Any:
        return self.node.local_function_hooks

    def check_type_forward(self, in_types: Any) -> None:
        """Check input types with ``type_check.expect``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from kusari import backend

        if backend.get_array_module(*inputs).__name__ == "numpy":
            return self.forward_cpu(inputs)
        return self.forward_gpu(inputs)

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(f"{self.label} implements no forward_cpu")

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(f"{self.label} implements no forward_gpu")

    def backward(
        self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        from kusari import backend

        if backend.get_array_module(*inputs).__name__ == "numpy":
            return self.backward_cpu(inputs, grad_outputs)
        return self.backward_gpu(inputs, grad_outputs)

    def backward_cpu(
        self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        return (None,) * len(inputs)

    def backward_gpu(
        self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        return (None,) * len(inputs)

    def retain_inputs(self, indexes: Any) -> None:
        """Keep only these inputs for backward; call it from ``forward``.

        Without a call every input is kept (unlike
        :meth:`FunctionNode.retain_inputs`); pass ``()`` to keep none. The
        inputs not kept reach :meth:`backward` as None.
        """
        self.node.retain_inputs(tuple(indexes))

    def retain_outputs(self, indexes: Any, retain_after_backward: bool = False) -> None:
        """Keep these outputs for backward (read them via ``output_data``)."""
        if retain_after_backward:
            warnings.warn(
                "retain_after_backward option has no effect", DeprecationWarning
            )
        self.node.retain_outputs(tuple(indexes))

    def unchain(self) -> None:
        """Cut the node out of the graph (see :meth:`FunctionNode.unchain`)."""
        self.node.unchain()

    def add_hook(self, hook: Any, name: str | None = None) -> None:
        self.node.add_hook(hook, name)

    def delete_hook(self, name: str) -> None:
        self.node.delete_hook(name)
