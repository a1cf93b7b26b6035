"""Tests of F.n_step_rnn / F.n_step_birnn (tanh and relu) against a NumPy loop."""

import numpy as np
import pytest
from _rnn_ref import flat_shapes, n_step, unflatten

import kusari.functions as F
from kusari.testing import check_op

N_W = 2


def _positive(shape):
    def gen(rng, dtype):
        return rng.uniform(0.1, 0.5, shape).astype(dtype)

    return gen


@pytest.mark.parametrize("activation", ["tanh", "relu"])
@pytest.mark.parametrize(
    "n_layers,bi,batches",
    [
        (1, False, [3, 2, 2, 1]),
        (2, True, [3, 1, 1]),
    ],
)
def test_n_step_rnn(activation, n_layers, bi, batches, float_dtype, device):
    fn = F.n_step_birnn if bi else F.n_step_rnn
    T = len(batches)

    def op(*args):
        hx, _, xs, ws, bs = unflatten(args, N_W, False, n_layers, bi, T)
        hy, ys = fn(n_layers, 0.0, hx, ws, bs, xs, activation=activation)
        return (hy,) + tuple(ys)

    def ref(*args):
        hx, _, xs, ws, bs = unflatten(args, N_W, False, n_layers, bi, T)
        hy, _, ys = n_step("rnn_" + activation, n_layers, hx, None, ws, bs, xs, bi)
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
    shapes = flat_shapes(N_W, False, n_layers, bi, 3, 2, batches)
    if activation == "relu":
        # forward with mixed signs (the relu mask matters) ...
        check_op(
            op,
            ref,
            shapes,
            dtype=float_dtype,
            device=device,
            tolerances=tol,
            backward=False,
            double_backward=False,
        )
        # ... gradients away from the kinks: positive inputs keep every unit active
        shapes = [_positive(s) for s in shapes]
    check_op(op, ref, shapes, dtype=float_dtype, device=device, tolerances=tol)


def test_n_step_rnn_bad_activation():
    args = [
        np.zeros(s, np.float32) for s in flat_shapes(N_W, False, 1, False, 3, 2, [1])
    ]
    hx, _, xs, ws, bs = unflatten(args, N_W, False, 1, False, 1)
    with pytest.raises(ValueError, match="invalid activation"):
        F.n_step_rnn(1, 0.0, hx, ws, bs, xs, activation="sigmoid")
