"""What a converter sees: tensors, the graph being built, the registry.

A converter turns one recorded :class:`~kusari.FunctionNode` into ONNX nodes.
It is called as ``fn(ctx, func, inputs, outputs)``: ``inputs`` and
``outputs`` are :class:`Tensor` records (ONNX name, static shape, dtype and,
for constants, the value), and the converter must emit nodes through
``ctx.node(...)`` whose results carry exactly the names in ``outputs``.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from kusari.function_node import FunctionNode


@dataclasses.dataclass
class Tensor:
    """One value of the exported graph as a converter sees it.

    Attributes:
        name: Its name in the ONNX graph.
        shape: Its shape when the model ran during export (``()`` for an
            output of a multi-output function that nothing uses).
        dtype: Its NumPy dtype.
        const: The value when it is a constant of the graph (neither a graph
            input, a parameter nor computed from them), else None.
    """

    name: str
    shape: tuple[int, ...]
    dtype: numpy.dtype[Any]
    const: Any = None

    @property
    def ndim(self) -> int:
        return len(self.shape)


class UnsupportedFunctionError(TypeError):
    """A function of the model has no ONNX converter (or not for its arguments)."""


class ConvertContext:
    """The ONNX graph under construction, handed to every converter.

    Attributes:
        opset_version: The opset the model is exported for.
    """

    def __init__(self, onnx_module: Any, opset_version: int) -> None:
        self._onnx = onnx_module
        self.opset_version = opset_version
        self.nodes: list[Any] = []
        self.initializers: dict[str, Any] = {}
        self._counter = itertools.count()

    def fresh(self, hint: str) -> str:
        """A tensor name not used anywhere else in the graph."""
        return f"{hint}_{next(self._counter)}"

    def node(
        self,
        op_type: str,
        inputs: Sequence[str],
        outputs: Sequence[str] | int = 1,
        **attributes: Any,
    ) -> list[str]:
        """Append an ONNX node and return its output names.

        Args:
            op_type: The ONNX operator (``"Relu"``, ``"Conv"``, ...).
            inputs: Input names (``""`` for an omitted optional input).
            outputs: Output names, or how many fresh names to make.
            attributes: The operator's attributes.
        """
        if isinstance(outputs, int):
            outputs = [self.fresh(op_type) for _ in range(outputs)]
        name = self.fresh(f"{op_type}_node")
        self.nodes.append(
            self._onnx.helper.make_node(
                op_type, list(inputs), list(outputs), name=name, **attributes
            )
        )
        return list(outputs)

    def const(self, value: Any, hint: str = "const", dtype: Any = None) -> str:
        """Add a constant (an initializer) and return its name."""
        array = numpy.asarray(_to_numpy(value), dtype=dtype)
        name = self.fresh(hint)
        self.initializers[name] = self._onnx.numpy_helper.from_array(array, name)
        return name

    def tensor_type(self, dtype: Any) -> int:
        """The ONNX element type (``TensorProto.FLOAT``, ...) of a NumPy dtype."""
        return int(self._onnx.helper.np_dtype_to_tensor_dtype(numpy.dtype(dtype)))

    def ints(self, values: Sequence[int], hint: str = "ints") -> str:
        """A 1-d int64 constant, the type ONNX wants for shapes and axes."""
        return self.const(numpy.asarray(list(values), dtype=numpy.int64), hint)

    def reduce(
        self,
        op_type: str,
        x: str,
        axes: Sequence[int] | None,
        keepdims: bool,
        output: str,
    ) -> None:
        """``Reduce*`` across opsets (axes became an input in opset 18).

        ``ReduceSum`` took the change at opset 13, the others at 18.
        """
        axes_as_input = self.opset_version >= (13 if op_type == "ReduceSum" else 18)
        if axes is None:
            self.node(op_type, [x], [output], keepdims=int(keepdims))
        elif axes_as_input:
            self.node(
                op_type, [x, self.ints(axes, "axes")], [output], keepdims=int(keepdims)
            )
        else:
            self.node(op_type, [x], [output], axes=list(axes), keepdims=int(keepdims))


def _to_numpy(value: Any) -> Any:
    if hasattr(value, "get") and not isinstance(value, (numpy.ndarray, dict)):
        return value.get()  # a CuPy array
    return value


Converter = Callable[[ConvertContext, FunctionNode, list[Tensor], list[Tensor]], None]

# Registrations as (sequence number, converter): among the entries that
# match a class, the most recent one wins, so a user's converter registered by
# name still replaces a built-in one registered by class.
_by_class: dict[type, tuple[int, Converter]] = {}
_by_name: dict[str, tuple[int, Converter]] = {}
_seq = itertools.count()


def register_converter(function: type | str, converter: Converter | None = None) -> Any:
    """Register the ONNX converter of a FunctionNode class (or class name).

    The converter is called as ``converter(ctx, func, inputs, outputs)``
    (see :class:`ConvertContext` and :class:`Tensor`) and must emit nodes
    producing every name in ``outputs``. A converter registered for a class
    also serves its subclasses; the most recent registration wins. Usable as
    a decorator when ``converter`` is omitted.

    Example:
        >>> import kusari
        >>> import kusari.onnx
        >>> class Twice(kusari.FunctionNode):
        ...     def forward(self, inputs):
        ...         return inputs[0] * 2,
        >>> @kusari.onnx.register_converter(Twice)
        ... def convert_twice(ctx, func, inputs, outputs):
        ...     x = inputs[0]
        ...     two = ctx.const(2, "two", x.dtype)
        ...     ctx.node("Mul", [x.name, two], [outputs[0].name])
    """
    if not isinstance(function, (type, str)):
        raise TypeError(
            "register_converter: expected a FunctionNode class or its name, got "
            f"{type(function).__name__}"
        )

    def add(fn: Converter) -> Converter:
        if not callable(fn):
            raise TypeError(
                f"register_converter: the converter must be callable, got "
                f"{type(fn).__name__}"
            )
        if isinstance(function, str):
            _by_name[function] = (next(_seq), fn)
        else:
            _by_class[function] = (next(_seq), fn)
        return fn

    if converter is None:
        return add
    return add(converter)


def find_converter(func: Any) -> Converter | None:
    """The converter of ``func``, from its class up through its bases."""
    for cls in type(func).__mro__:
        if cls is FunctionNode:
            break
        found = [e for e in (_by_class.get(cls), _by_name.get(cls.__name__)) if e]
        if found:
            return max(found, key=lambda e: e[0])[1]
    return None


def supported_functions() -> list[str]:
    """Names of the FunctionNode classes that have a converter, sorted."""
    return sorted({cls.__name__ for cls in _by_class} | set(_by_name))


def unsupported(func: Any, why: str) -> UnsupportedFunctionError:
    """The error a converter raises for arguments it cannot express in ONNX."""
    return UnsupportedFunctionError(
        f"kusari.onnx.export: {func.label} cannot be exported: {why}"
    )
