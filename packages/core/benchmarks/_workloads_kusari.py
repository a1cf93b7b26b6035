"""kusari's side of the workloads of ``bench_threads.py``.

Each builder returns ``step()``, one timed unit of work (a training step, a
forward or a backward); setup outside ``step`` is not timed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import _shapes as S
import numpy as np


def small_ops(backward: bool) -> Callable[[], None]:
    import kusari
    import kusari.functions as F

    rng = np.random.default_rng(0)
    x, w, b = (
        kusari.Variable(rng.standard_normal(10).astype(np.float32)) for _ in "xwb"
    )
    g = np.ones(10, dtype=np.float32)

    def chain() -> Any:
        h = x
        for _ in range(S.SMALL_BLOCKS):
            h = F.tanh(h * w + b) * 0.5
        return h

    if not backward:

        def fwd() -> None:
            with kusari.no_backprop_mode():
                chain()

        return fwd

    def step() -> None:
        x.cleargrad()
        w.cleargrad()
        b.cleargrad()
        h = chain()
        h.grad = g
        h.backward()

    return step


def _train(model: Any, opt: Any, x: np.ndarray, t: np.ndarray) -> Callable[[], None]:
    import kusari.functions as F

    opt.setup(model)

    def step() -> None:
        model.cleargrads()
        loss = F.softmax_cross_entropy(model(x), t)
        loss.backward()
        opt.update()

    return step


def mlp(optimizer: str) -> Callable[[], None]:
    import kusari
    import kusari.functions as F
    import kusari.links as L
    from kusari import optimizers

    data = S.mlp_data()

    class MLP(kusari.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(784, 1000, initialW=data["W1"])
                self.l2 = L.Linear(1000, 1000, initialW=data["W2"])
                self.l3 = L.Linear(1000, 10, initialW=data["W3"])

        def forward(self, x: Any) -> Any:
            return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))

    opt = optimizers.SGD(0.01) if optimizer == "sgd" else optimizers.Adam()
    return _train(MLP(), opt, data["x"], data["t"])


def lenet() -> Callable[[], None]:
    import kusari
    import kusari.functions as F
    import kusari.links as L
    from kusari import optimizers

    data = S.lenet_data()

    class LeNet(kusari.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.c1 = L.Convolution2D(1, 20, 5, initialW=data["c1"])
                self.c2 = L.Convolution2D(20, 50, 5, initialW=data["c2"])
                self.f1 = L.Linear(800, 500, initialW=data["f1"])
                self.f2 = L.Linear(500, 10, initialW=data["f2"])

        def forward(self, x: Any) -> Any:
            h = F.max_pooling_2d(F.relu(self.c1(x)), 2)
            h = F.max_pooling_2d(F.relu(self.c2(h)), 2)
            return self.f2(F.relu(self.f1(h)))

    return _train(LeNet(), optimizers.SGD(0.01), data["x"], data["t"])


def atari(backward: bool) -> Callable[[], None]:
    """The Nature-DQN network (Mnih et al. 2015), batch 32: an SGD step, or
    the forward alone under ``no_backprop_mode`` (acting on a batch)."""
    import kusari
    import kusari.functions as F
    import kusari.links as L
    from kusari import optimizers

    data = S.atari_data()

    class NatureDQN(kusari.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.c1 = L.Convolution2D(4, 32, 8, 4, initialW=data["c1"])
                self.c2 = L.Convolution2D(32, 64, 4, 2, initialW=data["c2"])
                self.c3 = L.Convolution2D(64, 64, 3, 1, initialW=data["c3"])
                self.f1 = L.Linear(3136, 512, initialW=data["f1"])
                self.f2 = L.Linear(512, S.ATARI_ACTIONS, initialW=data["f2"])

        def forward(self, x: Any) -> Any:
            h = F.relu(self.c3(F.relu(self.c2(F.relu(self.c1(x))))))
            return self.f2(F.relu(self.f1(h)))

    model = NatureDQN()
    if not backward:

        def fwd() -> None:
            with kusari.no_backprop_mode():
                model(data["x"])

        return fwd
    return _train(model, optimizers.SGD(0.01), data["x"], data["t"])


def conv(case: str, backward: bool) -> Callable[[], None]:
    import kusari
    import kusari.functions as F

    x, W, stride, pad, gy = S.conv_data(case)
    if not backward:

        def fwd() -> None:
            with kusari.no_backprop_mode():
                F.convolution_2d(x, W, stride=stride, pad=pad)

        return fwd
    state: dict[str, Any] = {}

    def bwd() -> None:
        # The graph is built here too; backward dominates at these sizes.
        xv, Wv = kusari.Variable(x), kusari.Variable(W)
        y = F.convolution_2d(xv, Wv, stride=stride, pad=pad)
        y.grad = gy
        y.backward()
        state["g"] = Wv.grad

    return bwd


def lstm(quick: bool) -> Callable[[], None]:
    import bench_lstm

    return bench_lstm.kusari_lstm_loop(S.LSTM_UNITS)


def vgg_block() -> Callable[[], None]:
    import kusari
    import kusari.functions as F
    import kusari.links as L
    from kusari import optimizers

    data = S.vgg_data()

    class Block(kusari.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.c1 = L.Convolution2D(64, 128, 3, pad=1, initialW=data["c1"])
                self.c2 = L.Convolution2D(128, 128, 3, pad=1, initialW=data["c2"])

        def forward(self, x: Any) -> Any:
            h = F.relu(self.c2(F.relu(self.c1(x))))
            return F.max_pooling_2d(h, 2)

    model = Block()
    opt = optimizers.MomentumSGD(0.01)
    opt.setup(model)
    x = data["x"]

    def step() -> None:
        model.cleargrads()
        loss = F.sum(model(x)) * (1.0 / x.shape[0])
        loss.backward()
        opt.update()

    return step


def resnet50(quick: bool) -> Callable[[], None]:
    import kusari
    import kusari.functions as F
    import kusari.links as L
    from kusari import optimizers

    def cbr(cin: int, cout: int, k: int, s: int) -> Any:
        return kusari.Sequential(
            L.Convolution2D(cin, cout, k, s, k // 2, nobias=True),
            L.BatchNormalization(cout),
        )

    class Bottleneck(kusari.Chain):
        def __init__(self, cin: int, mid: int, s: int) -> None:
            super().__init__()
            with self.init_scope():
                self.a = cbr(cin, mid, 1, 1)
                self.b = cbr(mid, mid, 3, s)  # stride on the 3x3, as torchvision
                self.c = cbr(mid, mid * 4, 1, 1)
                self.proj = (
                    cbr(cin, mid * 4, 1, s) if s != 1 or cin != mid * 4 else None
                )

        def forward(self, x: Any) -> Any:
            h = self.c(F.relu(self.b(F.relu(self.a(x)))))
            return F.relu(h + (x if self.proj is None else self.proj(x)))

    class ResNet50(kusari.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.stem = cbr(3, 64, 7, 2)
                blocks = []
                cin = 64
                for mid, n, s in S.RESNET_STAGES:
                    for i in range(n):
                        blocks.append(Bottleneck(cin, mid, s if i == 0 else 1))
                        cin = mid * 4
                self.blocks = kusari.ChainList(*blocks)
                self.fc = L.Linear(2048, 1000)

        def forward(self, x: Any) -> Any:
            h = F.max_pooling_2d(F.relu(self.stem(x)), 3, 2, pad=1, cover_all=False)
            for block in self.blocks:
                h = block(h)
            return self.fc(F.mean(h, axis=(2, 3)))

    x, t = S.resnet_data(quick)
    return _train(ResNet50(), optimizers.MomentumSGD(0.1), x, t)


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
