import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(mask, ratio):
    scale = 1 / (1 - ratio)

    def ref(x, W, b=None):
        x2 = x.reshape(len(x), -1)
        m = mask.astype(np.float64) * scale
        if mask.ndim == 3:
            y = np.einsum("imn,in->im", W[None] * m, x2)
        else:
            y = x2 @ (W * m).T
        return y if b is None else y + b

    return ref


@pytest.mark.parametrize("batchwise", [True, False])
@pytest.mark.parametrize("with_b", [True, False])
@pytest.mark.parametrize("xshape", [(3, 4), (3, 2, 2)])
def test_simplified_dropconnect_fixed_mask(
    batchwise, with_b, xshape, float_dtype, device
):
    ratio = 0.4
    mshape = (3, 5, 4) if batchwise else (5, 4)
    mask = np.random.default_rng(0).random(mshape) >= ratio
    mask_dev = kusari.get_device(device).send(mask)
    shapes = [xshape, (5, 4)] + ([(5,)] if with_b else [])

    def op(x, W, b=None):
        return F.simplified_dropconnect(x, W, b, ratio=ratio, mask=mask_dev)

    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        op, _ref(mask, ratio), shapes, dtype=float_dtype, device=device, tolerances=tol
    )


def test_simplified_dropconnect_not_train_is_linear():
    rng = np.random.default_rng(1)
    x = rng.random((3, 4)).astype(np.float32)
    W = rng.random((5, 4)).astype(np.float32)
    b = rng.random(5).astype(np.float32)
    y = F.simplified_dropconnect(x, W, b, ratio=0.9, train=False)
    np.testing.assert_allclose(y.array, x @ W.T + b, rtol=1e-5)


def test_simplified_dropconnect_statistics():
    np.random.seed(0)
    x = np.ones((400, 50), np.float32)
    W = np.ones((30, 50), np.float32)
    y = F.simplified_dropconnect(x, W, ratio=0.25)
    # Each output sums 50 weights kept with probability 0.75, scaled by 4/3.
    assert abs(y.array.mean() - 50) < 0.3
    y2 = F.simplified_dropconnect(x, W, ratio=0.25, use_batchwise_mask=False)
    rows = y2.array
    np.testing.assert_allclose(rows, np.broadcast_to(rows[0], rows.shape), rtol=1e-5)
    assert not np.all(y.array == y.array[0])


def test_simplified_dropconnect_errors():
    x = np.ones((3, 4), np.float32)
    W = np.ones((5, 4), np.float32)
    with pytest.raises(type_check.InvalidType, match="SimplifiedDropconnect"):
        F.simplified_dropconnect(x, np.ones((5, 3), np.float32))
    with pytest.raises(type_check.InvalidType):
        F.simplified_dropconnect(x, W, np.ones(4, np.float32))
    with pytest.raises(type_check.InvalidType, match="mask.shape"):
        F.simplified_dropconnect(x, W, mask=np.ones((2, 5, 4), bool))
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        F.simplified_dropconnect(x, W, ratio=1.0)


@pytest.mark.parametrize("batchwise", [True, False])
@pytest.mark.parametrize(
    "x_dtype, w_dtype",
    [(np.float32, np.float16), (np.float16, np.float64), (np.float64, np.float32)],
)
def test_simplified_dropconnect_mixed_dtypes(batchwise, x_dtype, w_dtype):
    rng = np.random.default_rng(3)
    x = kusari.Variable(rng.uniform(-1, 1, (4, 3)).astype(x_dtype))
    W = kusari.Variable(rng.uniform(-1, 1, (2, 3)).astype(w_dtype))
    b = kusari.Variable(rng.uniform(-1, 1, 2).astype(x_dtype))
    mask_shape = (4, 2, 3) if batchwise else (2, 3)
    mask = rng.uniform(size=mask_shape) >= 0.5
    y = F.simplified_dropconnect(x, W, b, 0.5, mask=mask, use_batchwise_mask=batchwise)
    assert y.dtype == x_dtype
    Wm = W.array.astype(np.float64) * 2.0 * mask
    xs = x.array.astype(np.float64)
    want = (
        np.einsum("ijk,ik->ij", Wm, xs) if batchwise else xs @ Wm.T
    ) + b.array.astype(np.float64)
    tol = 1e-2 if np.float16 in (x_dtype, w_dtype) else 1e-5
    np.testing.assert_allclose(y.array, want, rtol=tol, atol=tol)
    y.grad = np.ones_like(y.array)
    y.backward()
    # each gradient comes back in its own input's dtype
    assert x.grad.dtype == x_dtype and W.grad.dtype == w_dtype
    assert b.grad.dtype == x_dtype


def test_simplified_dropconnect_needs_float_weights():
    with pytest.raises(type_check.InvalidType, match="W.dtype.kind == 'f'"):
        F.simplified_dropconnect(np.ones((3, 4), np.float32), np.ones((5, 4), np.int32))
