"""One LeNet-5 training step: kusari vs PyTorch CPU in the same process.

Model (float32, batch 100 of 1 x 28 x 28, 10 classes)::

    conv 1->6 5x5, ReLU, max_pool 2   -> 6 x 12 x 12
    conv 6->16 5x5, ReLU, max_pool 2  -> 16 x 4 x 4 = 256
    linear 256->120, ReLU, linear 120->84, ReLU, linear 84->10

A step is forward, softmax cross entropy, backward and a plain SGD update
(gradients cleared first). Both libraries start from the same weights and
data. Steps of the two are interleaved (kusari, torch, kusari, ...) so that
machine noise hits both alike, and each is timed with
``time.process_time()`` (CPU time of all threads of the process); the table
shows the best of ``--repeat`` steps, plus the best wall-clock time
(``time.perf_counter()``) for reference.

Threads: PyTorch's intra-op thread count is set to the number of threads
numpy's BLAS uses, so the two do the same amount of parallel GEMM work. Set
``OPENBLAS_NUM_THREADS`` (or ``OMP_NUM_THREADS``) to choose it, e.g.
``OPENBLAS_NUM_THREADS=1 python bench_lenet.py``; otherwise the count
OpenBLAS reports (usually the CPU count) is used. The PyTorch column is
skipped when ``import torch`` fails.

Reference (Chainer 7 on a 2-core machine): Chainer 187 ms, PyTorch 42 ms.

Run: ``python bench_lenet.py [--repeat N] [--timer] [--profile]``;
``--timer`` also prints kusari's per-function times (function TimerHook) and
``--profile`` a cProfile table of 20 kusari steps.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

BATCH = 100
N_CLASSES = 10
LR = 0.01


def blas_threads() -> int:
    """Threads used by numpy's BLAS: environment, else asked from OpenBLAS."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        value = os.environ.get(var, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        paths = set()
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for symbol in (
            "scipy_openblas_get_num_threads64_",
            "openblas_get_num_threads64_",
            "openblas_get_num_threads",
        ):
            fn = getattr(lib, symbol, None)
            if fn is not None:
                return int(fn())
    return (
        len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else (os.cpu_count() or 1)
    )


def make_data(seed: int = 0) -> dict[str, np.ndarray]:
    """Inputs, labels and initial weights shared by both libraries."""
    rng = np.random.default_rng(seed)

    def he(*shape: int) -> np.ndarray:
        fan_in = int(np.prod(shape[1:]))
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    return {
        "x": rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32),
        "t": rng.integers(0, N_CLASSES, BATCH).astype(np.int32),
        "conv1": he(6, 1, 5, 5),
        "conv2": he(16, 6, 5, 5),
        "fc1": he(120, 256),
        "fc2": he(84, 120),
        "fc3": he(10, 84),
    }


def kusari_step(data: dict[str, np.ndarray]) -> tuple[Callable[[], float], Any]:
    """A closure running one kusari training step; returns the loss."""
    import kusari
    import kusari.functions as F
    import kusari.links as L
    from kusari import optimizers

    class LeNet(kusari.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.conv1 = L.Convolution2D(1, 6, 5, initialW=data["conv1"])
                self.conv2 = L.Convolution2D(6, 16, 5, initialW=data["conv2"])
                self.fc1 = L.Linear(256, 120, initialW=data["fc1"])
                self.fc2 = L.Linear(120, 84, initialW=data["fc2"])
                self.fc3 = L.Linear(84, 10, initialW=data["fc3"])

        def forward(self, x: Any) -> Any:
            h = F.max_pooling_2d(F.relu(self.conv1(x)), 2)
            h = F.max_pooling_2d(F.relu(self.conv2(h)), 2)
            h = F.relu(self.fc1(h))
            h = F.relu(self.fc2(h))
            return self.fc3(h)

    model = LeNet()
    opt = optimizers.SGD(lr=LR)
    opt.setup(model)
    x, t = data["x"], data["t"]

    def step() -> float:
        model.cleargrads()
        loss = F.softmax_cross_entropy(model(x), t)
        loss.backward()
        opt.update()
        return float(loss.array)

    return step, model


def torch_step(data: dict[str, np.ndarray], threads: int) -> Callable[[], float] | None:
    """The same step in PyTorch, or None when torch is not importable."""
    try:
        import torch
    except ImportError:
        return None
    from torch import nn
    from torch.nn import functional as TF

    torch.set_num_threads(threads)

    class LeNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(256, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)
            with torch.no_grad():
                for name in ("conv1", "conv2", "fc1", "fc2", "fc3"):
                    layer = getattr(self, name)
                    layer.weight.copy_(torch.from_numpy(data[name]))
                    layer.bias.zero_()

        def forward(self, x: Any) -> Any:
            h = TF.max_pool2d(TF.relu(self.conv1(x)), 2)
            h = TF.max_pool2d(TF.relu(self.conv2(h)), 2)
            h = TF.relu(self.fc1(h.flatten(1)))
            h = TF.relu(self.fc2(h))
            return self.fc3(h)

    model = LeNet()
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    x = torch.from_numpy(data["x"])
    t = torch.from_numpy(data["t"].astype(np.int64))

    def step() -> float:
        opt.zero_grad(set_to_none=True)
        loss = TF.cross_entropy(model(x), t)
        loss.backward()
        opt.step()
        return float(loss.item())

    return step


def _timed(step: Callable[[], float]) -> tuple[float, float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    loss = step()
    return time.process_time() - c0, time.perf_counter() - w0, loss


def run(repeat: int, warmup: int = 3) -> dict[str, Any]:
    threads = blas_threads()
    data = make_data()
    k_step, _ = kusari_step(data)
    t_step = torch_step(data, threads)
    first = {"kusari": k_step()}
    if t_step is not None:
        first["torch"] = t_step()
    for _ in range(warmup - 1):
        k_step()
        if t_step is not None:
            t_step()
    best: dict[str, list[float]] = {"kusari": [np.inf, np.inf]}
    if t_step is not None:
        best["torch"] = [np.inf, np.inf]
    for _ in range(repeat):
        for name, step in (("kusari", k_step), ("torch", t_step)):
            if step is None:
                continue
            cpu, wall, _ = _timed(step)
            best[name][0] = min(best[name][0], cpu)
            best[name][1] = min(best[name][1], wall)
    return {"threads": threads, "best": best, "first_loss": first}


def profile(n: int = 20) -> None:
    import cProfile
    import pstats

    step, _ = kusari_step(make_data())
    for _ in range(3):
        step()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        step()
    prof.disable()
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(40)


def function_times(n: int = 10) -> None:
    """Per-function kusari times over ``n`` steps, from the function TimerHook."""
    from kusari.function_hooks import TimerHook

    step, _ = kusari_step(make_data())
    for _ in range(3):
        step()
    with TimerHook() as hook:
        for _ in range(n):
            step()
    print(f"\nkusari per-function time over {n} steps (nested calls included):")
    hook.print_report(unit="ms")
    print(f"total (outermost calls): {hook.total_time() * 1e3 / n:.2f} ms/step")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="timed steps each")
    parser.add_argument("--profile", action="store_true", help="cProfile kusari")
    parser.add_argument(
        "--timer", action="store_true", help="per-function times (TimerHook)"
    )
    args = parser.parse_args()

    result = run(args.repeat)
    best = result["best"]
    print(
        f"LeNet-5 train step, batch {BATCH}, float32, "
        f"{result['threads']} BLAS/torch thread(s), best of {args.repeat}"
    )
    print(f"first-step loss: {result['first_loss']}")
    print(f"{'library':<8} {'cpu ms':>9} {'wall ms':>9}")
    for name, (cpu, wall) in best.items():
        print(f"{name:<8} {cpu * 1e3:9.2f} {wall * 1e3:9.2f}")
    if "torch" in best:
        cpu_ratio = best["kusari"][0] / best["torch"][0]
        wall_ratio = best["kusari"][1] / best["torch"][1]
        print(f"kusari/torch: {cpu_ratio:.2f}x (cpu), {wall_ratio:.2f}x (wall)")
    else:
        print("torch: not importable, column skipped")
    if args.timer:
        function_times()
    if args.profile:
        profile()


if __name__ == "__main__":
    main()
