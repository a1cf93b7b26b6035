"""FunctionNode: one differentiable operation in the graph.

Subclasses implement ``forward`` on arrays (returning a tuple) and
``backward`` on Variables, usually by applying other FunctionNodes, which is
what makes double backprop work. The public function is a thin wrapper::

    class Square(FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0,))
            x, = inputs
            return x * x,

        def backward(self, indexes, grad_outputs):
            x, = self.get_retained_inputs()
            gy, = grad_outputs
            return 2 * x * gy,

    def square(x):
        return Square().apply((x,))[0]
"""

from __future__ import annotations

import collections
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

import numpy

from kusari import _backprop, function_hook
from kusari import _function_node_support as _support
from kusari._function_node_support import as_input as _as_input
from kusari._grad import grad  # noqa: F401  (Chainer's kusari.function_node.grad)
from kusari.backends import cuda
from kusari.configuration import _generation, _hot, hot_flags
from kusari.variable import (
    Variable,
    VariableNode,
    _array_types,
    _new_output,
    _new_variable,
)

_cuda_available = cuda.available
_ref = weakref.ref
_n_hooks = function_hook._n_registered
_ndarray = numpy.ndarray


class FunctionNode:
    """A node of the computational graph that computes outputs from inputs.

    Attributes:
        inputs: Nodes of the inputs (tuple of :class:`VariableNode`).
        outputs: Weak references to the outputs' nodes.
        rank: The position in topological order (the inputs' maximum; the
            outputs get one more).
    """

    inputs: tuple[VariableNode, ...] | None = None
    outputs: tuple[weakref.ref[VariableNode], ...] | None = None
    rank = 0
    lazy_grad_sum = False
    _input_indexes_to_retain: Sequence[int] | None = None
    _output_indexes_to_retain: Sequence[int] | None = None
    _retained_output_data: tuple[Any, ...] | None = None
    _local_function_hooks: collections.OrderedDict[str, Any] | None = None
    _freed: tuple[VariableNode, ...] | None = None
    # Whether the class overrides check_type_forward (decided once per class,
    # so nodes without checks pay nothing for type checking). True here, for
    # FunctionNode itself: an instance of the base class is given its
    # methods one by one (as Chainer's tests do with mocks), its
    # check_type_forward among them, which must then be called.
    _has_type_check = True
    # Whether first-order backprop may call backward_array instead of
    # backward (decided once per class; see backward_array).
    _has_backward_array = False
    # True for elementwise binary operations whose check_type_forward passes
    # whenever both inputs are arrays of one dtype and shape: the check is
    # then decided without building type information (the common case of
    # the most frequent operations).
    _same_operands_pass_type_check = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._has_type_check = (
            cls.check_type_forward is not FunctionNode.check_type_forward
        )
        # A subclass that overrides only `backward` must not keep using its
        # parent's backward_array, which computes the parent's gradient.
        owner = _defining_class(cls, "backward_array")
        cls._has_backward_array = owner is not FunctionNode and issubclass(
            owner, _defining_class(cls, "backward")
        )

    # The function hooks registered on this function only (see
    # kusari._function_node_support): ``local_function_hooks``, ``add_hook``
    # and ``delete_hook``.
    local_function_hooks = property(_support.local_function_hooks)
    _n_local_function_hooks = property(_support.n_local_function_hooks)
    add_hook = _support.add_hook
    delete_hook = _support.delete_hook

    @property
    def label(self) -> str:
        """A short name for messages and graphs (the class name by default)."""
        return type(self).__name__

    # Chainer's name of the class that implements the function (the
    # wrapped Function's for an old-style one); TimerHook reports it.
    _impl_name = property(_support.impl_name)

    @property
    def output_data(self) -> tuple[Any, ...]:
        """The retained output arrays (None for the others)."""
        if self._output_indexes_to_retain is None or self.outputs is None:
            raise RuntimeError(f"{self.label}: no output data is retained")
        ret: list[Any] = [None] * len(self.outputs)
        for i, data in zip(
            self._output_indexes_to_retain, self._retained_output_data or ()
        ):
            ret[i] = data
        return tuple(ret)

    # -- applying -------------------------------------------------------
    # apply runs in three steps: gather the inputs, compute the outputs with
    # whatever observes the function (_forward_observed), and, when a
    # gradient will be needed, record the graph.
    def apply(self, inputs: Iterable[Any]) -> tuple[Variable, ...]:
        """Compute the outputs and, when backprop is on, record the graph.

        Args:
            inputs: Variables or arrays.

        Returns:
            A tuple of output Variables.
        """
        flags = _hot
        if flags.generation != _generation[0]:
            flags = hot_flags()
        # Decided before forward, which may change the configuration itself
        # (e.g. recompute in no_backprop_mode).
        if not flags.enable_backprop:
            return self._apply_no_graph(inputs, flags)
        if type(inputs) is tuple and len(inputs) == 1 and type(inputs[0]) is Variable:
            # The commonest call, a function of one Variable, without the
            # loops of _apply_inputs (same steps, same results).
            x = inputs[0]
            in_data = (x._data,)
            outputs = self._forward_observed(in_data, flags)
            if not x._requires_grad:
                return tuple([_new_variable(y, False) for y in outputs])
            node = x._node
            if node is None:
                node = x._node = VariableNode(x, x._name)
            # _record's steps, spelled out for one input and one output
            # (a call less on the commonest path).
            in_nodes = self.inputs = (node,)
            rank = self.rank = node.rank
            if len(outputs) != 1:
                return self._record(outputs, in_nodes, in_data, rank)
            y = _new_output(outputs[0], self, rank + 1)
            self.outputs = (_ref(y._node),)  # type: ignore[arg-type]
            retain = self._input_indexes_to_retain
            if retain is not None:
                for i in retain:
                    in_nodes[i].data = in_data[i]
            retain = self._output_indexes_to_retain
            if retain is not None:
                self._retained_output_data = tuple([outputs[i] for i in retain])
            return (y,)
        if (
            type(inputs) is tuple
            and len(inputs) == 2
            and type(inputs[0]) is Variable
            and type(inputs[1]) is Variable
        ):
            return self._apply_two(inputs[0], inputs[1], flags)
        return self._apply_inputs(inputs, flags)

    def _apply_two(
        self, x0: Variable, x1: Variable, flags: Any
    ) -> tuple[Variable, ...]:
        """``apply`` on two Variables (a binary operation), without loops."""
        in_data = (x0._data, x1._data)
        outputs = self._forward_observed(in_data, flags)
        r0 = x0._requires_grad
        r1 = x1._requires_grad
        if not (r0 or r1):
            return tuple([_new_variable(y, False) for y in outputs])
        n0 = x0._node
        if n0 is None:
            n0 = x0._node = VariableNode(x0, x0._name)
        n1 = x1._node
        if n1 is None:
            n1 = x1._node = VariableNode(x1, x1._name)
        # The highest rank among the inputs that need a gradient.
        if r0 and r1:
            rank = n0.rank if n0.rank > n1.rank else n1.rank
        else:
            rank = n0.rank if r0 else n1.rank
        if len(outputs) != 1:
            return self._record(outputs, (n0, n1), in_data, rank)
        # _record's steps, spelled out for one output (a call less).
        in_nodes = self.inputs = (n0, n1)
        self.rank = rank
        y = _new_output(outputs[0], self, rank + 1)
        self.outputs = (_ref(y._node),)  # type: ignore[arg-type]
        retain = self._input_indexes_to_retain
        if retain is not None:
            for i in retain:
                in_nodes[i].data = in_data[i]
        retain = self._output_indexes_to_retain
        if retain is not None:
            self._retained_output_data = tuple([outputs[i] for i in retain])
        return (y,)

    def _apply_inputs(self, inputs: Iterable[Any], flags: Any) -> tuple[Variable, ...]:
        """``apply`` on any inputs (Variables or arrays, any number)."""
        # One pass over the inputs: their arrays, whether any needs a
        # gradient, and the rank the outputs will have.
        input_vars = []
        data = []
        requires_grad = False
        rank = 0
        for x in inputs:
            if type(x) is not Variable and not isinstance(x, Variable):
                x = _as_input(x, self)
            input_vars.append(x)
            data.append(x._data)
            if x._requires_grad:
                requires_grad = True
                node = x._node
                if node is not None and node.rank > rank:
                    rank = node.rank
        in_data = tuple(data)
        outputs = self._forward_observed(in_data, flags)
        if not requires_grad:
            return tuple([_new_variable(y, False) for y in outputs])
        in_nodes = []
        for x in input_vars:
            node = x._node
            if node is None:
                node = x._node = VariableNode(x, x._name)
            in_nodes.append(node)
        return self._record(outputs, tuple(in_nodes), in_data, rank)

    def _record(
        self,
        outputs: tuple[Any, ...],
        in_nodes: tuple[VariableNode, ...],
        in_data: tuple[Any, ...],
        rank: int,
    ) -> tuple[Variable, ...]:
        """Record the graph: link the inputs' and new outputs' nodes through
        this function, and keep what backward needs.

        ``rank`` is the highest rank of the inputs that need a gradient.
        """
        self.inputs = in_nodes
        # Chainer's numbering: a function has its inputs' highest rank and
        # its outputs one more.
        self.rank = rank
        rank += 1
        if len(outputs) == 1:  # the common case, without a loop
            ret: tuple[Variable, ...] = (_new_output(outputs[0], self, rank),)
            self.outputs = (_ref(ret[0]._node),)  # type: ignore[arg-type]
        else:
            ret = tuple([_new_output(y, self, rank) for y in outputs])
            self.outputs = tuple([_ref(v._node) for v in ret])  # type: ignore[arg-type]
        retain = self._input_indexes_to_retain
        if retain is not None:
            for i in retain:
                in_nodes[i].data = in_data[i]
        retain = self._output_indexes_to_retain
        if retain is not None:
            self._retained_output_data = tuple([outputs[i] for i in retain])
        return ret

    def _apply_no_graph(
        self, inputs: Iterable[Any], flags: Any
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
                x = _as_input(x, self)
            data.append(x._data)
            if x._requires_grad:
                requires_grad = True
        outputs = self._forward_observed(tuple(data), flags)
        if len(outputs) == 1:
            return (_new_variable(outputs[0], requires_grad),)
        return tuple([_new_variable(y, requires_grad) for y in outputs])

    def _forward_observed(
        self, in_data: tuple[Any, ...], flags: Any
    ) -> tuple[Any, ...]:
        """``forward`` with type checks, function hooks and debug checks."""
        check = flags.type_check
        if check and self._has_type_check:
            same = False
            if self._same_operands_pass_type_check and len(in_data) == 2:
                a, b = in_data
                same = (
                    type(a) is _ndarray
                    and type(b) is _ndarray
                    # NumPy shares the dtype objects of its built-in types:
                    # `is` spares the comparison in the common case.
                    and (a.dtype is b.dtype or a.dtype == b.dtype)
                    and a.shape == b.shape
                )
            if not same:
                self._check_data_type_forward(in_data)
        if (
            _n_hooks[0]
            or self._local_function_hooks
            or (_cuda_available and in_data and isinstance(in_data[0], cuda.ndarray))
        ):
            outputs = self._forward_in_context(in_data)
        else:
            outputs = self.forward(in_data)
        if type(outputs) is not tuple:
            # Chainer's words first (user code matches on them).
            raise TypeError(
                f"forward output must be a tuple ({self.label})\n"
                f"Actual: {type(outputs)}\n"
                f"{self.label}.forward must return a tuple of arrays"
            )
        if check:
            for y in outputs:
                if type(y) is not _ndarray and not isinstance(y, _array_types):
                    self._raise_not_array(y)
        if flags.debug:
            self._check_nan_in_forward(in_data, outputs)
        return outputs

    # Off the hot path, in a module of their own (see
    # kusari._function_node_support); bound here as methods, so calling them
    # costs what calling methods written here would.
    _forward_in_context = _support.forward_in_context
    _all_hooks = _support.all_hooks
    _raise_not_array = _support.raise_not_array
    _check_data_type_forward = _support.check_data_type_forward
    _check_nan_in_forward = _support.check_nan_in_forward

    def check_type_forward(self, in_types: Any) -> None:
        """Check the inputs' types; override with ``type_check.expect`` calls."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Compute the outputs from input arrays; return a tuple of arrays.

        The default dispatches to :meth:`forward_cpu` or :meth:`forward_gpu`.
        """
        if _cuda_available and any(isinstance(x, cuda.ndarray) for x in inputs):
            return self.forward_gpu(inputs)
        return self.forward_cpu(inputs)

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(
            f"{self.label} implements neither forward nor forward_cpu"
        )

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(
            f"{self.label} implements neither forward nor forward_gpu"
        )

    def retain_inputs(self, indexes: Sequence[int]) -> None:
        """Keep these inputs' arrays for backward (call inside forward)."""
        self._input_indexes_to_retain = indexes

    def retain_outputs(self, indexes: Sequence[int]) -> None:
        """Keep these outputs' arrays for backward (call inside forward)."""
        self._output_indexes_to_retain = indexes

    def backward(
        self,
        target_input_indexes: tuple[int, ...],
        grad_outputs: tuple[Variable | None, ...],
    ) -> tuple[Any, ...]:
        """Gradients for the inputs listed in ``target_input_indexes``.

        Args:
            target_input_indexes: Indexes of the inputs that need gradients.
            grad_outputs: Gradients of the outputs (Variables, None where an
                output got no gradient).

        Returns:
            A tuple of Variables (or None) for the target inputs, or one for
            every input.
        """
        return _support.default_backward(self, target_input_indexes, grad_outputs)

    def backward_array(
        self,
        target_input_indexes: tuple[int, ...],
        grad_outputs: tuple[Any, ...],
    ) -> tuple[Any, ...]:
        """Optional first-order :meth:`backward` computed directly on arrays.

        When a function defines it, a backward pass that records no graph
        (``enable_double_backprop=False``, no function hooks, not debug mode)
        calls it instead of :meth:`backward`: wrapping every gradient and
        retained array in a Variable only to unwrap it again is most of the
        cost of a small op's backward. It must compute the same gradients as
        :meth:`backward`. Retained inputs are ``self.inputs[i].data``
        (or, where an earlier backward through a shared subgraph freed that
        copy, the array of ``self.inputs[i].get_variable()``); retained
        outputs are :meth:`retained_output_arrays`.

        Args:
            target_input_indexes: Indexes of the inputs that need gradients.
            grad_outputs: Gradient arrays of the outputs (None where an
                output got no gradient).

        Returns:
            A tuple of arrays (or None) for the target inputs, or one for
            every input.
        """
        raise NotImplementedError(f"{self.label} has no backward_array")

    def backward_accumulate(
        self,
        target_input_indexes: tuple[int, ...],
        grad_outputs: tuple[Variable | None, ...],
        grad_inputs: tuple[Variable | None, ...],
    ) -> tuple[Any, ...]:
        """Backward plus the given ``grad_inputs`` (override to fuse the sum)."""
        gxs = _backprop.normalize_grads(
            self,
            target_input_indexes,
            self.backward(target_input_indexes, grad_outputs),
        )
        ret = []
        for gx, g_in in zip(gxs, grad_inputs):
            if gx is None:
                ret.append(g_in)
            elif g_in is None:
                ret.append(gx)
            else:
                ret.append(gx + g_in)
        return tuple(ret)

    def get_retained_inputs(self) -> tuple[Variable, ...]:
        """The retained inputs as Variables (connected to the graph)."""
        inputs = self.inputs
        if inputs is None:
            raise RuntimeError(_backprop.freed_message(self))
        return tuple(
            [inputs[i].get_variable() for i in self._input_indexes_to_retain or ()]
        )

    def retained_output_arrays(self) -> tuple[Any, ...]:
        """The retained outputs' arrays (for :meth:`backward_array`)."""
        retained = self._retained_output_data
        if retained is None:
            raise RuntimeError(_backprop.freed_message(self))
        return retained

    get_retained_outputs = _support.get_retained_outputs

    def unchain(self) -> None:
        """Detach this function from its outputs and drop its inputs."""
        for ref in self.outputs or ():
            node = ref()
            if node is not None:
                node.unchain()
        self.inputs = None

    def __repr__(self) -> str:
        return f"<{self.label} rank={self.rank}>"


def _defining_class(cls: type, name: str) -> type:
    """The class in ``cls``'s MRO whose body defines attribute ``name``."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass
    raise AttributeError(name)
