"""Convolution and pooling throughput: kusari vs PyTorch CPU in one process.

Cases (float32):

* ``conv11``: 32 x 3 x 128 x 128 -> 96 channels, 11 x 11, stride 1;
* ``alexnet1``: AlexNet conv1, 64 x 3 x 227 x 227 -> 96, 11 x 11, stride 4;
* ``lenet1`` / ``lenet2``: 64 x 1 x 28 x 28 -> 20 (5 x 5) and
  64 x 20 x 12 x 12 -> 50 (5 x 5): small convolutions, per-call overhead;
* ``maxpool``: ``max_pooling_2d`` 3 x 3, stride 2 on 64 x 96 x 55 x 55.

Forward is timed without graph recording; backward is the time of
``backward()`` on an output whose graph was built outside the timer (input
and weight gradients).  Best of ``--repeat`` runs, the two libraries
interleaved so that machine noise hits both alike.  PyTorch's column is
skipped when it is not importable; its intra-op threads are set to the
BLAS thread count numpy uses (``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS``,
else the CPU count).

Run: ``python bench_conv.py [--repeat N] [--cases conv11,maxpool]``.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

# name: (x shape, W shape or None for pooling, stride, repeat multiplier)
CASES: dict[str, tuple[tuple[int, ...], tuple[int, ...] | None, int, int]] = {
    "conv11": ((32, 3, 128, 128), (96, 3, 11, 11), 1, 1),
    "alexnet1": ((64, 3, 227, 227), (96, 3, 11, 11), 4, 1),
    "lenet1": ((64, 1, 28, 28), (20, 1, 5, 5), 1, 20),
    "lenet2": ((64, 20, 12, 12), (50, 20, 5, 5), 1, 20),
    "maxpool": ((64, 96, 55, 55), None, 2, 1),
}


def blas_threads() -> int:
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        v = os.environ.get(var)
        if v and v.isdigit():
            return int(v)
    return os.cpu_count() or 1


def _time(fn: Callable[..., Any], setup: Callable[[], Any] | None, inner: int) -> float:
    total = 0.0
    for _ in range(inner):
        if setup is None:
            t0 = time.perf_counter()
            fn()
        else:
            arg = setup()
            t0 = time.perf_counter()
            fn(arg)
        total += time.perf_counter() - t0
    return total / inner


class KusariCase:
    def __init__(
        self,
        xs: tuple[int, ...],
        ws: tuple[int, ...] | None,
        stride: int,
        rng: np.random.Generator,
    ) -> None:
        import kusari
        import kusari.functions as F

        self.kusari, self.F = kusari, F
        self.x = rng.standard_normal(xs).astype(np.float32)
        self.W = (
            None if ws is None else (rng.standard_normal(ws) * 0.1).astype(np.float32)
        )
        self.stride = stride
        y = self._apply(self.x, self.W)
        self.gy = rng.standard_normal(y.shape).astype(np.float32)

    def _apply(self, x: Any, W: Any) -> Any:
        if W is None:
            return self.F.max_pooling_2d(x, 3, self.stride)
        return self.F.convolution_2d(x, W, stride=self.stride)

    def forward(self) -> None:
        with self.kusari.no_backprop_mode():
            self._apply(self.x, self.W)

    def setup_backward(self) -> Any:
        xv = self.kusari.Variable(self.x)
        Wv = None if self.W is None else self.kusari.Variable(self.W)
        y = self._apply(xv, Wv)
        y.grad = self.gy
        return y

    @staticmethod
    def backward(y: Any) -> None:
        y.backward()


class TorchCase:
    def __init__(self, torch: Any, kc: KusariCase) -> None:
        self.torch = torch
        self.x = torch.from_numpy(kc.x)
        self.W = None if kc.W is None else torch.from_numpy(kc.W)
        self.stride = kc.stride
        self.gy = torch.from_numpy(kc.gy)

    def _apply(self, x: Any, W: Any) -> Any:
        nnf = self.torch.nn.functional
        if W is None:
            return nnf.max_pool2d(x, 3, self.stride, ceil_mode=True)
        return nnf.conv2d(x, W, stride=self.stride)

    def forward(self) -> None:
        with self.torch.no_grad():
            self._apply(self.x, self.W)

    def setup_backward(self) -> Any:
        x = self.x.clone().requires_grad_()
        W = None if self.W is None else self.W.clone().requires_grad_()
        return self._apply(x, W)

    def backward(self, y: Any) -> None:
        y.backward(self.gy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()

    torch: Any
    try:
        import torch
    except ImportError:
        torch = None
    nthreads = blas_threads()
    if torch is not None:
        torch.set_num_threads(nthreads)
    print(
        f"numpy {np.__version__}, BLAS threads {nthreads}"
        + (
            f", torch {torch.__version__} threads {torch.get_num_threads()}"
            if torch is not None
            else ", torch not available"
        )
    )
    header = f"{'case':<10} {'pass':<8} {'kusari ms':>10} {'torch ms':>10} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    for name in args.cases.split(","):
        xs, ws, stride, mult = CASES[name]
        kc = KusariCase(xs, ws, stride, rng)
        tc = TorchCase(torch, kc) if torch is not None else None
        inner = mult
        # warm-up
        kc.forward()
        if tc is not None:
            tc.forward()
        for pass_ in ("forward", "backward"):
            best_k = best_t = float("inf")
            for _ in range(args.repeat):
                if pass_ == "forward":
                    best_k = min(best_k, _time(kc.forward, None, inner))
                    if tc is not None:
                        best_t = min(best_t, _time(tc.forward, None, inner))
                else:
                    best_k = min(best_k, _time(kc.backward, kc.setup_backward, inner))
                    if tc is not None:
                        best_t = min(
                            best_t, _time(tc.backward, tc.setup_backward, inner)
                        )
            tcol = f"{best_t * 1e3:10.2f}" if tc is not None else f"{'-':>10}"
            ratio = f"{best_k / best_t:7.2f}" if tc is not None else f"{'-':>7}"
            print(
                f"{name:<10} {pass_:<8} {best_k * 1e3:10.2f} {tcol} {ratio}", flush=True
            )


if __name__ == "__main__":
    main()
