"""VariableNode: the graph-side half of a Variable, and graph outputs.

:mod:`kusari.variable` re-exports every name here (``VariableNode`` is
``kusari.variable.VariableNode``, as in Chainer). This module sits below it:
it may not import :mod:`kusari.variable` at load time, so the ``Variable``
class it builds is bound into it by :mod:`kusari.variable` once that class
exists (a module global either way, so building a variable here costs what it
did when both classes shared a module).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import numpy

from kusari.backends import cuda

if TYPE_CHECKING:
    from kusari.variable import Variable

_array_types: tuple[type, ...] = (numpy.ndarray,)
if cuda.available:  # pragma: no cover - needs CuPy
    _array_types = (numpy.ndarray, cuda.ndarray)


def _is_array(x: Any) -> bool:
    return isinstance(x, _array_types)


class VariableNode:
    """The graph-side half of a :class:`Variable`.

    Functions keep nodes of their inputs, and outputs' nodes point back to
    their creator. A node outlives its variable when the graph still needs it;
    it keeps the array only if a function retained it.
    """

    __slots__ = (
        "__weakref__",
        "_variable",
        "creator_node",
        "data",
        "dtype",
        "name",
        "rank",
        "requires_grad",
        "shape",
        "_old_style_grad_generator",
    )

    def __init__(
        self, variable: Variable, name: str | None = None, **kwargs: Any
    ) -> None:
        if kwargs:
            if "grad" in kwargs:
                raise ValueError(
                    'unexpected keyword argument "grad": pass the gradient to '
                    "Variable instead"
                )
            raise TypeError(
                "VariableNode() got unexpected keyword arguments: "
                + ", ".join(sorted(kwargs))
            )
        self._variable = weakref.ref(variable)
        self.creator_node: Any = None
        self.rank = 0
        self.name = name
        self.requires_grad = variable._requires_grad
        self.data: Any = None
        self._old_style_grad_generator: str | None = None
        arr = variable._data
        if arr is None:
            self.shape: tuple[int, ...] | None = None
            self.dtype: Any = None
        else:
            self.shape = arr.shape
            self.dtype = arr.dtype

    # Chainer's private name of ``rank`` (its tests set it directly).
    @property
    def _rank(self) -> int:
        return self.rank

    @_rank.setter
    def _rank(self, rank: int) -> None:
        self.rank = rank

    @property
    def creator(self) -> Any:
        """The function that made this node (old-style ``Function`` unwrapped)."""
        node = self.creator_node
        if node is None:
            return None
        if getattr(type(node), "_wraps_old_style_function", False):
            return node.function
        return node

    @creator.setter
    def creator(self, func: Any) -> None:
        self.set_creator(func)

    @property
    def label(self) -> str:
        if self.shape == ():
            return str(self.dtype)
        return f"({', '.join(map(str, self.shape or ()))}), {self.dtype}"

    @property
    def grad(self) -> Any:
        var = self._variable()
        return None if var is None else var.grad

    @property
    def grad_var(self) -> Variable | None:
        var = self._variable()
        return None if var is None else var._grad_var

    def get_variable(self) -> Variable:
        """The variable of this node, rebuilt from the retained array if gone."""
        var = self._variable()
        if var is not None:
            return var
        var = _var_new(Variable)
        var._data = self.data
        var._requires_grad = self.requires_grad
        var._node = self
        if self.name is not None:
            var._name = self.name
        self._variable = weakref.ref(var)
        return var

    def get_variable_or_none(self) -> Variable | None:
        return self._variable()

    def set_creator(self, creator: Any) -> None:
        self.set_creator_node(getattr(creator, "node", creator))

    def set_creator_node(self, creator_node: Any) -> None:
        """Record ``creator_node`` as this node's creator (rank one above it)."""
        if hasattr(creator_node, "_owned_node"):
            # An old-style Function: the graph holds its adapter node.
            creator_node = creator_node.node
        self.creator_node = creator_node
        if creator_node is not None:
            self.rank = creator_node.rank + 1

    def unchain(self) -> None:
        """Forget the creator, making this node a leaf."""
        self.creator_node = None

    def retain_data(self) -> None:
        var = self._variable()
        if var is None:
            raise RuntimeError(
                "cannot retain the data of a node whose variable is gone"
            )
        self.data = var._data

    def __repr__(self) -> str:
        return f"<VariableNode {self.name or ''} {self.label}>"


def _new_output(data: Any, creator: Any, rank: int) -> Variable:
    """A new output of function ``creator``: its Variable and its node.

    The one constructor of graph outputs. It skips ``__init__``'s argument
    checks, which the function's forward has made unnecessary; every output
    is built here so that the fields a node needs are set in one place.
    """
    v = _var_new(Variable)
    v._data = data
    v._requires_grad = True
    node = _node_new(VariableNode)
    node._variable = _ref(v)
    node.creator_node = creator
    node.rank = rank
    node.name = None
    node.requires_grad = True
    node.data = None
    node._old_style_grad_generator = None
    node.shape = data.shape
    node.dtype = data.dtype
    v._node = node
    return v


_node_new = object.__new__
_var_new = object.__new__
_ref = weakref.ref


class BackwardGradientError(TypeError, ValueError):
    """A function's ``backward`` returned a gradient of the wrong kind.

    Chainer raised ``ValueError`` for these in debug mode (and for a wrong
    number of gradients always); kusari checks them always and raised
    ``TypeError`` for a wrong type or dtype. Being both keeps code written
    for either working. The message starts with Chainer's words.
    """


def _check_grad_type(func: Any, x: Any, is_node_x: bool, gx: Any) -> None:
    """Raise a clear error when a gradient does not match its variable."""
    data = x.data if is_node_x else x._data
    if gx is None or (data is None and not is_node_x):
        return
    shape = x.shape
    dtype = x.dtype
    if shape is None:
        return
    # Chainer's exception types: TypeError for a wrong kind of array or
    # dtype, ValueError for a wrong shape.
    exc_type: type[Exception] = TypeError
    if not _is_array(gx):
        what, actual, expected = "type", type(gx).__name__, "ndarray"
        msg = f"Type of grad is invalid:\nExpected: ndarray\nActual: {actual}"
    elif data is not None and type(gx) is not type(data):
        what, actual, expected = "type", type(gx).__name__, type(data).__name__
        msg = f"Type of data and grad mismatch\ngrad: {actual} != data: {expected}"
    elif gx.dtype != dtype:
        what, actual, expected = "dtype", gx.dtype, dtype
        msg = f"Dtype of data and grad mismatch\ngrad: {gx.dtype} != data: {dtype}"
    elif gx.shape != shape:
        what, actual, expected = "shape", gx.shape, shape
        msg = f"Shape of data and grad mismatch\ngrad: {gx.shape} != data: {shape}"
        exc_type = ValueError
    else:
        return
    if func is not None:
        impl = getattr(func, "function", None) or func
        msg = (
            f"{what} of gradients returned from backward is incorrect: actual "
            f"{actual} != expected {expected}\nFunction `{type(impl).__name__}` "
            f"({func.label}) has a bug: it returned a gradient that does not "
            f"match its input.\n{msg}"
        )
        exc_type = BackwardGradientError
    raise exc_type(msg)


def unchain_backward(node: VariableNode) -> None:
    """Cut every link of the graph behind ``node`` (truncated BPTT)."""
    if node.creator_node is None:
        return
    stack = [node.creator_node]
    seen = {id(node.creator_node)}
    while stack:
        func = stack.pop()
        for x in func.inputs or ():
            f = x.creator_node
            if f is not None and id(f) not in seen:
                seen.add(id(f))
                stack.append(f)
        func.unchain()
