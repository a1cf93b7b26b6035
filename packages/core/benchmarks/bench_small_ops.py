"""Per-op cost of the autograd core: a chain of small elementwise ops.

A chain of 200 ops (50 x [mul by a parameter, add a parameter, tanh, scale])
on a (10,) float32 array, timed per op: forward then backward, and forward
alone under ``no_backprop_mode`` (``torch.no_grad``), where no graph is
recorded. PyTorch CPU eager runs the same chains in the same process when it
is importable.

``--params`` makes the multiplier and the addend :class:`kusari.Parameter`
objects (``torch.nn.Parameter``), as a model's layers hold them; by default
they are plain Variables (tensors that require a gradient).

Run: ``python bench_small_ops.py [--repeat N] [--inner N] [--params]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

N_BLOCKS = 50
OPS_PER_BLOCK = 4
N_OPS = N_BLOCKS * OPS_PER_BLOCK


def _best_of(fn: Callable[[], None], repeat: int, inner: int) -> float:
    # CPU time of this process: both frameworks run single-threaded here, and
    # CPU time is far less disturbed than wall time by other load on the
    # machine (a 2-core CI box running tests next to us).
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(inner):
            fn()
        best = min(best, (time.process_time() - t0) / inner)
    return best


def kusari_step(backward: bool = True, params: bool = False) -> Callable[[], None]:
    import kusari
    import kusari.functions as F

    rng = np.random.default_rng(0)
    x = kusari.Variable(rng.standard_normal(10).astype(np.float32))
    kind = kusari.Parameter if params else kusari.Variable
    w = kind(rng.standard_normal(10).astype(np.float32))
    b = kind(rng.standard_normal(10).astype(np.float32))
    g = np.ones(10, dtype=np.float32)

    def step() -> None:
        x.cleargrad()
        w.cleargrad()
        b.cleargrad()
        h = x
        for _ in range(N_BLOCKS):
            h = F.tanh(h * w + b) * 0.5
        h.grad = g
        h.backward()

    def forward() -> None:
        with kusari.no_backprop_mode():
            h = x
            for _ in range(N_BLOCKS):
                h = F.tanh(h * w + b) * 0.5

    return step if backward else forward


def torch_step(
    backward: bool = True, params: bool = False
) -> Callable[[], None] | None:
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)

    def tensor() -> Any:
        t = torch.tensor(rng.standard_normal(10).astype(np.float32))
        return torch.nn.Parameter(t) if params else t.requires_grad_()

    x = torch.tensor(rng.standard_normal(10).astype(np.float32), requires_grad=True)
    w = tensor()
    b = tensor()
    g = torch.ones(10)

    def step() -> None:
        x.grad = w.grad = b.grad = None
        h = x
        for _ in range(N_BLOCKS):
            h = torch.tanh(h * w + b) * 0.5
        h.backward(g)

    def forward() -> None:
        with torch.no_grad():
            h = x
            for _ in range(N_BLOCKS):
                h = torch.tanh(h * w + b) * 0.5

    return step if backward else forward


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--inner", type=int, default=20)
    parser.add_argument(
        "--params",
        action="store_true",
        help="multiplier and addend as Parameters (as a model's layers hold them)",
    )
    args = parser.parse_args(argv)
    results: dict[str, float] = {}
    for backward, title in ((True, "forward+backward"), (False, "no_backprop")):
        steps = {"kusari": kusari_step(backward, args.params)}
        t = torch_step(backward, args.params)
        if t is not None:
            steps["torch"] = t
        best = {name: float("inf") for name in steps}
        for step in steps.values():
            step()  # warm up
        # Interleave the frameworks so that load from other processes
        # affects both alike; keep the best of each.
        for _ in range(args.repeat):
            for name, step in steps.items():
                best[name] = min(best[name], _best_of(step, 1, args.inner))
        us = {name: sec / N_OPS * 1e6 for name, sec in best.items()}
        what = "Parameters" if args.params else "Variables"
        print(f"small-op chain ({N_OPS} ops on (10,), {what}, {title}), us per op:")
        for name, v in us.items():
            print(f"  {name:<8} {v:7.2f}")
        if "torch" in us:
            print(f"  ratio kusari/torch: {us['kusari'] / us['torch']:.2f}x")
        suffix = "" if backward else "_no_backprop"
        results.update({name + suffix: v for name, v in us.items()})
    return results


if __name__ == "__main__":
    main()
