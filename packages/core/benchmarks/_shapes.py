"""Shapes and seeded data shared by both sides of ``bench_threads.py``."""

from __future__ import annotations

from typing import Any

import numpy as np

SMALL_BLOCKS = 50  # 4 ops each: 200 ops
LSTM_UNITS = 650
# ResNet-50 stages: (bottleneck width, blocks, stride of the first block)
RESNET_STAGES = ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2))
RESNET_BATCH, RESNET_BATCH_QUICK = 16, 4
ATARI_BATCH, ATARI_ACTIONS = 32, 6

# name: (x shape, W shape, stride, pad)
CONVS: dict[str, tuple[tuple[int, ...], tuple[int, ...], int, int]] = {
    "conv11": ((32, 3, 128, 128), (96, 3, 11, 11), 1, 0),
    "alex1": ((64, 3, 224, 224), (64, 3, 11, 11), 4, 2),
}


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def _he(rng: np.random.Generator, *shape: int) -> np.ndarray:
    fan_in = int(np.prod(shape[1:]))
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


def mlp_data() -> dict[str, Any]:
    rng = _rng()
    return {
        "x": rng.standard_normal((100, 784)).astype(np.float32),
        "t": rng.integers(0, 10, 100).astype(np.int32),
        "W1": _he(rng, 1000, 784),
        "W2": _he(rng, 1000, 1000),
        "W3": _he(rng, 10, 1000),
    }


def lenet_data() -> dict[str, Any]:
    rng = _rng()
    return {
        "x": rng.standard_normal((100, 1, 28, 28)).astype(np.float32),
        "t": rng.integers(0, 10, 100).astype(np.int32),
        "c1": _he(rng, 20, 1, 5, 5),
        "c2": _he(rng, 50, 20, 5, 5),
        "f1": _he(rng, 500, 800),
        "f2": _he(rng, 10, 500),
    }


def atari_data() -> dict[str, Any]:
    """The Nature-DQN network's input (batch 32 of four stacked 84x84
    frames), Pong's 6 actions as labels, and its layers' weights."""
    rng = _rng()
    return {
        "x": rng.random((ATARI_BATCH, 4, 84, 84), dtype=np.float32),
        "t": rng.integers(0, ATARI_ACTIONS, ATARI_BATCH).astype(np.int32),
        "c1": _he(rng, 32, 4, 8, 8),
        "c2": _he(rng, 64, 32, 4, 4),
        "c3": _he(rng, 64, 64, 3, 3),
        "f1": _he(rng, 512, 3136),
        "f2": _he(rng, ATARI_ACTIONS, 512),
    }


def conv_data(case: str) -> tuple[np.ndarray, np.ndarray, int, int, np.ndarray]:
    xs, ws, stride, pad = CONVS[case]
    rng = _rng()
    out = [(n + 2 * pad - k) // stride + 1 for n, k in zip(xs[2:], ws[2:])]
    gy = rng.standard_normal((xs[0], ws[0], *out)).astype(np.float32)
    return (
        rng.standard_normal(xs).astype(np.float32),
        _he(rng, *ws),
        stride,
        pad,
        gy,
    )


def vgg_data() -> dict[str, Any]:
    rng = _rng()
    return {
        "x": rng.standard_normal((8, 64, 56, 56)).astype(np.float32),
        "c1": _he(rng, 128, 64, 3, 3),
        "c2": _he(rng, 128, 128, 3, 3),
    }


def resnet_data(quick: bool) -> tuple[np.ndarray, np.ndarray]:
    n = RESNET_BATCH_QUICK if quick else RESNET_BATCH
    rng = _rng()
    return (
        rng.standard_normal((n, 3, 224, 224)).astype(np.float32),
        rng.integers(0, 1000, n).astype(np.int32),
    )
