"""Old-style ``Function`` (forward and backward on arrays) and backprop modes.

New code should subclass :class:`~kusari.FunctionNode`. ``Function`` exists
so that Chainer code written against it keeps working: it is wrapped in a
:class:`FunctionAdapter` node. Its backward is not differentiable again.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any

from kusari import configuration
from kusari.function_node import FunctionNode
from kusari.variable import Variable


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

    def __init__(self, function: Function) -> None:
        self._function = function

    @property
    def function(self) -> Function:
        return self._function

    @property
    def label(self) -> str:
        return self._function.label

    def check_type_forward(self, in_types: Any) -> None:
        self._function.check_type_forward(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # The old API hands every input to backward.
        self.retain_inputs(tuple(range(len(inputs))))
        outputs = self._function.forward(inputs)
        if not isinstance(outputs, tuple):
            raise TypeError(
                f"{self.label}.forward must return a tuple of arrays, got "
                f"{type(outputs).__name__}"
            )
        return outputs

    def backward(
        self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        inputs = self.inputs
        assert inputs is not None
        in_data = tuple([x.data for x in inputs])
        g_data = tuple([None if g is None else g._data for g in grad_outputs])
        gxs = self._function.backward(in_data, g_data)
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
        ret: list[Variable | None] = []
        for i in target_input_indexes:
            g: Any = gxs[i]
            if g is None:
                ret.append(None)
                continue
            if g.shape != in_data[i].shape and g.size == in_data[i].size:
                g = g.reshape(in_data[i].shape)
            ret.append(Variable(g, requires_grad=False))
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

    _node: FunctionAdapter | None = None
    _owned_node: Any = None

    @property
    def node(self) -> FunctionAdapter:
        node = self._node
        if node is None:
            node = self._node = FunctionAdapter(self)
        return node

    def __call__(self, *inputs: Any) -> Any:
        node = self.node
        # The node owns the function from here on; keep a weak link back so
        # the graph does not form a reference cycle.
        self._owned_node = weakref.ref(node)
        self._node = None
        ret = node.apply(inputs)
        return ret[0] if len(ret) == 1 else ret

    @property
    def inputs(self) -> Any:
        return self._live_node().inputs

    @property
    def outputs(self) -> Any:
        return self._live_node().outputs

    @property
    def rank(self) -> int:
        return self._live_node().rank

    @property
    def label(self) -> str:
        return type(self).__name__

    @property
    def output_data(self) -> Any:
        return self._live_node().output_data

    @property
    def local_function_hooks(self) -> Any:
        return (
            self.node.local_function_hooks
            if self._owned_node is None
            else self._live_node().local_function_hooks
        )

    def _live_node(self) -> FunctionAdapter:
        ref = self._owned_node
        node = ref() if ref is not None else self._node
        if node is None:
            raise RuntimeError(f"{self.label} has not been called or its graph is gone")
        return node

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
        """Kept for compatibility: old-style functions retain every input."""

    def retain_outputs(self, indexes: Any, retain_after_backward: bool = False) -> None:
        """Keep these outputs for backward (read them via ``output_data``)."""
        node = self._owned_node() if self._owned_node is not None else self.node
        node.retain_outputs(indexes)

    def unchain(self) -> None:
        self._live_node().unchain()

    def add_hook(self, hook: Any, name: str | None = None) -> None:
        self.node.add_hook(hook, name)

    def delete_hook(self, name: str) -> None:
        self.node.delete_hook(name)
