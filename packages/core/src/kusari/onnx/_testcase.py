"""``export_testcase``: a model plus one input/output pair, ONNX's test layout.

The layout is the one of the ONNX backend test data, which onnxruntime's
``onnx_test_runner`` and other backends read::

    out_dir/model.onnx
    out_dir/test_data_set_0/input_0.pb, input_1.pb, ...
    out_dir/test_data_set_0/output_0.pb, ...
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy

from kusari.backends import cuda
from kusari.onnx._export import _save, export, import_onnx


def export_testcase(
    model: Any,
    args: Any,
    out_dir: str | os.PathLike[str],
    opset_version: int | None = None,
    input_names: Any = None,
    output_names: Any = None,
    dynamic_axes: Mapping[str, Any] | None = None,
    graph_name: str = "Graph",
    check_constants: bool = True,
) -> Any:
    """Export ``model`` and the tensors of one run on ``args`` to ``out_dir``.

    Writes ``model.onnx`` and ``test_data_set_0/input_<i>.pb`` and
    ``output_<i>.pb`` (``TensorProto`` files named after the graph's inputs
    and outputs). The other arguments are those of :func:`export`.

    Returns:
        The exported ``onnx.ModelProto``.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> import kusari.links as L
        >>> import kusari.onnx
        >>> d = tempfile.mkdtemp()
        >>> _ = kusari.onnx.export_testcase(L.Linear(3, 2),
        ...                                 np.ones((1, 3), np.float32), d)
        >>> sorted(os.listdir(os.path.join(d, "test_data_set_0")))
        ['input_0.pb', 'output_0.pb']
    """
    onnx = import_onnx()
    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    proto, inputs, outputs = export(
        model,
        args,
        filename=os.path.join(out_dir, "model.onnx"),
        opset_version=opset_version,
        input_names=input_names,
        output_names=output_names,
        dynamic_axes=dynamic_axes,
        return_named_inout=True,
        graph_name=graph_name,
        check_constants=check_constants,
    )
    data_dir = os.path.join(out_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    for kind, named in (("input", inputs), ("output", outputs)):
        for i, (name, var) in enumerate(named.items()):
            array = numpy.asarray(cuda.to_cpu(var.array))
            tensor = onnx.numpy_helper.from_array(array, name)
            _save(tensor.SerializeToString(), os.path.join(data_dir, f"{kind}_{i}.pb"))
    return proto
