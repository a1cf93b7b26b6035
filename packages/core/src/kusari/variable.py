"""Variables: arrays that remember how they were computed.

A :class:`Variable` wraps an array. When a :class:`~kusari.FunctionNode` is
applied to variables while backprop is enabled, the output variables point
back to the function through a :class:`VariableNode`, and the function keeps
its inputs' nodes. That chain is the computational graph that
:meth:`Variable.backward` walks.

The graph holds nodes, not variables: a function keeps only the input arrays
it declared with ``retain_inputs``, and outputs are held by weak reference, so
the arrays of intermediate results are freed as soon as user code drops them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kusari import _variable_grads, _variable_node, _variable_print, backend

# VariableNode and the helpers of the autograd core live in _variable_node
# and _variable_print; kusari.variable keeps every name it has always had.
from kusari._variable_node import (  # noqa: F401
    VariableNode,
    _array_types,
    _check_grad_type,
    _is_array,
    _new_output,
    _node_new,
    _ref,
)
from kusari._variable_print import variable_repr, variable_str
from kusari.backends import cuda
from kusari.types import DeviceSpec, NdArray

if TYPE_CHECKING:
    from kusari.parameter import Parameter  # noqa: F401  (re-exported, see __getattr__)


class Variable:
    """An array with a gradient and a place in the computational graph.

    Args:
        data: The initial array (NumPy or CuPy), or None.
        name: A name shown in graphs and reprs.
        grad: The initial gradient array.
        requires_grad: Whether backprop computes a gradient for it.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> x = kusari.Variable(np.array([1., 2., 3.], dtype=np.float32))
        >>> y = (x * x).array.sum()
        >>> z = kusari.functions.sum(x * x)
        >>> z.backward()
        >>> x.grad
        array([2., 4., 6.], dtype=float32)
    """

    # Class-level defaults: most variables never set these, so they cost
    # nothing per instance.
    _data: Any
    _requires_grad: bool
    _node: VariableNode | None = None
    _grad_var: Variable | None = None
    _name: str | None = None
    _loss_scale: Any = None
    # Whether an uninitialized instance can allocate its array from a shape
    # (``initialize``); True for Parameter.
    _initializable = False
    # Chainer's flag for an array of ChainerX, which kusari does not have.
    _has_chainerx_array = False

    # NumPy must defer to our reflected operators (`ndarray * Variable`).
    __array_priority__ = 200
    __array_ufunc__ = None

    def __init__(
        self,
        data: NdArray | None = None,
        *,
        name: str | None = None,
        grad: NdArray | None = None,
        requires_grad: bool = True,
    ) -> None:
        if data is not None and not isinstance(data, _array_types):
            raise TypeError(
                "kusari.Variable: expected a NumPy or CuPy ndarray (or None) as data, "
                f"got {type(data).__module__}.{type(data).__name__}. "
                "Wrap scalars with numpy.asarray(...)."
            )
        self._data = data
        self._requires_grad = requires_grad
        if name is not None:
            self._name = name
        if requires_grad:
            # A variable made by the user has its node from the start, as in
            # Chainer (code that reads ``x.node`` or ``x._node`` finds it);
            # the engine's own variables get theirs when a graph needs one.
            self._node = VariableNode(self, name)
        if grad is not None:
            self.grad = grad

    # -- state ---------------------------------------------------------
    @property
    def array(self) -> Any:
        """The underlying array."""
        return self._data

    @array.setter
    def array(self, d: Any) -> None:
        self._set_data(d)

    @property
    def data(self) -> Any:
        """The underlying array (alias of :attr:`array`)."""
        return self._data

    @data.setter
    def data(self, d: Any) -> None:
        self._set_data(d)

    def _set_data(self, d: Any) -> None:
        self._data = d
        node = self._node
        if node is not None:
            if d is not None:
                node.shape = d.shape
                node.dtype = d.dtype
            if node.data is not None:
                node.data = d

    @property
    def grad(self) -> Any:
        """The gradient array, or None."""
        gv = self._grad_var
        return None if gv is None else gv._data

    @grad.setter
    def grad(self, g: Any) -> None:
        _check_grad_type(None, self, False, g)
        # Requires grad, as in Chainer v7: double backprop builds a graph on it.
        self._grad_var = None if g is None else Variable(g)

    @property
    def grad_var(self) -> Variable | None:
        """The gradient as a Variable (part of a graph after double backprop)."""
        return self._grad_var

    @grad_var.setter
    def grad_var(self, g: Variable | None) -> None:
        if g is not None:
            _check_grad_type(None, self, False, g._data)
        self._grad_var = g

    @property
    def shape(self) -> tuple[int, ...]:
        return self._data.shape

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def dtype(self) -> Any:
        return self._data.dtype

    @property
    def name(self) -> str | None:
        return self._name

    @name.setter
    def name(self, n: str | None) -> None:
        self._name = n
        if self._node is not None:
            self._node.name = n

    @property
    def label(self) -> str:
        return self.node.label

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @property
    def node(self) -> VariableNode:
        """The :class:`VariableNode` of this variable (made on first use)."""
        node = self._node
        if node is None:
            node = self._node = VariableNode(self, self._name)
        return node

    @property
    def creator(self) -> Any:
        node = self._node
        return None if node is None else node.creator

    @creator.setter
    def creator(self, func: Any) -> None:
        self.node.set_creator(func)

    @property
    def creator_node(self) -> Any:
        node = self._node
        return None if node is None else node.creator_node

    @creator_node.setter
    def creator_node(self, func: Any) -> None:
        self.node.set_creator_node(func)

    @property
    def rank(self) -> int:
        node = self._node
        return 0 if node is None else node.rank

    @property
    def xp(self) -> Any:
        return backend.get_array_module(self._data)

    @property
    def device(self) -> Any:
        return backend.get_device_from_array(self._data)

    def set_creator(self, gen_func: Any) -> None:
        self.node.set_creator(gen_func)

    def set_creator_node(self, fnode: Any) -> None:
        self.node.set_creator_node(fnode)

    def retain_data(self) -> None:
        self.node.data = self._data

    # -- gradients -------------------------------------------------------
    def cleargrad(self) -> None:
        """Set the gradient to None."""
        self._grad_var = None

    # zerograd, addgrad and copydata live in kusari._variable_grads.
    zerograd = _variable_grads.zerograd
    addgrad = _variable_grads.addgrad
    copydata = _variable_grads.copydata

    def backward(
        self,
        retain_grad: bool = False,
        enable_double_backprop: bool = False,
        loss_scale: float | None = None,
    ) -> None:
        """Compute gradients of this variable with respect to the graph's leaves.

        The gradient of this variable itself defaults to one when it has a
        single element; otherwise set :attr:`grad` first.

        Args:
            retain_grad: Keep the gradients of intermediate variables (and the
                graph, for a second backward through it).
            enable_double_backprop: Record the backward computation as a graph
                so the gradients can be differentiated again.
            loss_scale: Multiply the initial gradient by this (mixed precision).
        """
        # The backward pass builds on this module, so it is looked up at call
        # time (the one deferred import of the engine; see _backprop).
        from kusari import _backprop

        _backprop.backward_variable(
            self, retain_grad, enable_double_backprop, loss_scale
        )

    def unchain(self) -> None:
        """Cut the link to the creator, making this variable a leaf."""
        node = self._node
        if node is not None:
            node.creator_node = None

    def unchain_backward(self) -> None:
        """Cut every link of the graph behind this variable (truncated BPTT)."""
        node = self._node
        if node is not None:
            _variable_node.unchain_backward(node)

    # -- devices -------------------------------------------------------
    def to_device(self, device: DeviceSpec) -> None:
        """Move the array and gradient to a device, in place."""
        dev = backend.get_device(device)
        if self._data is not None:
            self._set_data(dev.send(self._data))
        gv = self._grad_var
        if gv is not None:
            gv._data = dev.send(gv._data)

    def to_cpu(self) -> None:
        """Move the array and gradient to host memory, in place."""
        self.to_device(backend.CpuDevice())

    def to_gpu(self, device: Any = None) -> None:
        """Move the array and gradient to a GPU, in place."""
        cuda.check_cuda_available()
        if device is None:
            device = cuda.cupy.cuda.Device().id
        self.to_device(backend.get_device(device))

    # -- DLPack: `torch.from_dlpack(v)` etc. view the array, no copy -------
    def __dlpack__(
        self,
        *,
        stream: Any = None,
        max_version: Any = None,
        dl_device: Any = None,
        copy: bool | None = None,
    ) -> Any:
        """Export the array through DLPack (delegates to the array's method)."""
        if self._data is None:
            raise TypeError("kusari.Variable.__dlpack__: the variable has no array")
        given = {
            "stream": stream,
            "max_version": max_version,
            "dl_device": dl_device,
            "copy": copy,
        }
        # Pass only what was given, for array libraries with older signatures.
        kwargs = {k: v for k, v in given.items() if v is not None}
        return self._data.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        """The DLPack ``(device_type, device_id)`` of the array."""
        if self._data is None:
            raise TypeError(
                "kusari.Variable.__dlpack_device__: the variable has no array"
            )
        return self._data.__dlpack_device__()

    # -- convenience ------------------------------------------------------
    def item(self) -> Any:
        """The single element as a Python scalar."""
        if self._data.size != 1:
            raise ValueError(
                f"Variable.item: only one-element variables convert to a scalar, "
                f"got shape {self._data.shape}"
            )
        return self._data.item()

    def summary(self) -> str:
        """``<variable NAME>``, or ``<variable at 0xID>`` when unnamed."""
        return _variable_print.summary(self)

    def debug_print(self) -> str:
        """A multi-line description (device, backend, shape, dtype, stats, grad).

        The lines are Chainer's: ``- device: CPU`` for host arrays, the
        statistics as ``mean=..., std=...``, and ``- grad: 0`` for an
        all-zero gradient; an empty variable shows None throughout.
        """
        return _variable_print.debug_print(self)

    def __len__(self) -> int:
        shape = self._data.shape
        if not shape:
            raise TypeError("len() of a 0-dimensional Variable")
        return shape[0]

    def __repr__(self) -> str:
        return variable_repr(self)

    def __str__(self) -> str:
        return variable_str(self)

    def __getstate__(self) -> dict[str, Any]:
        # The graph is not copied or pickled: a copy is a fresh leaf.
        state = self.__dict__.copy()
        state.pop("_node", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # -- operators -------------------------------------------------------
    # The arithmetic operators and the array methods (reshape, transpose, T,
    # indexing) are FunctionNodes of the functions layer, which builds on this
    # module. ``import kusari`` binds them onto Variable in one place,
    # kusari.functions.math.basic_math.bind_variable_methods, so that this
    # engine module never imports kusari.functions. The declarations below
    # tell type checkers what gets bound.
    if TYPE_CHECKING:

        def __neg__(self) -> Variable: ...
        def __abs__(self) -> Variable: ...
        def __add__(self, other: Any) -> Variable: ...
        def __radd__(self, other: Any) -> Variable: ...
        def __sub__(self, other: Any) -> Variable: ...
        def __rsub__(self, other: Any) -> Variable: ...
        def __mul__(self, other: Any) -> Variable: ...
        def __rmul__(self, other: Any) -> Variable: ...
        def __truediv__(self, other: Any) -> Variable: ...
        def __rtruediv__(self, other: Any) -> Variable: ...
        def __floordiv__(self, other: Any) -> Variable: ...
        def __rfloordiv__(self, other: Any) -> Variable: ...
        def __pow__(self, other: Any) -> Variable: ...
        def __rpow__(self, other: Any) -> Variable: ...
        def __matmul__(self, other: Any) -> Variable: ...
        def __rmatmul__(self, other: Any) -> Variable: ...
        def __getitem__(self, slices: Any) -> Variable: ...
        def reshape(self, *shape: Any) -> Variable: ...
        def transpose(self, *axes: Any) -> Variable: ...
        @property
        def T(self) -> Variable: ...

    def _no_compare(self, other: Any) -> bool:
        raise TypeError(
            "kusari.Variable does not support comparison operators; compare the "
            "arrays instead (e.g. `x.array < y.array`)"
        )

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _no_compare
    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        raise TypeError(
            "the truth value of a kusari.Variable is ambiguous; use `x.array` "
            "(e.g. `bool(x.array)`) instead"
        )


# _variable_node builds Variables (outputs, rebuilt retained inputs) but
# cannot import this module; hand it the class now that it exists.
_variable_node.Variable = Variable  # type: ignore[misc]
_var_new = object.__new__


def _new_variable(data: Any, requires_grad: bool) -> Variable:
    """Wrap an array without checking it (for the autograd core)."""
    v = _var_new(Variable)
    v._data = data
    v._requires_grad = requires_grad
    return v


def as_variable(obj: Any) -> Variable:
    """Return ``obj`` if it is a Variable, else wrap it (``requires_grad=False``).

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> kusari.as_variable(np.zeros(2)).requires_grad
        False
    """
    if isinstance(obj, Variable):
        return obj
    return Variable(obj, requires_grad=False)


def as_array(obj: Any) -> Any:
    """Return the array of a Variable, or ``obj`` itself if it is an array."""
    if isinstance(obj, Variable):
        return obj._data
    return obj


def __getattr__(name: str) -> Any:
    # Chainer code imports Parameter from here (chainer.variable.Parameter),
    # and pickles made before Parameter had its own module name
    # kusari.variable._recover_parameter. Parameter builds on Variable, so
    # it is looked up on first use instead of imported above.
    if name in ("Parameter", "_recover_parameter"):
        from kusari import parameter

        return getattr(parameter, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
