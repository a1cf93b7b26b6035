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
    _new_output,
    _new_variable,
)

_cuda_available = cuda.available
_SAME_OPERANDS = _support.SAME_OPERANDS
_ONE_FLOAT = _support.ONE_FLOAT
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
    # True for functions of one input whose check_type_forward passes
    # whenever that input is a NumPy array of a float dtype (tanh, sigmoid,
    # ...): decided on sight as above.
    _float_input_passes_type_check = False
    # What apply does about type checks, decided once per class from the
    # three attributes above (see _function_node_support.type_check_kind).
    _type_check_kind = _support.FULL_CHECK

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._has_type_check = (
            cls.check_type_forward is not FunctionNode.check_type_forward
        )
        cls._type_check_kind = _support.type_check_kind(cls)
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

    # The retained output arrays (None for the others).
    output_data = property(_support.output_data)

    # -- applying -------------------------------------------------------
    # apply runs in three steps: gather the inputs, compute the outputs with
    # whatever observes the function (_forward_observed), and, when a
    # gradient will be needed, record the graph (_record). The commonest
    # calls, on one or two Variables with one output and nothing observing,
    # take these steps inline.
    def apply(self, inputs: Iterable[Any]) -> tuple[Variable, ...]:
        """Compute the outputs and, when backprop is on, record the graph.

        Args:
            inputs: Variables or arrays.

        Returns:
            A tuple of output Variables.
        """
        if type(inputs) is tuple:
            n = len(inputs)
            if n == 1:
                x0 = inputs[0]
                if isinstance(x0, Variable):
                    return self._apply_one(x0)
            elif n == 2:
                x0, x1 = inputs
                if isinstance(x0, Variable) and isinstance(x1, Variable):
                    return self._apply_two(x0, x1)
        flags = _hot
        if flags.generation != _generation[0]:
            flags = hot_flags()
        # Decided before forward, which may change the configuration itself
        # (e.g. recompute in no_backprop_mode).
        if not flags.enable_backprop:
            return self._apply_no_graph(inputs, flags)
        return self._apply_inputs(inputs, flags)

    def _apply_one(self, x: Variable) -> tuple[Variable, ...]:
        """``apply((x,))`` for a Variable ``x`` (the commonest call), without
        loops; kusari's own functions call it directly where they know
        their input is a Variable."""
        flags = _hot
        if flags.generation != _generation[0]:
            flags = hot_flags()
        backprop = flags.enable_backprop  # before forward (see apply)
        a = x._data
        in_data = (a,)
        # _forward_observed's steps, where nothing observes the call and
        # the type check passes on sight (see _type_check_kind).
        if (
            flags.debug
            or _n_hooks[0]
            or self._local_function_hooks
            or type(a) is not _ndarray
        ):
            outputs = self._forward_observed(in_data, flags)
        else:
            check = flags.type_check
            kind = self._type_check_kind
            if check and kind and (kind != _ONE_FLOAT or a.dtype.kind != "f"):
                self._check_data_type_forward(in_data)
            outputs = self.forward(in_data)
            if type(outputs) is not tuple or (
                check and (len(outputs) != 1 or type(outputs[0]) is not _ndarray)
            ):
                _support.check_outputs(self, outputs, check)
        # Without a graph the outputs need a gradient as the input does (as
        # in Chainer); with one, an input that needs none makes leaves.
        rg = x._requires_grad
        if not (backprop and rg):
            if len(outputs) == 1:
                return (_new_variable(outputs[0], rg),)
            return tuple([_new_variable(y, rg) for y in outputs])
        node = x._node
        if node is None:
            node = x._node = VariableNode(x, x._name)
        in_nodes = (node,)
        rank = node.rank
        if len(outputs) != 1:
            return self._record(outputs, in_nodes, in_data, rank)
        # _record's steps, spelled out for one output (a call less).
        self.inputs = in_nodes
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

    def _apply_two(self, x0: Variable, x1: Variable) -> tuple[Variable, ...]:
        """``apply((x0, x1))`` for Variables (a binary operation), as
        :meth:`_apply_one`."""
        flags = _hot
        if flags.generation != _generation[0]:
            flags = hot_flags()
        backprop = flags.enable_backprop  # before forward (see apply)
        a = x0._data
        b = x1._data
        in_data = (a, b)
        # As in _apply_one.
        if (
            flags.debug
            or _n_hooks[0]
            or self._local_function_hooks
            or type(a) is not _ndarray
        ):
            outputs = self._forward_observed(in_data, flags)
        else:
            check = flags.type_check
            kind = self._type_check_kind
            if (
                check
                and kind
                and not (
                    kind == _SAME_OPERANDS
                    and type(b) is _ndarray
                    # NumPy shares the dtype objects of its built-in
                    # types: `is` spares the comparison mostly.
                    and (a.dtype is b.dtype or a.dtype == b.dtype)
                    and a.shape == b.shape
                )
            ):
                self._check_data_type_forward(in_data)
            outputs = self.forward(in_data)
            if type(outputs) is not tuple or (
                check and (len(outputs) != 1 or type(outputs[0]) is not _ndarray)
            ):
                _support.check_outputs(self, outputs, check)
        r0 = x0._requires_grad
        r1 = x1._requires_grad
        if not (backprop and (r0 or r1)):
            if len(outputs) == 1:
                return (_new_variable(outputs[0], r0 or r1),)
            return tuple([_new_variable(y, r0 or r1) for y in outputs])
        n0 = x0._node
        if n0 is None:
            n0 = x0._node = VariableNode(x0, x0._name)
        n1 = x1._node
        if n1 is None:
            n1 = x1._node = VariableNode(x1, x1._name)
        in_nodes = (n0, n1)
        # The highest rank among the inputs that need a gradient.
        if r0 and r1:
            rank = n0.rank if n0.rank > n1.rank else n1.rank
        else:
            rank = n0.rank if r0 else n1.rank
        if len(outputs) != 1:
            return self._record(outputs, in_nodes, in_data, rank)
        # _record's steps, spelled out for one output (a call less).
        self.inputs = in_nodes
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

    # Recording the graph for outputs of any number, and applying with
    # backprop off to inputs the shortcuts above do not take, are written in
    # kusari._function_node_support (bound here as methods).
    _record = _support.record
    _apply_no_graph = _support.apply_no_graph

    def _forward_observed(
        self, in_data: tuple[Any, ...], flags: Any
    ) -> tuple[Any, ...]:
        """``forward`` with type checks, function hooks and debug checks."""
        check = flags.type_check
        if check and self._type_check_kind:
            _support.type_check_forward(self, in_data)
        if (
            _n_hooks[0]
            or self._local_function_hooks
            or (_cuda_available and in_data and isinstance(in_data[0], cuda.ndarray))
        ):
            outputs = self._forward_in_context(in_data)
        else:
            outputs = self.forward(in_data)
        if type(outputs) is not tuple or (
            check and (len(outputs) != 1 or type(outputs[0]) is not _ndarray)
        ):
            _support.check_outputs(self, outputs, check)
        if flags.debug:
            self._check_nan_in_forward(in_data, outputs)
        return outputs

    # Off the hot path, in a module of their own (see
    # kusari._function_node_support); bound here as methods, so calling them
    # costs what calling methods written here would.
    _forward_in_context = _support.forward_in_context
    _all_hooks = _support.all_hooks
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
