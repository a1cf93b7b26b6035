"""Per-operation times of the MLP SGD step, kusari vs PyTorch CPU.

The MLP of ``bench_threads.py`` (784-1000-1000-10, batch 100, float32, SGD
at lr 0.01). Each row times one piece of its training step alone, on the
same data in both libraries:

* ``fc1 fwd`` / ``fc2 fwd`` / ``fc3 fwd``: each layer's ``x W^T + b``
  (kusari's ``LinearFunction.forward`` on arrays, PyTorch's ``addmm``);
* ``fc2 gx``, ``fc1 gW`` / ``fc2 gW``: the backward GEMMs that matter (the
  input's gradient is never needed, fc3's are small);
* ``bias grad``: the 1000-wide bias gradient, a sum over the batch;
* ``relu fwd`` / ``relu bwd``: on a (100, 1000) map;
* ``sce f+b``: softmax cross entropy on (100, 10) scores, forward and
  backward through each library's graph (mostly per-call overhead);
* ``sgd update``: the update of all 1.8M parameters from fresh gradients
  (kusari's packed update: OpenBLAS's axpy over each parameter's range of
  the flat buffer, as ``_fused.run_whole`` runs it; PyTorch's
  ``_foreach_add_``).

Each library runs in its own subprocess per round (an idle thread of one,
OpenBLAS's or OpenMP's, spinning after its last call would otherwise take
a core from the other), rounds alternate, and each cell is the best time
over all rounds and repeats. The thread count is set in-process:
``kusari.set_num_threads`` (and BLAS's) and ``torch.set_num_threads``.
The sum of the rows is not the step: the step also pays graph bookkeeping
and the caches and page faults of its fresh arrays.

Run: ``python bench_mlp_ops.py [--rounds N] [--threads 1,2] [--only a,b]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import _op_bench
import numpy as np

OPS = [
    "fc1 fwd",
    "fc2 fwd",
    "fc3 fwd",
    "fc2 gx",
    "fc1 gW",
    "fc2 gW",
    "bias grad",
    "relu fwd",
    "relu bwd",
    "sce f+b",
    "sgd update",
]
SIZES = ((1000, 784), (1000,), (1000, 1000), (1000,), (10, 1000), (10,))


def _data() -> dict[str, Any]:
    rng = np.random.default_rng(0)

    def r(*shape: int, scale: float = 1.0) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    n = 100
    return {
        "x": r(n, 784),
        "W1": r(1000, 784, scale=0.05),
        "b1": r(1000),
        "h": np.maximum(r(n, 1000), 0),
        "W2": r(1000, 1000, scale=0.05),
        "b2": r(1000),
        "W3": r(10, 1000, scale=0.05),
        "b3": r(10),
        "gy": r(n, 1000),
        "s": r(n, 10),
        "t": rng.integers(0, 10, n).astype(np.int32),
        "params": [r(*s) for s in SIZES],
        "grads": [r(*s) for s in SIZES],
    }


def _kusari_ops(d: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    import kusari
    import kusari.functions as F
    from kusari.functions.activation import relu as relu_mod
    from kusari.functions.connection.linear import LinearFunction
    from kusari.functions.math import _gemm_split
    from kusari.optimizers import _fused
    from kusari.optimizers.sgd import SGDRule

    def fwd(x: Any, W: Any, b: Any) -> Any:
        return LinearFunction().forward((x, W, b))

    offsets = [0]
    for p in d["params"]:
        offsets.append(offsets[-1] + p.size)
    buf = np.concatenate([p.reshape(-1) for p in d["params"]])
    grads = [g.reshape(-1) for g in d["grads"]]
    kernel = SGDRule._fused_kernel
    # As the packed update runs it: one axpy per parameter's range of the
    # flat buffer (cut over the pool's threads), the cut kept per layout.
    views = [buf[a:b] for a, b in zip(offsets, offsets[1:])]
    consts = [(0.01,)] * len(views)
    plans: dict[Any, Any] = {}
    s = kusari.Variable(d["s"])

    def sce() -> None:
        s.cleargrad()
        F.softmax_cross_entropy(s, d["t"]).backward()

    return {
        "fc1 fwd": lambda: fwd(d["x"], d["W1"], d["b1"]),
        "fc2 fwd": lambda: fwd(d["h"], d["W2"], d["b2"]),
        "fc3 fwd": lambda: fwd(d["h"], d["W3"], d["b3"]),
        "fc2 gx": lambda: _gemm_split.matmul(d["gy"], d["W2"]),
        "fc1 gW": lambda: _gemm_split.matmul(d["gy"].T, d["x"]),
        "fc2 gW": lambda: _gemm_split.matmul(d["gy"].T, d["h"]),
        "bias grad": lambda: d["gy"].sum(axis=0),
        "relu fwd": lambda: relu_mod.ReLU().forward((d["gy"],)),
        "relu bwd": lambda: relu_mod._relu_grad(d["h"], d["gy"]),
        "sce f+b": sce,
        "sgd update": lambda: _fused.run_whole(kernel, consts, views, grads, plans),
    }


def _torch_ops(d: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    import torch
    import torch.nn.functional as tf

    t = {k: torch.from_numpy(v) for k, v in d.items() if isinstance(v, np.ndarray)}
    params = [torch.from_numpy(p) for p in d["params"]]
    grads = [torch.from_numpy(g) for g in d["grads"]]
    s = torch.from_numpy(d["s"]).requires_grad_()
    labels = t["t"].long()
    threshold_backward = torch.ops.aten.threshold_backward

    def sce() -> None:
        s.grad = None
        with torch.enable_grad():
            tf.cross_entropy(s, labels).backward()

    return {
        "fc1 fwd": lambda: tf.linear(t["x"], t["W1"], t["b1"]),
        "fc2 fwd": lambda: tf.linear(t["h"], t["W2"], t["b2"]),
        "fc3 fwd": lambda: tf.linear(t["h"], t["W3"], t["b3"]),
        "fc2 gx": lambda: t["gy"] @ t["W2"],
        "fc1 gW": lambda: t["gy"].T @ t["x"],
        "fc2 gW": lambda: t["gy"].T @ t["h"],
        "bias grad": lambda: t["gy"].sum(0),
        "relu fwd": lambda: torch.relu(t["gy"]),
        "relu bwd": lambda: threshold_backward(t["gy"], t["h"], 0),
        "sce f+b": sce,
        "sgd update": lambda: torch._foreach_add_(params, grads, alpha=-0.01),
    }


def main() -> None:
    _op_bench.main(
        __file__,
        __doc__.splitlines()[0],
        OPS,
        _data,
        _kusari_ops,
        _torch_ops,
        rounds=3,
        repeat=20,
        digits=3,
    )


if __name__ == "__main__":
    main()
