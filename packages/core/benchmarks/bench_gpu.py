"""GPU train steps: kusari on CuPy vs PyTorch on CUDA, same GPU, same process.

Three models, each a full step (forward, backward, optimizer update), batch
data already on the device:

* ``mlp``: 784-1000-1000-10 ReLU MLP, batch 100, Adam (the MNIST example);
* ``cnn``: three 3x3 conv + batch norm + ReLU blocks with two 2x2 max pools,
  dropout and a linear classifier on 32x32 RGB, batch 128, MomentumSGD;
* ``lstm``: PTB-style embed(10000, 650) -> 2 x LSTM(650) -> linear(10000),
  batch 20, 35 steps per update, SGD (``L.LSTM`` loop vs ``nn.LSTMCell`` loop).

CuPy 14 ships no cuDNN, so kusari's convolutions are im2col + cuBLAS GEMM
while PyTorch uses cuDNN: the ``cnn`` ratio measures that gap too.
Each step is timed to a device synchronisation; the figure is the median of
``--repeat`` rounds of ``--steps`` steps. Rows are skipped when CuPy or torch
(CUDA) is missing.

Run: ``python bench_gpu.py [--steps 20] [--repeat 5] [--only mlp,cnn,lstm]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

VOCAB, UNITS, BATCH_LM, STEPS_LM = 10000, 650, 20, 35


def _time(
    step: Callable[[], None], sync: Callable[[], None], steps: int, repeat: int
) -> float:
    for _ in range(3):
        step()
    sync()
    rounds = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        sync()
        rounds.append((time.perf_counter() - t0) / steps)
    return statistics.median(rounds)


# -- kusari ---------------------------------------------------------------------
def _kusari_steps() -> dict[str, Callable[[], None]]:
    import cupy

    import kusari
    import kusari.functions as F
    import kusari.links as L

    rng = np.random.default_rng(0)
    out: dict[str, Callable[[], None]] = {}

    class MLP(kusari.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(784, 1000)
                self.l2 = L.Linear(1000, 1000)
                self.l3 = L.Linear(1000, 10)

        def forward(self, x: Any) -> Any:
            return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))

    def trainer(model: Any, opt: Any, loss_of: Callable[[], Any]) -> Callable[[], None]:
        model.to_device("@cupy:0")
        opt.setup(model)

        def step() -> None:
            model.cleargrads()
            loss = loss_of()
            loss.backward()
            opt.update()

        return step

    mlp = MLP()
    x = cupy.asarray(rng.standard_normal((100, 784), dtype=np.float32))
    t = cupy.asarray(rng.integers(0, 10, 100).astype(np.int32))
    out["mlp"] = trainer(
        mlp, kusari.optimizers.Adam(), lambda: F.softmax_cross_entropy(mlp(x), t)
    )

    class CNN(kusari.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.c1 = L.Convolution2D(3, 64, 3, pad=1, nobias=True)
                self.b1 = L.BatchNormalization(64)
                self.c2 = L.Convolution2D(64, 64, 3, pad=1, nobias=True)
                self.b2 = L.BatchNormalization(64)
                self.c3 = L.Convolution2D(64, 128, 3, pad=1, nobias=True)
                self.b3 = L.BatchNormalization(128)
                self.fc = L.Linear(128 * 8 * 8, 10)

        def forward(self, x: Any) -> Any:
            h = F.relu(self.b1(self.c1(x)))
            h = F.max_pooling_2d(F.relu(self.b2(self.c2(h))), 2)
            h = F.max_pooling_2d(F.relu(self.b3(self.c3(h))), 2)
            return self.fc(F.dropout(h, 0.3))

    cnn = CNN()
    xc = cupy.asarray(rng.standard_normal((128, 3, 32, 32), dtype=np.float32))
    tc = cupy.asarray(rng.integers(0, 10, 128).astype(np.int32))
    out["cnn"] = trainer(
        cnn,
        kusari.optimizers.MomentumSGD(0.01),
        lambda: F.softmax_cross_entropy(cnn(xc), tc),
    )

    class LM(kusari.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.embed = L.EmbedID(VOCAB, UNITS)
                self.l1 = L.LSTM(UNITS, UNITS)
                self.l2 = L.LSTM(UNITS, UNITS)
                self.out = L.Linear(UNITS, VOCAB)

    lm = LM()
    ids = rng.integers(0, VOCAB, (BATCH_LM, STEPS_LM + 1))
    xs = [cupy.asarray(ids[:, k].astype(np.int32)) for k in range(STEPS_LM)]
    ts = [cupy.asarray(ids[:, k + 1].astype(np.int32)) for k in range(STEPS_LM)]

    def lm_loss() -> Any:
        lm.l1.reset_state()
        lm.l2.reset_state()
        loss = 0
        for xk, tk in zip(xs, ts):
            h = lm.l2(lm.l1(lm.embed(xk)))
            loss += F.softmax_cross_entropy(lm.out(h), tk)
        return loss

    out["lstm"] = trainer(lm, kusari.optimizers.SGD(0.1), lm_loss)
    return out


# -- torch ----------------------------------------------------------------------
def _torch_steps() -> dict[str, Callable[[], None]]:
    import torch
    from torch import nn

    dev = torch.device("cuda")
    rng = np.random.default_rng(0)
    ce = nn.CrossEntropyLoss()
    out: dict[str, Callable[[], None]] = {}

    def trainer(
        model: Any, opt_cls: Any, loss_of: Callable[[], Any], **kw: Any
    ) -> Callable[[], None]:
        opt = opt_cls(model.parameters(), **kw)

        def step() -> None:
            opt.zero_grad(set_to_none=True)
            loss_of().backward()
            opt.step()

        return step

    mlp = nn.Sequential(
        nn.Linear(784, 1000),
        nn.ReLU(),
        nn.Linear(1000, 1000),
        nn.ReLU(),
        nn.Linear(1000, 10),
    ).to(dev)
    x = torch.tensor(rng.standard_normal((100, 784), dtype=np.float32), device=dev)
    t = torch.tensor(rng.integers(0, 10, 100), device=dev)
    out["mlp"] = trainer(mlp, torch.optim.Adam, lambda: ce(mlp(x), t), lr=1e-3)

    def block(cin: int, cout: int) -> list[Any]:
        return [
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
        ]

    cnn = nn.Sequential(
        *block(3, 64),
        *block(64, 64),
        nn.MaxPool2d(2),
        *block(64, 128),
        nn.MaxPool2d(2),
        nn.Dropout(0.3),
        nn.Flatten(),
        nn.Linear(128 * 8 * 8, 10),
    ).to(dev)
    xc = torch.tensor(
        rng.standard_normal((128, 3, 32, 32), dtype=np.float32), device=dev
    )
    tc = torch.tensor(rng.integers(0, 10, 128), device=dev)
    out["cnn"] = trainer(
        cnn, torch.optim.SGD, lambda: ce(cnn(xc), tc), lr=0.01, momentum=0.9
    )

    embed = nn.Embedding(VOCAB, UNITS).to(dev)
    cells = [nn.LSTMCell(UNITS, UNITS).to(dev) for _ in range(2)]
    head = nn.Linear(UNITS, VOCAB).to(dev)
    ids = torch.tensor(rng.integers(0, VOCAB, (BATCH_LM, STEPS_LM + 1)), device=dev)

    def lm_loss() -> Any:
        state: list[Any] = [None, None]
        loss = 0
        for k in range(STEPS_LM):
            h = embed(ids[:, k])
            for j, cell in enumerate(cells):
                state[j] = cell(h, state[j])
                h = state[j][0]
            loss = loss + ce(head(h), ids[:, k + 1])
        return loss

    params = [*embed.parameters(), *head.parameters()]
    for cell in cells:
        params += list(cell.parameters())
    holder = nn.ParameterList(params)
    out["lstm"] = trainer(holder, torch.optim.SGD, lm_loss, lr=0.1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default="mlp,cnn,lstm")
    args = parser.parse_args()
    names = args.only.split(",")

    rows: dict[str, dict[str, float]] = {n: {} for n in names}
    try:
        import cupy

        steps = _kusari_steps()
        for n in names:
            rows[n]["kusari"] = _time(
                steps[n], cupy.cuda.Device().synchronize, args.steps, args.repeat
            )
    except ImportError as e:
        print(f"kusari rows skipped: {e}")
    try:
        import torch

        if not torch.cuda.is_available():
            raise ImportError("torch has no CUDA device")
        tsteps = _torch_steps()
        for n in names:
            rows[n]["torch"] = _time(
                tsteps[n], torch.cuda.synchronize, args.steps, args.repeat
            )
    except ImportError as e:
        print(f"torch rows skipped: {e}")

    print(f"{'model':<8}{'kusari ms':>12}{'torch ms':>12}{'ratio':>8}")
    for n in names:
        k, t = rows[n].get("kusari"), rows[n].get("torch")
        ratio = f"{k / t:8.2f}" if k and t else f"{'-':>8}"
        ks = f"{k * 1e3:12.2f}" if k else f"{'-':>12}"
        ts = f"{t * 1e3:12.2f}" if t else f"{'-':>12}"
        print(f"{n:<8}{ks}{ts}{ratio}")


if __name__ == "__main__":
    main()
