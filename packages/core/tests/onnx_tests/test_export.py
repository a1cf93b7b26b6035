"""kusari.onnx.export's interface: names, files, opsets, errors, registry."""

from __future__ import annotations

import io
import os
import sys
from typing import Any

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L

onnx = pytest.importorskip(
    "onnx", reason="ONNX export tests need onnx (pip install onnx)"
)
pytest.importorskip(
    "onnxruntime", reason="ONNX export tests need onnxruntime (pip install onnxruntime)"
)
from onnx import numpy_helper  # noqa: E402

import kusari.onnx  # noqa: E402
from kusari.onnx import _context  # noqa: E402

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)


class TwoHeads(kusari.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.fc = L.Linear(4, 2)

    def forward(self, a: Any, b: Any) -> Any:
        return {"sum": self.fc(a + b), "prod": F.tanh(a * b)}


def test_names_from_lists_and_dicts(check_export: Any) -> None:
    proto = check_export(
        TwoHeads(),
        {"a": X, "b": X * 2},
        input_names={"b": "second", "a": "first"},
        output_names={"prod": "p", "sum": "s"},
    )
    assert [i.name for i in proto.graph.input] == ["first", "second"]
    assert [o.name for o in proto.graph.output] == ["s", "p"]


def test_default_names_and_named_inout() -> None:
    proto, ins, outs = kusari.onnx.export(TwoHeads(), [X, X], return_named_inout=True)
    assert [i.name for i in proto.graph.input] == ["Input_0", "Input_1"]
    assert list(ins) == ["Input_0", "Input_1"]
    assert list(outs) == ["Output_0", "Output_1"]
    assert all(isinstance(v, kusari.Variable) for v in [*ins.values(), *outs.values()])
    np.testing.assert_array_equal(outs["Output_1"].array, np.tanh(X * X))


def test_single_string_name(check_export: Any) -> None:
    proto = check_export(F.relu, X, input_names="x", output_names="y")
    assert proto.graph.input[0].name == "x"
    assert proto.graph.output[0].name == "y"


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"input_names": ["a", "b"]}, "input_names has 2 names but there are 1"),
        ({"output_names": ["x"], "input_names": ["x"]}, "overlap"),
        ({"dynamic_axes": {"nope": [0]}}, "neither an input nor an output"),
        ({"dynamic_axes": {"Input_0": [2]}}, "axis 2, out of range"),
        ({"opset_version": 9}, "opset_version must be in"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        kusari.onnx.export(F.relu, X, **kwargs)


def test_bad_args_and_outputs() -> None:
    with pytest.raises(TypeError, match="item 0 is str"):
        kusari.onnx.export(F.relu, ["x"])
    with pytest.raises(TypeError, match="output 0 is ndarray"):
        kusari.onnx.export(lambda x: x.array, X)


def test_save_to_path_and_file(tmp_path: Any, run_onnx: Any) -> None:
    path = tmp_path / "relu.onnx"
    proto = kusari.onnx.export(F.relu, X, filename=path)
    assert os.listdir(tmp_path) == ["relu.onnx"]  # no temporary file left
    loaded = onnx.load(str(path))
    assert loaded.SerializeToString() == proto.SerializeToString()
    buf = io.BytesIO()
    kusari.onnx.export(F.relu, X, filename=buf)
    assert buf.getvalue() == proto.SerializeToString()
    (y,) = run_onnx(loaded, {"Input_0": X})
    np.testing.assert_array_equal(y, np.maximum(X, 0))


def _opset_sensitive(x: Any) -> Any:
    """Ops whose ONNX form changed between opsets 13 and 18 (reductions, Split)."""
    h = F.max(x, axis=1) + F.sum(x, axis=0)[:3] + F.min(x, axis=1)
    h = h + F.prod(x, axis=1) + F.logsumexp(x, axis=1) + F.mean(x, axis=1)
    a, b = F.split_axis(x, [1], axis=1)
    x4 = F.reshape(x, (1, 1, 3, 4))
    r = F.resize_images(x4, (5, 6))
    n = F.batch_normalization(x4, np.ones(1, np.float32), np.zeros(1, np.float32))
    return h, a, b, r, n, F.normalize(x)


@pytest.mark.parametrize("opset", [13, 17, 18])
def test_opsets(opset: int, check_export: Any) -> None:
    proto = check_export(_opset_sensitive, X, opset_version=opset)
    assert proto.opset_import[0].version == opset


def test_default_opset() -> None:
    proto = kusari.onnx.export(F.relu, X)
    assert proto.opset_import[0].version == kusari.onnx.DEFAULT_OPSET_VERSION == 18
    assert proto.producer_name == "kusari"


def test_outputs_that_are_inputs_or_repeated(check_export: Any) -> None:
    proto = check_export(lambda x: (x, F.relu(x), F.relu(x) * 1.0, x), X)
    assert len(proto.graph.output) == 4


def test_constant_subgraph_is_folded(check_export: Any) -> None:
    c = np.arange(4, dtype=np.float32)
    proto = check_export(lambda x: x * F.exp(c), X)
    assert [n.op_type for n in proto.graph.node] == ["Mul"]
    (init,) = proto.graph.initializer
    np.testing.assert_allclose(numpy_helper.to_array(init), np.exp(c), rtol=1e-6)


def test_unsupported_function_is_named() -> None:
    with pytest.raises(kusari.onnx.UnsupportedFunctionError) as info:
        kusari.onnx.export(lambda x: F.cumprod(x, axis=1), X)
    message = str(info.value)
    assert "no ONNX converter for cumprod" in message
    assert "kusari.functions.math.cumprod" in message
    assert "supported: " in message and "LinearFunction" in message


def test_unsupported_arguments_are_refused() -> None:
    with pytest.raises(kusari.onnx.UnsupportedFunctionError, match="GetItem"):
        kusari.onnx.export(lambda x: x[np.array([0, 1]), np.array([1, 2])], X)


def test_supported_functions_lists_core_ops() -> None:
    names = kusari.onnx.supported_functions()
    for n in [
        "ConvolutionND",
        "LinearFunction",
        "ReLU",
        "FixedBatchNormalization",
        "MaxPoolingND",
        "GetItem",
        "LSTM",
    ]:
        assert n in names
    assert names == sorted(names)


class _Twice(kusari.FunctionNode):
    def forward(self, inputs: Any) -> Any:
        return (inputs[0] * 2,)


def test_register_converter_for_a_new_function(
    monkeypatch: Any, check_export: Any
) -> None:
    monkeypatch.setattr(_context, "_by_class", dict(_context._by_class))

    @kusari.onnx.register_converter(_Twice)
    def convert(ctx: Any, func: Any, ins: Any, outs: Any) -> None:
        two = ctx.const(2, "two", ins[0].dtype)
        ctx.node("Mul", [ins[0].name, two], [outs[0].name])

    check_export(lambda x: _Twice().apply((x,))[0], X)


def test_later_registration_by_name_wins(monkeypatch: Any, run_onnx: Any) -> None:
    monkeypatch.setattr(_context, "_by_name", dict(_context._by_name))

    def as_sigmoid(ctx: Any, func: Any, ins: Any, outs: Any) -> None:
        ctx.node("Sigmoid", [ins[0].name], [outs[0].name])

    kusari.onnx.register_converter("ReLU", as_sigmoid)
    proto = kusari.onnx.export(F.relu, X)
    assert [n.op_type for n in proto.graph.node] == ["Sigmoid"]


def test_register_converter_checks_its_arguments() -> None:
    with pytest.raises(TypeError, match="FunctionNode class or its name"):
        kusari.onnx.register_converter(3, lambda *a: None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be callable"):
        kusari.onnx.register_converter("X", 3)  # type: ignore[arg-type]


def test_missing_onnx_says_how_to_install(monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match="pip install onnx"):
        kusari.onnx.export(F.relu, X)


def test_export_testcase(tmp_path: Any, run_onnx: Any) -> None:
    model = TwoHeads()
    kusari.onnx.export_testcase(model, [X, X + 1], tmp_path / "case")
    data = tmp_path / "case" / "test_data_set_0"
    assert sorted(os.listdir(data)) == [
        "input_0.pb",
        "input_1.pb",
        "output_0.pb",
        "output_1.pb",
    ]

    def read(name: str) -> Any:
        t = onnx.TensorProto()
        t.ParseFromString((data / name).read_bytes())
        return t

    inputs = [read("input_0.pb"), read("input_1.pb")]
    assert [t.name for t in inputs] == ["Input_0", "Input_1"]
    np.testing.assert_array_equal(numpy_helper.to_array(inputs[1]), X + 1)
    proto = onnx.load(str(tmp_path / "case" / "model.onnx"))
    got = run_onnx(proto, {t.name: numpy_helper.to_array(t) for t in inputs})
    for i, g in enumerate(got):
        expected = numpy_helper.to_array(read(f"output_{i}.pb"))
        np.testing.assert_allclose(g, expected, atol=1e-6)
    np.testing.assert_allclose(
        numpy_helper.to_array(read("output_1.pb")), np.tanh(X * (X + 1)), rtol=1e-6
    )


def test_values_computed_outside_the_graph_are_refused(run_onnx: Any) -> None:
    def model(x: Any) -> Any:
        return F.relu(x) + F.floor(x * 3)  # floor records no graph

    with pytest.raises(ValueError, match="input 1 of .* computed outside the graph"):
        kusari.onnx.export(model, X)
    with pytest.raises(ValueError, match="computed outside the graph"):
        kusari.onnx.export(lambda x: x * (x.array * 2), X)
    # Allowed on request: the value of the export run is frozen in.
    proto = kusari.onnx.export(model, X, check_constants=False)
    (y,) = run_onnx(proto, {"Input_0": X})
    np.testing.assert_allclose(y, np.maximum(X, 0) + np.floor(X * 3), rtol=1e-6)


def test_control_flow_on_values_is_refused() -> None:
    def model(x: Any) -> Any:
        return F.relu(x) if float(x.array.sum()) > 0 else F.tanh(x)

    with pytest.raises(ValueError, match="control flow"):
        kusari.onnx.export(model, np.full((2, 2), 0.01, np.float32))


def test_state_carried_between_calls_needs_the_check_off(run_onnx: Any) -> None:
    lstm = L.LSTM(4, 3)
    lstm(X[:, :4] * 0)  # leaves a state behind
    with pytest.raises(ValueError, match="check_constants=False"):
        kusari.onnx.export(lstm, X[:, :4])
    lstm.reset_state()
    lstm(X[:, :4] * 0)
    proto = kusari.onnx.export(lstm, X[:, :4], check_constants=False)
    (y,) = run_onnx(proto, {"Input_0": X[:, :4]})
    lstm.reset_state()
    lstm(X[:, :4] * 0)
    with kusari.using_config("train", False):
        expected = lstm(X[:, :4]).array
    np.testing.assert_allclose(y, expected, atol=1e-6)


def test_failing_check_run_is_reported() -> None:
    calls = []

    def model(x: Any) -> Any:
        calls.append(1)
        if len(calls) > 1:
            raise KeyError("boom")
        return F.relu(x)

    with pytest.raises(
        RuntimeError, match="check run on slightly changed inputs failed .KeyError"
    ):
        kusari.onnx.export(model, X)
