"""GPU kernels of the update rules agree with the CPU paths (needs CuPy)."""

from __future__ import annotations

import numpy as np
import pytest
from test_optimizers import CASES, IDS, W0, Quadratic, grad_of

from kusari import optimizer_hooks, optimizers
from kusari.backends import cuda

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not cuda.available, reason="CuPy is not available"),
]


def trajectory(name, kwargs, device, dtype, hook=None, steps=4):
    model = Quadratic(dtype)
    if device != "@numpy":
        model.to_device(device)
    opt = getattr(optimizers, name)(**kwargs).setup(model)
    if hook is not None:
        opt.add_hook(hook)
    xp = model.w.xp
    for _ in range(steps):
        w = cuda.to_cpu(model.w.array).astype(np.float64)
        model.w.grad = xp.asarray(grad_of(w).astype(dtype))
        opt.update()
    return cuda.to_cpu(model.w.array), opt


@pytest.mark.parametrize("name,kwargs,ref,ref_kwargs", CASES, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu_matches_cpu(name, kwargs, ref, ref_kwargs, dtype):
    cpu, _ = trajectory(name, kwargs, "@numpy", dtype)
    gpu, _ = trajectory(name, kwargs, "@cupy:0", dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(gpu, cpu, rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "hook",
    [
        optimizer_hooks.WeightDecay(0.1),
        optimizer_hooks.Lasso(0.1),
        optimizer_hooks.GradientClipping(0.5),
        optimizer_hooks.GradientHardClipping(-0.2, 0.2),
        optimizer_hooks.GradientLARS(weight_decay=0.1),
    ],
    ids=lambda h: h.name,
)
def test_hooks_gpu_match_cpu(hook):
    cpu, _ = trajectory("SGD", {"lr": 0.1}, "@numpy", np.float32, hook)
    gpu, _ = trajectory("SGD", {"lr": 0.1}, "@cupy:0", np.float32, hook)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-6)


def test_gpu_state_lives_on_gpu():
    _, opt = trajectory("Adam", {}, "@cupy:0", np.float32)
    state = opt.target.w.update_rule.state
    assert all(isinstance(v, cuda.ndarray) for v in state.values())
    assert W0.shape == state["m"].shape
