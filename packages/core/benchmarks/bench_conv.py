"""Convolution and pooling throughput: kusari vs PyTorch CPU in one process.

Cases (float32):

* ``conv11``: 32 x 3 x 128 x 128 -> 96 channels, 11 x 11, stride 1;
* ``alexnet1``: AlexNet conv1, 64 x 3 x 227 x 227 -> 96, 11 x 11, stride 4;
* ``lenet1`` / ``lenet2``: 64 x 1 x 28 x 28 -> 20 (5 x 5) and
  64 x 20 x 12 x 12 -> 50 (5 x 5): small convolutions, per-call overhead;
* ``maxpool``: ``max_pooling_2d`` 3 x 3, stride 2 on 64 x 96 x 55 x 55;
* ``r50_56`` ... ``r50_7``: ResNet-50's 3 x 3 stride-1 layers at batch 16
  (64 channels at 56 x 56, 128 at 28, 256 at 14, 512 at 7), pad 1;
* ``vgg112``: a VGG block's 3 x 3 layer, 16 x 64 x 112 x 112 -> 64, pad 1;
* ``pw56`` / ``pw7`` / ``proj14``: ResNet-50's 1 x 1 layers at batch 16,
  64 -> 256 at 56 x 56, 2048 -> 512 at 7 x 7 and the stride-2 projection
  1024 -> 2048 at 14 x 14.

For the 3 x 3 stride-1 cases kusari runs Winograd where its rule picks it;
the ``im2col ms`` column is kusari forced onto the im2col + GEMM path (the
one these layers took before), timed in the same loop.  The ``unfused ms``
column is kusari with the fused forward (``_conv_fused``: columns, GEMM and
bias per cache-sized block on the intra-op threads) switched off, i.e. the
sample-major forward it replaced; on the backward rows it is kusari with
``_conv_fused_bwd`` (the blocked weight gradient, the input gradient one
sample per thread) switched off instead.  For the 1 x 1 cases it is kusari
with ``_conv_pointwise`` switched off and GEMMs left whole (the column loop
with BLAS's own threads, which those layers took before).

Forward is timed without graph recording; backward is the time of
``backward()`` on an output whose graph was built outside the timer (input
and weight gradients).  Best of ``--repeat`` runs, the two libraries
interleaved so that machine noise hits both alike.  PyTorch's column is
skipped when it is not importable; its intra-op threads are set to the
BLAS thread count numpy uses (``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS``,
else the CPU count).

``--threads 1,2`` runs every case at each thread count (kusari's pool and
BLAS through ``kusari.set_num_threads``, PyTorch's intra-op threads).

Run: ``python bench_conv.py [--repeat N] [--cases conv11,maxpool] [--threads 1,2]``.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

# name: (x shape, W shape or None for pooling, stride, pad, repeat multiplier)
CASES: dict[str, tuple[tuple[int, ...], tuple[int, ...] | None, int, int, int]] = {
    "conv11": ((32, 3, 128, 128), (96, 3, 11, 11), 1, 0, 1),
    "alexnet1": ((64, 3, 227, 227), (96, 3, 11, 11), 4, 0, 1),
    "lenet1": ((64, 1, 28, 28), (20, 1, 5, 5), 1, 0, 20),
    "lenet2": ((64, 20, 12, 12), (50, 20, 5, 5), 1, 0, 20),
    "maxpool": ((64, 96, 55, 55), None, 2, 0, 1),
    "r50_56": ((16, 64, 56, 56), (64, 64, 3, 3), 1, 1, 1),
    "r50_28": ((16, 128, 28, 28), (128, 128, 3, 3), 1, 1, 1),
    "r50_14": ((16, 256, 14, 14), (256, 256, 3, 3), 1, 1, 1),
    "r50_7": ((16, 512, 7, 7), (512, 512, 3, 3), 1, 1, 1),
    "vgg112": ((16, 64, 112, 112), (64, 64, 3, 3), 1, 1, 1),
    "pw56": ((16, 64, 56, 56), (256, 64, 1, 1), 1, 0, 1),
    "pw7": ((16, 2048, 7, 7), (512, 2048, 1, 1), 1, 0, 1),
    "proj14": ((16, 1024, 14, 14), (2048, 1024, 1, 1), 2, 0, 1),
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
        pad: int,
        rng: np.random.Generator,
    ) -> None:
        import kusari
        import kusari.functions as F

        self.kusari, self.F = kusari, F
        self.x = rng.standard_normal(xs).astype(np.float32)
        self.W = (
            None if ws is None else (rng.standard_normal(ws) * 0.1).astype(np.float32)
        )
        self.stride, self.pad = stride, pad
        y = self._apply(self.x, self.W)
        self.gy = rng.standard_normal(y.shape).astype(np.float32)

    def _apply(self, x: Any, W: Any) -> Any:
        if W is None:
            return self.F.max_pooling_2d(x, 3, self.stride)
        return self.F.convolution_2d(x, W, stride=self.stride, pad=self.pad)

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
        self.stride, self.pad = kc.stride, kc.pad
        self.gy = torch.from_numpy(kc.gy)

    def _apply(self, x: Any, W: Any) -> Any:
        nnf = self.torch.nn.functional
        if W is None:
            return nnf.max_pool2d(x, 3, self.stride, ceil_mode=True)
        return nnf.conv2d(x, W, stride=self.stride, padding=self.pad)

    def forward(self) -> None:
        with self.torch.no_grad():
            self._apply(self.x, self.W)

    def setup_backward(self) -> Any:
        x = self.x.clone().requires_grad_()
        W = None if self.W is None else self.W.clone().requires_grad_()
        return self._apply(x, W)

    def backward(self, y: Any) -> None:
        y.backward(self.gy)


class Forced:
    """Runs a kusari case with module attributes set (a kernel choice):
    ``(module, attribute, value)`` triples."""

    def __init__(self, kc: KusariCase, *settings: tuple[Any, str, Any]) -> None:
        self.kc, self.settings = kc, settings

    def _forced(self, fn: Callable[..., Any], *args: Any) -> Any:
        old = [getattr(mod, attr) for mod, attr, _ in self.settings]
        for mod, attr, value in self.settings:
            setattr(mod, attr, value)
        try:
            return fn(*args)
        finally:
            for (mod, attr, _), value in zip(self.settings, old):
                setattr(mod, attr, value)

    def forward(self) -> None:
        self._forced(self.kc.forward)

    def setup_backward(self) -> Any:
        return self._forced(self.kc.setup_backward)

    def backward(self, y: Any) -> None:
        self._forced(self.kc.backward, y)


def _best(case: Any, pass_: str, inner: int) -> float:
    if pass_ == "forward":
        return _time(case.forward, None, inner)
    return _time(case.backward, case.setup_backward, inner)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument(
        "--threads", default="", help="thread counts, e.g. 1,2 (default: BLAS's)"
    )
    args = parser.parse_args()

    import kusari
    from kusari.functions.connection import (
        _conv_fused,
        _conv_fused_bwd,
        _conv_pointwise,
        _winograd,
    )
    from kusari.functions.math import _gemm_split

    torch: Any
    try:
        import torch
    except ImportError:
        torch = None
    counts = [int(v) for v in args.threads.split(",") if v] or [blas_threads()]
    header = (
        f"{'case':<10} {'pass':<8} {'thr':>3} {'kusari ms':>10} {'im2col ms':>10}"
        f" {'unfused ms':>10} {'torch ms':>10} {'ratio':>7}"
    )
    for nthreads in counts:
        if args.threads:
            kusari.set_num_threads(nthreads)
        if torch is not None:
            torch.set_num_threads(nthreads)
        print(
            f"numpy {np.__version__}, threads {nthreads}"
            + (
                f", torch {torch.__version__} threads {torch.get_num_threads()}"
                if torch is not None
                else ", torch not available"
            )
        )
        print(header)
        print("-" * len(header))
        rng = np.random.default_rng(0)
        for name in args.cases.split(","):
            xs, ws, stride, pad, mult = CASES[name]
            kc = KusariCase(xs, ws, stride, pad, rng)
            three = ws is not None and ws[2:] == (3, 3) and stride == 1
            dc = Forced(kc, (_winograd, "_FORCE", "direct")) if three else None
            if ws is not None and ws[2:] == (1, 1):
                whole = (
                    (_conv_pointwise, "ENABLED", False),
                    (_gemm_split, "MIN_BLOCK_WORK", 1 << 62),
                )
                uc = ub = Forced(kc, *whole)
            else:
                uc = None if ws is None else Forced(kc, (_conv_fused, "ENABLED", False))
                ub = (
                    None
                    if ws is None
                    else Forced(kc, (_conv_fused_bwd, "ENABLED", False))
                )
            tc = TorchCase(torch, kc) if torch is not None else None
            inner = mult
            # warm-up (first calls allocate scratch buffers, pick kernels)
            for c in (kc, dc, uc, ub, tc):
                if c is not None:
                    c.forward()
                    c.backward(c.setup_backward())
            for pass_ in ("forward", "backward"):
                unfused = uc if pass_ == "forward" else ub
                cases = (("k", kc), ("d", dc), ("u", unfused), ("t", tc))
                best = {key: float("inf") for key, _ in cases}
                for _ in range(args.repeat):
                    for key, c in cases:
                        if c is not None:
                            best[key] = min(best[key], _best(c, pass_, inner))
                cols = [
                    f"{best[key] * 1e3:10.2f}"
                    if best[key] < float("inf")
                    else f"{'-':>10}"
                    for key, c in cases[1:]
                ]
                ratio = (
                    f"{best['k'] / best['t']:7.2f}" if tc is not None else f"{'-':>7}"
                )
                print(
                    f"{name:<10} {pass_:<8} {nthreads:>3} {best['k'] * 1e3:10.2f} "
                    f"{cols[0]} {cols[1]} {cols[2]} {ratio}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
