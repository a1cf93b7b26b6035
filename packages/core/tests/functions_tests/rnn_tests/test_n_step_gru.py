"""Tests of F.n_step_gru / F.n_step_bigru against a per-time-step NumPy loop."""

import numpy as np
import pytest
from _rnn_ref import flat_shapes, n_step, unflatten

import kusari
import kusari.functions as F
from kusari.testing import check_op

N_W = 6


@pytest.mark.parametrize(
    "n_layers,bi,batches",
    [
        (1, False, [3, 2, 2, 1]),
        (2, False, [2, 2, 1]),
        (2, True, [3, 1, 1]),
    ],
)
def test_n_step_gru(n_layers, bi, batches, float_dtype, device):
    fn = F.n_step_bigru if bi else F.n_step_gru
    T = len(batches)

    def op(*args):
        hx, _, xs, ws, bs = unflatten(args, N_W, False, n_layers, bi, T)
        hy, ys = fn(n_layers, 0.0, hx, ws, bs, xs)
        return (hy,) + tuple(ys)

    def ref(*args):
        hx, _, xs, ws, bs = unflatten(args, N_W, False, n_layers, bi, T)
        hy, _, ys = n_step("gru", n_layers, hx, None, ws, bs, xs, bi)
        return (hy,) + tuple(ys)

    tol = (
        {
            "forward": (5e-2, 5e-2),
            "backward": (1e-1, 1e-1),
            "double_backward": (2e-1, 2e-1),
        }
        if float_dtype == np.float16
        else None
    )
    check_op(
        op,
        ref,
        flat_shapes(N_W, False, n_layers, bi, 3, 2, batches),
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_n_step_gru_dropout_test_mode():
    rng = np.random.default_rng(1)
    args = [
        rng.uniform(-1, 1, s).astype(np.float32)
        for s in flat_shapes(N_W, False, 2, True, 3, 2, [2, 1])
    ]
    hx, _, xs, ws, bs = unflatten(args, N_W, False, 2, True, 2)
    ref_hy, _, ref_ys = n_step("gru", 2, hx, None, ws, bs, xs, True)
    with kusari.using_config("train", False):
        hy, ys = F.n_step_bigru(2, 0.5, hx, ws, bs, xs)
    np.testing.assert_allclose(hy.array, ref_hy, atol=1e-5)
    np.testing.assert_allclose(ys[0].array, ref_ys[0], atol=1e-5)
    with kusari.using_config("train", True):
        hy, ys = F.n_step_bigru(2, 0.9, hx, ws, bs, xs)
    np.testing.assert_allclose(hy.array[:2], ref_hy[:2], atol=1e-5)
    assert not np.allclose(hy.array[2:], ref_hy[2:], atol=1e-5)
