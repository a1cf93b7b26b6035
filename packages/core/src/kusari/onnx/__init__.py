"""Export kusari models to ONNX (onnx-chainer's ``export`` and
``export_testcase``).

The model runs once on example inputs in test mode; the functions it applies
become ONNX nodes and its parameters become initializers. The ``onnx``
package is needed only when exporting (``pip install onnx``).

Example:
    >>> import numpy as np
    >>> import kusari.links as L
    >>> import kusari.onnx
    >>> model = L.Linear(3, 2)
    >>> x = np.zeros((1, 3), np.float32)
    >>> proto = kusari.onnx.export(model, x, dynamic_axes={"Input_0": [0]})
    >>> proto.graph.input[0].name
    'Input_0'
"""

# Importing the converter modules registers their converters.
from kusari.onnx import _conv_array, _conv_math, _conv_nn, _conv_rnn
from kusari.onnx._context import (
    ConvertContext,
    Tensor,
    UnsupportedFunctionError,
    register_converter,
    supported_functions,
)
from kusari.onnx._export import (
    DEFAULT_OPSET_VERSION,
    MINIMUM_OPSET_VERSION,
    export,
)
from kusari.onnx._testcase import export_testcase

__all__ = [
    "DEFAULT_OPSET_VERSION",
    "MINIMUM_OPSET_VERSION",
    "ConvertContext",
    "Tensor",
    "UnsupportedFunctionError",
    "export",
    "export_testcase",
    "register_converter",
    "supported_functions",
]
