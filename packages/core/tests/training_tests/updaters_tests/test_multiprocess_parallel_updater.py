"""MultiprocessParallelUpdater: unavailable in kusari (no NCCL), and says so."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.links as L
from kusari.training import updaters
from kusari.training.updaters import multiprocess_parallel_updater as mpu


def test_multiprocess_parallel_updater_is_unavailable():
    assert not updaters.MultiprocessParallelUpdater.available()
    with pytest.raises(RuntimeError):
        updaters.MultiprocessParallelUpdater()


def test_the_error_names_the_alternatives_whatever_the_arguments():
    with pytest.raises(RuntimeError, match="NCCL") as info:
        updaters.MultiprocessParallelUpdater([], None, devices=[0, 1])
    assert "StandardUpdater" in str(info.value)
    assert "ParallelUpdater" in str(info.value)


def _two_layer(dtype=np.float32):
    model = kusari.Sequential(L.Linear(3, 2), L.Linear(2, 1))
    for p in model.params():
        p.array[...] = np.arange(p.size, dtype=dtype).reshape(p.shape)
    return model


@pytest.mark.parametrize(
    "helper", ["gather_grads", "gather_params", "scatter_grads", "scatter_params"]
)
def test_gather_and_scatter_refuse_a_cpu_link_as_chainer_does(helper):
    args = (_two_layer(),) if helper.startswith("gather") else (_two_layer(), None)
    with pytest.raises(RuntimeError, match=f"{helper} works only on GPU"):
        getattr(mpu, helper)(*args)


def test_size_num_grads_counts_initialized_non_empty_params():
    model = _two_layer()
    assert mpu.size_num_grads(model) == (3 * 2 + 2 + 2 + 1, 4)
    lazy = L.Linear(None, 4)  # W not initialized yet: left out
    assert mpu.size_num_grads(lazy) == (4, 1)


def test_packing_round_trips_through_one_float32_array():
    # The packing itself does not depend on the device; the public functions
    # only add Chainer's GPU-only rule, so it is checked here on NumPy.
    src, dst = _two_layer(), _two_layer()
    for p in src.params():
        p.grad = np.full(p.shape, 0.5, dtype=p.dtype)
    flat = mpu._gather(src, "data")
    assert flat.dtype == np.float32 and flat.shape == (11,)
    assert flat[:6].tolist() == [0, 1, 2, 3, 4, 5]
    for p in dst.params():
        p.array[...] = 0
    mpu._scatter(dst, flat, "data")
    for a, b in zip(src.params(), dst.params(), strict=True):
        np.testing.assert_array_equal(a.array, b.array)
    dst.cleargrads()
    assert mpu._gather(dst, "grad").tolist() == [0.0] * 11  # missing grads: zeros
    mpu._scatter(dst, mpu._gather(src, "grad"), "grad")  # missing stay missing
    assert all(p.grad is None for p in dst.params())
    with pytest.raises(ValueError, match="scatter_params: expected an array of 11"):
        mpu._scatter(dst, np.zeros(3, np.float32), "data")


def test_float16_params_are_packed_as_float32_and_cast_back():
    with kusari.using_config("dtype", np.float16):
        model = _two_layer(np.float16)
    assert model[0].W.dtype == np.float16
    flat = mpu._gather(model, "data")
    assert flat.dtype == np.float32 and flat[:3].tolist() == [0.0, 1.0, 2.0]
    mpu._scatter(model, flat + 0.25, "data")
    assert model[0].W.dtype == np.float16 and model[0].W.array[0, 1] == 1.25
