"""The GPU convolution kernels: chunked and unchunked batches agree (needs CuPy)."""

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.backends import cuda

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not cuda.available, reason="CuPy / a CUDA GPU is not available"),
]


@pytest.mark.parametrize("deconv", [False, True], ids=["conv", "deconv"])
def test_chunked_batches_match(monkeypatch, deconv):  # pragma: no cover - needs CuPy
    from kusari.functions.connection import _conv_gpu

    cp = cuda.cupy
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4, 7, 6)).astype(np.float32)
    W = rng.standard_normal((4, 6, 3, 2) if deconv else (6, 2, 3, 2)).astype(np.float32)
    op = F.deconvolution_2d if deconv else F.convolution_2d

    def run(xp):
        xv, Wv = kusari.Variable(xp.asarray(x)), kusari.Variable(xp.asarray(W))
        y = op(xv, Wv, stride=(2, 1), pad=1, groups=2)
        y.grad = xp.ones_like(y.array)
        y.backward()
        return [cuda.to_cpu(a) for a in (y.array, xv.grad, Wv.grad)]

    cpu = run(np)
    whole = run(cp)
    monkeypatch.setattr(_conv_gpu, "_GPU_COL_BYTES", 1)  # one sample per chunk
    for got in (whole, run(cp)):
        for a, b in zip(got, cpu):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)
