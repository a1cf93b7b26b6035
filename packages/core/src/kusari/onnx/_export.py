"""Run a model, read back the graph it recorded, write it as ONNX.

The model runs in test mode (``train=False``) with backprop enabled, because
the graph that backprop records is what the exporter walks (``_record``).
Each recorded function goes to its converter in call order, which is a
topological order; the guard (``_guard``) checks the constants on the way.
"""

from __future__ import annotations

import collections
import io
import os
import tempfile
from collections.abc import Mapping
from typing import Any

import numpy

from kusari.onnx import _context, _guard, _record
from kusari.onnx._context import ConvertContext, Tensor, UnsupportedFunctionError
from kusari.variable import Variable

#: The oldest opset the converters are written for.
MINIMUM_OPSET_VERSION = 13
#: The opset used when none is asked for (capped so that current
#: onnxruntime releases can run the result).
DEFAULT_OPSET_VERSION = 18


def import_onnx() -> Any:
    """The ``onnx`` module, or an ImportError that says how to install it."""
    try:
        import onnx
        import onnx.checker
        import onnx.helper
        import onnx.numpy_helper
    except ImportError as e:
        raise ImportError(
            "kusari.onnx needs the onnx package, which is not installed: "
            "pip install onnx (or pip install 'kusari[onnx]')"
        ) from e
    return onnx


def _names(
    given: Any, keys: list[Any] | None, count: int, prefix: str, what: str
) -> list[str]:
    if given is None:
        return [f"{prefix}_{i}" for i in range(count)]
    if isinstance(given, str):
        given = [given]
    if isinstance(given, Mapping):
        if keys is None or set(given) != set(keys):
            raise ValueError(
                f"kusari.onnx.export: {what} as a dict must have the keys of the "
                f"model's {what[:-6]}s {keys}, got {sorted(map(str, given))}"
            )
        given = [given[k] for k in keys]
    names = [str(n) for n in given]
    if len(names) != count:
        raise ValueError(
            f"kusari.onnx.export: {what} has {len(names)} names but there are "
            f"{count} {what[:-6]}s"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"kusari.onnx.export: {what} has duplicates: {names}")
    return names


def _value_info(
    onnx: Any, name: str, array: Any, dynamic: Mapping[int, str] | None
) -> Any:
    shape: list[Any] = list(array.shape)
    for axis, dim in (dynamic or {}).items():
        shape[axis] = dim
    elem = onnx.helper.np_dtype_to_tensor_dtype(numpy.dtype(array.dtype))
    return onnx.helper.make_tensor_value_info(name, elem, shape)


def _dynamic_axes(
    dynamic_axes: Any, arrays: dict[str, Any]
) -> dict[str, dict[int, str]]:
    """``{name: {axis: dim_name}}`` from torch.onnx's two spellings."""
    out: dict[str, dict[int, str]] = {}
    for name, axes in (dynamic_axes or {}).items():
        if name not in arrays:
            raise ValueError(
                f"kusari.onnx.export: dynamic_axes names {name!r}, which is neither "
                f"an input nor an output (those are {sorted(arrays)})"
            )
        ndim = arrays[name].ndim
        if not isinstance(axes, Mapping):
            axes = {a: f"{name}_dynamic_axes_{i + 1}" for i, a in enumerate(axes)}
        fixed: dict[int, str] = {}
        for axis, dim in axes.items():
            if not -ndim <= int(axis) < ndim:
                raise ValueError(
                    f"kusari.onnx.export: dynamic_axes[{name!r}] has axis {axis}, "
                    f"out of range for {ndim} dimensions"
                )
            fixed[int(axis) % ndim] = str(dim)
        out[name] = fixed
    return out


def export(
    model: Any,
    args: Any,
    filename: str | os.PathLike[str] | io.IOBase | None = None,
    opset_version: int | None = None,
    input_names: Any = None,
    output_names: Any = None,
    dynamic_axes: Mapping[str, Any] | None = None,
    return_named_inout: bool = False,
    graph_name: str = "Graph",
    check_constants: bool = True,
) -> Any:
    """Export a model to ONNX by running it on ``args``.

    The model is called as ``model(*args)`` (a list or tuple),
    ``model(**args)`` (a dict) or ``model(args)`` (one array or Variable) in
    test mode; the functions it applies are converted to ONNX nodes. Its
    parameters become initializers named by their path in
    ``model.namedparams()`` (``/conv1/W``).

    Args:
        model: A callable, usually a :class:`~kusari.Chain`.
        args: The inputs (arrays or Variables; list, tuple, dict or one).
        filename: Where to save the model (a path or a binary file object);
            nothing is saved when None.
        opset_version: The ONNX opset (13 or newer); 18 when None, or the
            newest that the installed onnx knows if that is older.
        input_names: Names of the graph inputs (``Input_0``, ... by default):
            a list, a str for one input, or a dict keyed like ``args``.
        output_names: Names of the graph outputs (``Output_0``, ... by
            default): a list, a str, or a dict keyed like the model's output.
        dynamic_axes: Axes whose size may change at inference time, as in
            ``torch.onnx.export``: ``{"Input_0": {0: "batch"}}`` or
            ``{"Input_0": [0]}``; keys are input or output names.
        return_named_inout: Also return the inputs and outputs as ordered
            dicts ``name -> Variable``.
        graph_name: The name of the ONNX graph.
        check_constants: Run the model a second time on slightly changed
            float inputs and refuse the export when a value that would be
            frozen into the graph as a constant changes (it was computed from
            the inputs outside the graph: through ``.array`` or a function
            without a graph such as ``F.floor``), or when other functions run
            (control flow that depends on input values). Turn it off for a
            model that carries state from call to call (a stateful
            ``L.LSTM`` without ``reset_state``). The check is a best effort:
            a value that the small change leaves as it was (a sign, a
            threshold far away) passes.

    Returns:
        The ``onnx.ModelProto``; with ``return_named_inout``, the tuple
        ``(model, inputs, outputs)``.

    Raises:
        ImportError: onnx is not installed.
        kusari.onnx.UnsupportedFunctionError: the model applies a function
            that has no converter (the message names it and lists the
            supported ones).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> import kusari.onnx
        >>> proto = kusari.onnx.export(L.Linear(3, 2), np.zeros((1, 3), np.float32))
        >>> [n.op_type for n in proto.graph.node]
        ['Gemm']
    """
    onnx = import_onnx()
    newest = int(onnx.defs.onnx_opset_version())
    if opset_version is None:
        opset_version = min(DEFAULT_OPSET_VERSION, newest)
    if not MINIMUM_OPSET_VERSION <= opset_version <= newest:
        raise ValueError(
            f"kusari.onnx.export: opset_version must be in "
            f"[{MINIMUM_OPSET_VERSION}, {newest}] (the installed onnx knows up to "
            f"{newest}), got {opset_version}"
        )

    arg_values, arg_keys = _record.flatten(args)
    in_vars = []
    for i, a in enumerate(arg_values):
        array = a.array if isinstance(a, Variable) else a
        if not hasattr(array, "shape") or not hasattr(array, "dtype"):
            raise TypeError(
                f"kusari.onnx.export: args must be arrays or Variables (or a "
                f"list/tuple/dict of them); item {i} is {type(a).__name__}"
            )
        in_vars.append(Variable(array, requires_grad=True))
    in_names = _names(input_names, arg_keys, len(in_vars), "Input", "input_names")
    in_nodes = {id(v.node): name for v, name in zip(in_vars, in_names)}

    result, recorder = _record.run(model, args, arg_keys, in_vars)
    out_vars, out_keys = _record.flatten(result)
    for i, y in enumerate(out_vars):
        if not isinstance(y, Variable):
            raise TypeError(
                f"kusari.onnx.export: the model must return Variables (or a "
                f"list/tuple/dict of them); output {i} is {type(y).__name__}"
            )
    out_names = _names(output_names, out_keys, len(out_vars), "Output", "output_names")
    if set(in_names) & set(out_names):
        raise ValueError(
            f"kusari.onnx.export: input and output names overlap: "
            f"{sorted(set(in_names) & set(out_names))}"
        )

    params: dict[int, tuple[str, Any]] = {}
    for path, p in model.namedparams() if hasattr(model, "namedparams") else ():
        if p.array is not None:
            params[id(p.node)] = (path, p.array)

    ctx = ConvertContext(onnx, opset_version)
    names: dict[int, str] = dict(in_nodes)
    for key, (path, array) in params.items():
        names[key] = path
        ctx.initializers[path] = onnx.numpy_helper.from_array(
            numpy.asarray(_context._to_numpy(array)), path
        )

    persistent = _persistent_arrays(model)
    order = _record.reachable(out_vars, recorder, names)
    if check_constants:
        _guard.check_constants(
            model, args, arg_keys, in_vars, recorder, result, order, names
        )
    pinned: dict[int, str] = {}
    for y, name in zip(out_vars, out_names):
        creator = y.node.creator_node
        if creator is not None and id(creator) in order and id(y.node) not in pinned:
            pinned[id(y.node)] = name
    for _, func, in_data in sorted(order.values(), key=lambda t: t[0]):
        _convert_one(ctx, func, in_data, names, pinned, persistent)
    for y, name in zip(out_vars, out_names):
        src = names.get(id(y.node))
        if src is None:  # the model returned a constant
            src = ctx.const(y.array, "const")
        if src != name:
            ctx.node("Identity", [src], [name])

    arrays = {n: v.array for n, v in zip(in_names, in_vars)}
    arrays.update({n: y.array for n, y in zip(out_names, out_vars)})
    dyn = _dynamic_axes(dynamic_axes, arrays)
    used = {i for node in ctx.nodes for i in node.input}
    graph = onnx.helper.make_graph(
        ctx.nodes,
        graph_name,
        [_value_info(onnx, n, arrays[n], dyn.get(n)) for n in in_names],
        [_value_info(onnx, n, arrays[n], dyn.get(n)) for n in out_names],
        initializer=[t for n, t in ctx.initializers.items() if n in used],
    )
    opsets = [onnx.helper.make_opsetid("", opset_version)]
    proto = onnx.helper.make_model(graph, opset_imports=opsets, producer_name="kusari")
    proto.ir_version = onnx.helper.find_min_ir_version_for(opsets)
    onnx.checker.check_model(proto)

    if filename is not None:
        _save(proto.SerializeToString(), filename)
    if return_named_inout:
        return (
            proto,
            collections.OrderedDict(zip(in_names, in_vars)),
            collections.OrderedDict(zip(out_names, out_vars)),
        )
    return proto


def _persistent_arrays(model: Any) -> dict[int, str]:
    """Array persistents of the model's links (BN statistics), by id.

    They reach functions as plain arrays, hence as constants; naming them by
    their path (``/bn/avg_mean``) keeps the exported graph readable.
    """
    found: dict[int, str] = {}
    if not hasattr(model, "namedlinks"):
        return found
    for path, link in model.namedlinks():
        for name in sorted(getattr(link, "_persistent", ())):
            value = getattr(link, name, None)
            if hasattr(value, "shape") and hasattr(value, "dtype"):
                found[id(value)] = f"{path.rstrip('/')}/{name}"
    return found


def _convert_one(
    ctx: ConvertContext,
    func: Any,
    in_data: tuple[Any, ...],
    names: dict[int, str],
    pinned: Mapping[int, str],
    persistent: Mapping[int, str],
) -> None:
    converter = _context.find_converter(func)
    if converter is None:
        raise UnsupportedFunctionError(
            f"kusari.onnx.export: no ONNX converter for {func.label} "
            f"({type(func).__module__}.{type(func).__qualname__}). Register one "
            "with kusari.onnx.register_converter; "
            f"supported: {', '.join(_context.supported_functions())}"
        )
    inputs = []
    for node, array in zip(func.inputs, in_data):
        name = names.get(id(node))
        if name is not None:
            inputs.append(Tensor(name, tuple(array.shape), array.dtype))
            continue
        value = _context._to_numpy(array)
        name = persistent.get(id(array))
        if name is None:
            name = ctx.const(value, "const")
        elif name not in ctx.initializers:
            ctx.initializers[name] = ctx._onnx.numpy_helper.from_array(
                numpy.asarray(value), name
            )
        inputs.append(Tensor(name, tuple(array.shape), array.dtype, value))
    outputs = []
    for ref in func.outputs:
        node = ref()
        if node is None:  # an output nothing uses and nobody holds
            dtype = in_data[0].dtype if in_data else numpy.dtype("float32")
            outputs.append(Tensor(ctx.fresh(f"{func.label}_unused"), (), dtype))
            continue
        name = pinned.get(id(node)) or ctx.fresh(type(func).__name__)
        names[id(node)] = name
        outputs.append(Tensor(name, tuple(node.shape), node.dtype))
    converter(ctx, func, inputs, outputs)


def _save(data: bytes, filename: Any) -> None:
    """Write ``data`` to a path (via a temp file and rename) or a file object."""
    if hasattr(filename, "write"):
        filename.write(data)
        return
    path = os.fspath(filename)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".onnx")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
