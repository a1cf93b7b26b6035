"""Whole models exported and run by onnxruntime, including a free batch axis."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari.links.model.vision.resnet import BuildingBlock

onnx = pytest.importorskip(
    "onnx", reason="ONNX export tests need onnx (pip install onnx)"
)
pytest.importorskip(
    "onnxruntime", reason="ONNX export tests need onnxruntime (pip install onnxruntime)"
)
import kusari.onnx  # noqa: E402


def _randomize_statistics(model: kusari.Link, seed: int = 0) -> None:
    """Give every BatchNormalization non-trivial running statistics."""
    rng = np.random.default_rng(seed)
    for link in model.links():
        if isinstance(link, L.BatchNormalization):
            n = link.avg_mean.shape[0]
            link.avg_mean[...] = rng.uniform(-0.5, 0.5, n)
            link.avg_var[...] = rng.uniform(0.5, 2.0, n)
            link.gamma.array[...] = rng.uniform(0.5, 1.5, n)
            link.beta.array[...] = rng.uniform(-0.5, 0.5, n)


class MLP(kusari.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, 16)
            self.l2 = L.Linear(16, 16)
            self.l3 = L.Linear(16, 4)

    def forward(self, x: Any) -> Any:
        h = F.relu(self.l1(x))
        h = F.dropout(F.relu(self.l2(h)), 0.5)  # identity in test mode
        return self.l3(h)


class CNN(kusari.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 8, 3, pad=1)
            self.bn1 = L.BatchNormalization(8)
            self.conv2 = L.Convolution2D(8, 8, 3, stride=2, pad=1, nobias=True)
            self.bn2 = L.BatchNormalization(8)
            self.fc = L.Linear(None, 5)

    def forward(self, x: Any) -> Any:
        h = F.max_pooling_2d(F.relu(self.bn1(self.conv1(x))), 2)
        h = F.relu(self.bn2(self.conv2(h)))
        h = F.average_pooling_2d(h, 2)
        return self.fc(h)


class ResBlockNet(kusari.Chain):
    """Stem, one ResNet stage (bottlenecks with a projection), global pooling."""

    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 8, 3, pad=1)
            self.bn = L.BatchNormalization(8)
            self.res = BuildingBlock(2, 8, 4, 16, stride=2)
            self.fc = L.Linear(16, 3)

    def forward(self, x: Any) -> Any:
        h = F.relu(self.bn(self.conv(x)))
        h = self.res(h)
        n, c, height, width = h.shape
        h = F.reshape(F.average_pooling_2d(h, (height, width), stride=1), (n, c))
        return F.log_softmax(self.fc(h))


@pytest.mark.parametrize(
    "model_cls,shape",
    [(MLP, (4, 3, 2, 2)), (CNN, (2, 3, 12, 12)), (ResBlockNet, (2, 3, 8, 8))],
    ids=["mlp", "cnn", "resblock"],
)
def test_model_with_dynamic_batch(
    model_cls: Any, shape: Any, check_export: Any, run_onnx: Any, tmp_path: Any
) -> None:
    model = model_cls()
    _randomize_statistics(model)
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    path = tmp_path / "model.onnx"
    proto = check_export(
        model,
        x,
        filename=str(path),
        dynamic_axes={"Input_0": {0: "batch"}, "Output_0": {0: "batch"}},
    )
    onnx.checker.check_model(str(path), full_check=True)
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    # Parameters are initializers named after their path in the model.
    names = {t.name for t in proto.graph.initializer}
    assert {p for p, _ in model.namedparams()} <= names
    # The same file runs on another batch size.
    x5 = rng.standard_normal((5,) + shape[1:]).astype(np.float32)
    with kusari.using_config("train", False):
        expected = model(x5).array
    (got,) = run_onnx(onnx.load(str(path)), {"Input_0": x5})
    np.testing.assert_allclose(got, expected, atol=1e-5, rtol=1e-4)


def test_batch_normalization_statistics_are_named(check_export: Any) -> None:
    model = CNN()
    _randomize_statistics(model)
    proto = check_export(model, np.ones((1, 3, 8, 8), np.float32))
    names = {t.name for t in proto.graph.initializer}
    assert {"/bn1/avg_mean", "/bn1/avg_var", "/bn2/avg_mean"} <= names
    ops = [n.op_type for n in proto.graph.node]
    assert ops.count("BatchNormalization") == 2


class LSTMNet(kusari.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(10, 6)
            self.lstm = L.LSTM(6, 5)
            self.out = L.Linear(5, 2)

    def forward(self, ids: Any) -> Any:
        self.lstm.reset_state()
        for t in range(ids.shape[1]):
            h = self.lstm(self.embed(ids[:, t]))
        return self.out(h)


def test_lstm_unrolled(check_export: Any) -> None:
    ids = np.array([[1, 4, 9], [0, 2, 2]], np.int32)
    proto = check_export(LSTMNet(), ids)
    assert "Gather" in {n.op_type for n in proto.graph.node}


class Vision(kusari.Chain):
    """A pretrained-model class without weights, returning logits."""

    def __init__(self, cls: Any, layer: str) -> None:
        super().__init__()
        with self.init_scope():
            self.net = cls(pretrained_model=None)
        self.layer = layer

    def forward(self, x: Any) -> Any:
        return self.net(x, layers=[self.layer])[self.layer]


def test_googlenet(check_export: Any) -> None:
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    check_export(Vision(L.GoogLeNet, "loss3_fc"), x, atol=1e-4, rtol=1e-3)


@pytest.mark.slow
def test_resnet50(check_export: Any) -> None:
    model = Vision(L.ResNet50Layers, "fc6")
    _randomize_statistics(model)
    x = np.random.default_rng(0).uniform(-1, 1, (2, 3, 64, 64)).astype(np.float32)
    # Fifty float32 layers with randomized statistics: the two runtimes round
    # differently (up to a few 1e-4 on the logits), so the bound is wider.
    check_export(
        model, x, atol=1e-3, rtol=1e-3, dynamic_axes={"Input_0": [0], "Output_0": [0]}
    )


@pytest.mark.slow
def test_vgg16(check_export: Any) -> None:
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    check_export(Vision(L.VGG16Layers, "fc8"), x, atol=1e-4, rtol=1e-3)


class GRUNet(kusari.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.gru = L.GRU(4, 3)
            self.cell = L.StatelessGRU(4, 3)

    def forward(self, xs: Any) -> Any:
        self.gru.reset_state()
        h = kusari.Variable(np.zeros((xs.shape[0], 3), np.float32))
        for t in range(xs.shape[1]):
            y = self.gru(xs[:, t])
            h = self.cell(h, xs[:, t])
        return y + h


def test_gru_unrolled(check_export: Any) -> None:
    xs = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    check_export(GRUNet(), xs)


@pytest.mark.parametrize(
    "cls",
    [
        L.NStepLSTM,
        L.NStepBiLSTM,
        L.NStepGRU,
        L.NStepBiGRU,
        L.NStepRNNTanh,
        L.NStepRNNReLU,
    ],
)
def test_n_step_rnn(cls: Any, check_export: Any) -> None:
    """The fused layers, unrolled for the lengths of the example (3, 5, 2)."""
    model = cls(2, 4, 3, 0.3)  # dropout is off in test mode
    with_cell = "LSTM" in cls.__name__

    def run(*xs: Any) -> Any:
        out = model(None, None, list(xs)) if with_cell else model(None, list(xs))
        return (*out[:-1], *out[-1])  # hy[, cy], then the per-sequence ys

    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((n, 4)).astype(np.float32) for n in (3, 5, 2)]
    check_export(run, xs)
