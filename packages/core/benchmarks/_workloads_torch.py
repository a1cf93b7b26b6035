"""PyTorch's side of the workloads of ``bench_threads.py`` (same shapes and
initial weights as ``_workloads_kusari``; ``import torch`` must work)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import _shapes as S
import numpy as np
import torch
from torch import nn
from torch.nn import functional as TF


def small_ops(backward: bool) -> Callable[[], None]:
    rng = np.random.default_rng(0)
    x, w, b = (
        torch.tensor(rng.standard_normal(10).astype(np.float32), requires_grad=True)
        for _ in "xwb"
    )
    g = torch.ones(10)

    def chain() -> Any:
        h = x
        for _ in range(S.SMALL_BLOCKS):
            h = torch.tanh(h * w + b) * 0.5
        return h

    if not backward:

        def fwd() -> None:
            with torch.no_grad():
                chain()

        return fwd

    def step() -> None:
        x.grad = w.grad = b.grad = None
        chain().backward(g)

    return step


def _set(layer: Any, w: np.ndarray) -> None:
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(w))
        if layer.bias is not None:
            layer.bias.zero_()


def _train(model: Any, opt: Any, x: np.ndarray, t: np.ndarray) -> Callable[[], None]:
    xt = torch.from_numpy(x)
    tt = torch.from_numpy(t.astype(np.int64))

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        TF.cross_entropy(model(xt), tt).backward()
        opt.step()

    return step


def mlp(optimizer: str) -> Callable[[], None]:
    data = S.mlp_data()
    model = nn.Sequential(
        nn.Linear(784, 1000),
        nn.ReLU(),
        nn.Linear(1000, 1000),
        nn.ReLU(),
        nn.Linear(1000, 10),
    )
    for layer, key in zip((model[0], model[2], model[4]), ("W1", "W2", "W3")):
        _set(layer, data[key])
    if optimizer == "sgd":
        opt: Any = torch.optim.SGD(model.parameters(), lr=0.01)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-8)
    return _train(model, opt, data["x"], data["t"])


def lenet() -> Callable[[], None]:
    data = S.lenet_data()

    class LeNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c1, self.c2 = nn.Conv2d(1, 20, 5), nn.Conv2d(20, 50, 5)
            self.f1, self.f2 = nn.Linear(800, 500), nn.Linear(500, 10)
            for name in ("c1", "c2", "f1", "f2"):
                _set(getattr(self, name), data[name])

        def forward(self, x: Any) -> Any:
            h = TF.max_pool2d(TF.relu(self.c1(x)), 2)
            h = TF.max_pool2d(TF.relu(self.c2(h)), 2)
            return self.f2(TF.relu(self.f1(h.flatten(1))))

    model = LeNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    return _train(model, opt, data["x"], data["t"])


def atari(backward: bool) -> Callable[[], None]:
    data = S.atari_data()
    model = nn.Sequential(
        nn.Conv2d(4, 32, 8, 4),
        nn.ReLU(),
        nn.Conv2d(32, 64, 4, 2),
        nn.ReLU(),
        nn.Conv2d(64, 64, 3, 1),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(3136, 512),
        nn.ReLU(),
        nn.Linear(512, S.ATARI_ACTIONS),
    )
    for i, key in ((0, "c1"), (2, "c2"), (4, "c3"), (7, "f1"), (9, "f2")):
        _set(model[i], data[key])
    if not backward:
        xt = torch.from_numpy(data["x"])

        def fwd() -> None:
            with torch.no_grad():
                model(xt)

        return fwd
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    return _train(model, opt, data["x"], data["t"])


def conv(case: str, backward: bool) -> Callable[[], None]:
    x, W, stride, pad, gy = (
        torch.from_numpy(a) if isinstance(a, np.ndarray) else a
        for a in S.conv_data(case)
    )
    if not backward:

        def fwd() -> None:
            with torch.no_grad():
                TF.conv2d(x, W, stride=stride, padding=pad)

        return fwd

    def bwd() -> None:
        xv = x.clone().requires_grad_()
        Wv = W.clone().requires_grad_()
        TF.conv2d(xv, Wv, stride=stride, padding=pad).backward(gy)

    return bwd


def lstm(quick: bool) -> Callable[[], None]:
    import bench_lstm

    return bench_lstm.torch_steps(S.LSTM_UNITS)["torch LSTMCell loop"]


def vgg_block() -> Callable[[], None]:
    data = S.vgg_data()
    c1 = nn.Conv2d(64, 128, 3, padding=1)
    c2 = nn.Conv2d(128, 128, 3, padding=1)
    _set(c1, data["c1"])
    _set(c2, data["c2"])
    params = list(c1.parameters()) + list(c2.parameters())
    opt = torch.optim.SGD(params, lr=0.01, momentum=0.9)
    x = torch.from_numpy(data["x"])

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        h = TF.max_pool2d(TF.relu(c2(TF.relu(c1(x)))), 2)
        (h.sum() / x.shape[0]).backward()
        opt.step()

    return step


def resnet50(quick: bool) -> Callable[[], None]:
    def cbr(cin: int, cout: int, k: int, s: int) -> Any:
        return nn.Sequential(
            nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout)
        )

    class Bottleneck(nn.Module):
        def __init__(self, cin: int, mid: int, s: int) -> None:
            super().__init__()
            self.a, self.b = cbr(cin, mid, 1, 1), cbr(mid, mid, 3, s)
            self.c = cbr(mid, mid * 4, 1, 1)
            self.proj = cbr(cin, mid * 4, 1, s) if s != 1 or cin != mid * 4 else None

        def forward(self, x: Any) -> Any:
            h = self.c(TF.relu(self.b(TF.relu(self.a(x)))))
            return TF.relu(h + (x if self.proj is None else self.proj(x)))

    blocks = []
    cin = 64
    for mid, n, s in S.RESNET_STAGES:
        for i in range(n):
            blocks.append(Bottleneck(cin, mid, s if i == 0 else 1))
            cin = mid * 4
    model = nn.Sequential(
        cbr(3, 64, 7, 2),
        nn.ReLU(),
        nn.MaxPool2d(3, 2, 1),
        *blocks,
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(2048, 1000),
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, t = S.resnet_data(quick)
    return _train(model, opt, x, t)


BUILDERS: dict[str, Callable[[bool], Callable[[], None]]] = {
    "small_fb": lambda q: small_ops(True),
    "small_f": lambda q: small_ops(False),
    "mlp_sgd": lambda q: mlp("sgd"),
    "mlp_adam": lambda q: mlp("adam"),
    "lenet": lambda q: lenet(),
    "atari_f": lambda q: atari(False),
    "atari": lambda q: atari(True),
    "conv11_f": lambda q: conv("conv11", False),
    "conv11_b": lambda q: conv("conv11", True),
    "alex1_f": lambda q: conv("alex1", False),
    "alex1_b": lambda q: conv("alex1", True),
    "lstm": lstm,
    "vgg": lambda q: vgg_block(),
    "resnet50": resnet50,
}
