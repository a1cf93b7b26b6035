"""Per-operation times of Chainer's MNIST LeNet, kusari vs PyTorch CPU.

The LeNet of Chainer's MNIST example, batch 100, float32: conv 1->20 5x5
on 28x28, max pool 2, conv 20->50 5x5, max pool 2, linear 800->500. Each
row times one array operation of its training step alone, on the same data
in both libraries:

* ``conv1 fwd`` / ``conv1 gW``: the first convolution and its weight
  gradient (its input gradient is never needed);
* ``conv2 fwd`` / ``conv2 gW`` / ``conv2 gx``: the second convolution, its
  weight gradient and its input gradient (a transposed convolution);
* ``pool1 fwd`` / ``bwd``, ``pool2 fwd`` / ``bwd``: max pooling with its
  argmax, and the scatter of the gradient at the argmax;
* ``fc1 fwd`` / ``gx`` / ``gW``: the 800 -> 500 layer's three GEMMs;
* ``relu1``: ReLU on the first convolution's output (kusari's forward
  kernel, the one ``F.relu`` runs on a contiguous NumPy array).

kusari's rows call its array kernels (no graph); PyTorch's its ATen ops
(``convolution_backward``, ``max_pool2d_with_indices_backward``, ...) under
``torch.no_grad``. Each library runs in its own subprocess per round (an
idle thread of one, OpenBLAS's or OpenMP's, spinning after its last call
would otherwise take a core from the other), rounds alternate, and each
cell is the best time over all rounds and repeats. The thread count is set
in-process: ``kusari.set_num_threads`` (and BLAS's) and
``torch.set_num_threads``.

Arrays of these sizes are allocated afresh in a training step, and their
first touch costs page faults (about 1.5 ms for each 4.6 MB map on the
machine measured); here the outputs are freed and reallocated between
repeats, so those costs mostly do not show: the rows are the operations'
own cost.

Run: ``python bench_lenet_ops.py [--rounds N] [--threads 1,2] [--only a,b]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import _op_bench
import numpy as np

OPS = [
    "conv1 fwd",
    "conv1 gW",
    "conv2 fwd",
    "conv2 gW",
    "conv2 gx",
    "pool1 fwd",
    "pool1 bwd",
    "pool2 fwd",
    "pool2 bwd",
    "fc1 fwd",
    "fc1 gx",
    "fc1 gW",
    "relu1",
]


def _data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)

    def r(*shape: int, scale: float = 1.0) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    n = 100
    return {
        "x1": r(n, 1, 28, 28),
        "W1": r(20, 1, 5, 5, scale=0.1),
        "b1": r(20),
        "gy1": r(n, 20, 24, 24),
        "x2": r(n, 20, 12, 12),
        "W2": r(50, 20, 5, 5, scale=0.1),
        "b2": r(50),
        "gy2": r(n, 50, 8, 8),
        "p1x": r(n, 20, 24, 24),
        "p1g": r(n, 20, 12, 12),
        "p2x": r(n, 50, 8, 8),
        "p2g": r(n, 50, 4, 4),
        "h": r(n, 800),
        "Wf": r(500, 800, scale=0.03),
        "gh": r(n, 500),
    }


def _kusari_ops(d: dict[str, np.ndarray]) -> dict[str, Callable[[], Any]]:
    from kusari.functions.activation import relu
    from kusari.functions.connection import _conv_core as cc
    from kusari.functions.math import _gemm_split
    from kusari.functions.pooling import _pool_core as pc
    from kusari.functions.pooling._pool_layout import PoolParams

    one, zero = (1, 1), (0, 0)
    pp = PoolParams(2, 2, 2, 0, False, "max_pooling_2d")
    i1 = pc.max_pool(d["p1x"], pp, (12, 12), True)[1]
    i2 = pc.max_pool(d["p2x"], pp, (4, 4), True)[1]
    w1, w2 = d["W1"], d["W2"]
    return {
        "conv1 fwd": lambda: cc.conv_forward(
            d["x1"], w1, d["b1"], one, zero, one, 1, (24, 24)
        ),
        "conv1 gW": lambda: cc.conv_grad_weight(
            d["x1"], d["gy1"], w1.shape, one, zero, one, 1
        ),
        "conv2 fwd": lambda: cc.conv_forward(
            d["x2"], w2, d["b2"], one, zero, one, 1, (8, 8)
        ),
        "conv2 gW": lambda: cc.conv_grad_weight(
            d["x2"], d["gy2"], w2.shape, one, zero, one, 1
        ),
        "conv2 gx": lambda: cc.deconv_forward(
            d["gy2"], w2, None, one, zero, one, 1, (12, 12)
        ),
        "pool1 fwd": lambda: pc.max_pool(d["p1x"], pp, (12, 12), True),
        "pool1 bwd": lambda: pc.index_scatter(i1, d["p1g"], pp, (24, 24)),
        "pool2 fwd": lambda: pc.max_pool(d["p2x"], pp, (4, 4), True),
        "pool2 bwd": lambda: pc.index_scatter(i2, d["p2g"], pp, (8, 8)),
        "fc1 fwd": lambda: _gemm_split.matmul(d["h"], d["Wf"].T),
        "fc1 gx": lambda: _gemm_split.matmul(d["gh"], d["Wf"]),
        "fc1 gW": lambda: _gemm_split.matmul(d["gh"].T, d["h"]),
        "relu1": lambda: relu._relu_cpu(d["p1x"]),
    }


def _torch_ops(d: dict[str, np.ndarray]) -> dict[str, Callable[[], Any]]:
    import torch
    import torch.nn.functional as tf

    t = {k: torch.from_numpy(v) for k, v in d.items()}
    cb = torch.ops.aten.convolution_backward
    pb = torch.ops.aten.max_pool2d_with_indices_backward
    i1 = tf.max_pool2d_with_indices(t["p1x"], 2)[1]
    i2 = tf.max_pool2d_with_indices(t["p2x"], 2)[1]
    s, z = [1, 1], [0, 0]

    def grad_w(gy: Any, x: Any, w: Any, nb: int) -> Any:
        return cb(gy, x, w, [nb], s, z, s, False, z, 1, [False, True, True])

    return {
        "conv1 fwd": lambda: tf.conv2d(t["x1"], t["W1"], t["b1"]),
        "conv1 gW": lambda: grad_w(t["gy1"], t["x1"], t["W1"], 20),
        "conv2 fwd": lambda: tf.conv2d(t["x2"], t["W2"], t["b2"]),
        "conv2 gW": lambda: grad_w(t["gy2"], t["x2"], t["W2"], 50),
        "conv2 gx": lambda: cb(
            t["gy2"], t["x2"], t["W2"], None, s, z, s, False, z, 1, [True, False, False]
        ),
        "pool1 fwd": lambda: tf.max_pool2d_with_indices(t["p1x"], 2),
        "pool1 bwd": lambda: pb(t["p1g"], t["p1x"], [2, 2], [2, 2], z, s, False, i1),
        "pool2 fwd": lambda: tf.max_pool2d_with_indices(t["p2x"], 2),
        "pool2 bwd": lambda: pb(t["p2g"], t["p2x"], [2, 2], [2, 2], z, s, False, i2),
        "fc1 fwd": lambda: t["h"] @ t["Wf"].T,
        "fc1 gx": lambda: t["gh"] @ t["Wf"],
        "fc1 gW": lambda: t["gh"].T @ t["h"],
        "relu1": lambda: torch.relu(t["p1x"]),
    }


def main() -> None:
    _op_bench.main(
        __file__,
        __doc__.splitlines()[0],
        OPS,
        _data,
        _kusari_ops,
        _torch_ops,
        rounds=2,
        repeat=10,
        digits=2,
    )


if __name__ == "__main__":
    main()
