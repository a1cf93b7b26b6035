import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op


def _seeded(tau, axis, device):
    # The noise comes from the RNG of the array's backend (cupy.random on GPU).
    random = kusari.get_device(device).xp.random

    def op(x):
        random.seed(0)
        return F.gumbel_softmax(x, tau, axis)

    return op


def _ref(tau, axis, device):
    random = kusari.get_device(device).xp.random

    def ref(x):
        random.seed(0)
        g = kusari.backend.CpuDevice().send(random.gumbel(size=x.shape))
        z = (x + g) / tau
        e = np.exp(z - z.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)

    return ref


@pytest.mark.parametrize(
    "shape,tau,axis", [((3, 4), 1.0, 1), ((2, 3, 4), 2.0, 2), ((5, 2), 0.5, 0)]
)
def test_gumbel_softmax_fixed_noise(shape, tau, axis, float_dtype, device):
    if float_dtype == np.float16:
        # float16 loses the noise's low bits; compare loosely.
        tol = {"forward": (2e-2, 2e-2)}
    else:
        tol = {"forward": (1e-4, 1e-3)} if float_dtype == np.float32 else None
    check_op(
        _seeded(tau, axis, device),
        _ref(tau, axis, device),
        [shape],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_gumbel_softmax_statistics():
    np.random.seed(3)
    p = np.array([0.1, 0.2, 0.7])
    log_pi = np.tile(np.log(p).astype(np.float32), (20000, 1))
    y = F.gumbel_softmax(log_pi, tau=0.1)
    np.testing.assert_allclose(y.array.sum(axis=1), 1, rtol=1e-5)
    freq = np.bincount(y.array.argmax(axis=1), minlength=3) / len(log_pi)
    np.testing.assert_allclose(freq, p, atol=0.015)


def test_gumbel_softmax_scalar():
    y = F.gumbel_softmax(np.float32(1.0) * np.ones((), np.float32))
    assert y.shape == () and y.array == 1
