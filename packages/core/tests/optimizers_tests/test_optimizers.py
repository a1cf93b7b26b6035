"""Every optimizer against its update equations re-derived in NumPy.

The problem is the quadratic f(w) = 0.5 * sum(a * w**2) + b . w, whose
gradient a * w + b is computed here, not by backprop, so each test checks
the update rule alone. The reference steps below are written from the
papers / Chainer's documented equations, in float64.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import kusari
from kusari import optimizers
from kusari.serializers import DictionarySerializer, NpzDeserializer

A = np.array([1.0, 2.0, 0.5, 3.0])
B = np.array([0.3, -0.2, 0.1, 0.0])
W0 = np.array([1.0, -1.5, 2.0, 0.5])
STEPS = 6


def grad_of(w: np.ndarray) -> np.ndarray:
    return A * w + B


# --- reference update rules: (hyperparams, state) -> new w ------------------


def ref_sgd(w, g, s, t, lr=0.01):
    return w - lr * g


def ref_momentum(w, g, s, t, lr=0.01, momentum=0.9):
    s["v"] = momentum * s.get("v", 0) - lr * g
    return w + s["v"]


def ref_nesterov(w, g, s, t, lr=0.01, momentum=0.9):
    v = momentum * s.get("v", 0) - lr * g
    s["v"] = v
    return w + momentum * momentum * v - (1 + momentum) * lr * g


def ref_corrected(w, g, s, t, lr=0.01, momentum=0.9):
    s["v"] = momentum * s.get("v", 0) - g
    return w + lr * s["v"]


def ref_adagrad(w, g, s, t, lr=0.001, eps=1e-8):
    s["h"] = s.get("h", 0) + g * g
    return w - lr * g / (np.sqrt(s["h"]) + eps)


def ref_adadelta(w, g, s, t, rho=0.95, eps=1e-6):
    msg = rho * s.get("msg", 0) + (1 - rho) * g * g
    msdx = s.get("msdx", 0)
    dx = np.sqrt((msdx + eps) / (msg + eps)) * g
    s["msg"], s["msdx"] = msg, rho * msdx + (1 - rho) * dx * dx
    return w - dx


def ref_rmsprop(w, g, s, t, lr=0.01, alpha=0.99, eps=1e-8, eps_inside_sqrt=False):
    s["ms"] = alpha * s.get("ms", 0) + (1 - alpha) * g * g
    denom = np.sqrt(s["ms"] + eps) if eps_inside_sqrt else np.sqrt(s["ms"]) + eps
    return w - lr * g / denom


def ref_graves(w, g, s, t, lr=1e-4, alpha=0.95, momentum=0.9, eps=1e-4):
    s["n"] = alpha * s.get("n", 0) + (1 - alpha) * g * g
    s["g"] = alpha * s.get("g", 0) + (1 - alpha) * g
    s["d"] = momentum * s.get("d", 0) - lr * g / np.sqrt(s["n"] - s["g"] ** 2 + eps)
    return w + s["d"]


def ref_adam(
    w,
    g,
    s,
    t,
    alpha=0.001,
    beta1=0.9,
    beta2=0.999,
    eps=1e-8,
    eta=1.0,
    weight_decay_rate=0.0,
    amsgrad=False,
    adabound=False,
    final_lr=0.1,
    gamma=1e-3,
):
    m = s.get("m", 0) + (1 - beta1) * (g - s.get("m", 0))
    v = s.get("v", 0) + (1 - beta2) * (g * g - s.get("v", 0))
    s["m"], s["v"] = m, v
    vhat = v
    if amsgrad:
        vhat = s["vhat"] = np.maximum(s.get("vhat", 0), v)
    alpha_t = alpha * math.sqrt(1 - beta2**t) / (1 - beta1**t)
    step = alpha_t / (np.sqrt(vhat) + eps)
    if adabound:
        lower = final_lr * (1 - 1 / (gamma * t + 1))
        upper = final_lr * (1 + 1 / (gamma * t))
        step = np.clip(step, lower, upper)
    return w - eta * (step * m + weight_decay_rate * w)


def ref_smorms3(w, g, s, t, lr=0.001, eps=1e-16):
    mem = s.get("mem", 1.0)
    r = 1 / (mem + 1)
    s["g"] = (1 - r) * s.get("g", 0) + r * g
    s["g2"] = (1 - r) * s.get("g2", 0) + r * g * g
    x = s["g"] ** 2 / (s["g2"] + eps)
    s["mem"] = 1 + mem * (1 - x)
    return w - g * np.minimum(x, lr) / (np.sqrt(s["g2"]) + eps)


def ref_msvag(w, g, s, t, lr=0.1, beta=0.9, eta=1.0, weight_decay_rate=0.0):
    # rho_t from Balles & Hennig: (1-b)(1+b^t) / ((1+b)(1-b^t)), capped.
    rho = min((1 - beta) * (1 + beta**t) / ((1 + beta) * (1 - beta**t)), 0.9999)
    s["m"] = beta * s.get("m", 0) + (1 - beta) * g
    s["v"] = beta * s.get("v", 0) + (1 - beta) * g * g
    mt = s["m"] / (1 - beta**t)
    vt = s["v"] / (1 - beta**t)
    var = (vt - mt**2) / (1 - rho)
    with np.errstate(invalid="ignore", divide="ignore"):
        factor = np.nan_to_num(np.clip(mt**2 / (mt**2 + rho * var), 0, 1))
    return w - eta * (lr * mt * factor + weight_decay_rate * w)


CASES = [
    ("SGD", {}, ref_sgd, {}),
    ("SGD", {"lr": 0.1}, ref_sgd, {"lr": 0.1}),
    (
        "MomentumSGD",
        {"lr": 0.05, "momentum": 0.8},
        ref_momentum,
        {"lr": 0.05, "momentum": 0.8},
    ),
    ("NesterovAG", {"lr": 0.05}, ref_nesterov, {"lr": 0.05}),
    ("CorrectedMomentumSGD", {"lr": 0.05}, ref_corrected, {"lr": 0.05}),
    ("AdaGrad", {"lr": 0.1}, ref_adagrad, {"lr": 0.1}),
    ("AdaDelta", {}, ref_adadelta, {}),
    ("RMSprop", {"lr": 0.01}, ref_rmsprop, {"lr": 0.01}),
    (
        "RMSprop",
        {"eps_inside_sqrt": True, "eps": 1e-2},
        ref_rmsprop,
        {"eps_inside_sqrt": True, "eps": 1e-2},
    ),
    ("RMSpropGraves", {"lr": 1e-2}, ref_graves, {"lr": 1e-2}),
    ("Adam", {"alpha": 0.05}, ref_adam, {"alpha": 0.05}),
    (
        "AdamW",
        {"alpha": 0.05, "weight_decay_rate": 0.1},
        ref_adam,
        {"alpha": 0.05, "weight_decay_rate": 0.1},
    ),
    ("AMSGrad", {"alpha": 0.05}, ref_adam, {"alpha": 0.05, "amsgrad": True}),
    (
        "AdaBound",
        {"alpha": 0.05, "final_lr": 0.02, "gamma": 0.1},
        ref_adam,
        {"alpha": 0.05, "adabound": True, "final_lr": 0.02, "gamma": 0.1},
    ),
    (
        "AMSBound",
        {"alpha": 0.05, "final_lr": 0.02, "gamma": 0.1},
        ref_adam,
        {
            "alpha": 0.05,
            "amsgrad": True,
            "adabound": True,
            "final_lr": 0.02,
            "gamma": 0.1,
        },
    ),
    (
        "Adam",
        {"alpha": 0.05, "eta": 0.5, "amsgrad": True},
        ref_adam,
        {"alpha": 0.05, "eta": 0.5, "amsgrad": True},
    ),
    ("SMORMS3", {"lr": 0.05}, ref_smorms3, {"lr": 0.05}),
    (
        "MSVAG",
        {"lr": 0.1, "weight_decay_rate": 0.01},
        ref_msvag,
        {"lr": 0.1, "weight_decay_rate": 0.01},
    ),
]
IDS = [f"{name}-{i}" for i, (name, *_rest) in enumerate(CASES)]


class Quadratic(kusari.Link):
    def __init__(self, dtype: type = np.float64) -> None:
        super().__init__()
        with self.init_scope():
            self.w = kusari.Parameter(W0.astype(dtype))


def run_kusari(name: str, kwargs: dict, dtype: type, steps: int = STEPS):
    model = Quadratic(dtype)
    opt = getattr(optimizers, name)(**kwargs)
    opt.setup(model)
    trajectory = []
    for _ in range(steps):
        model.w.grad = grad_of(model.w.array.astype(np.float64)).astype(dtype)
        opt.update()
        trajectory.append(model.w.array.copy())
    return model, opt, trajectory


def run_reference(ref, kwargs: dict, steps: int = STEPS):
    w, state, trajectory = W0.copy(), {}, []
    for t in range(1, steps + 1):
        w = ref(w, grad_of(w), state, t, **kwargs)
        trajectory.append(w.copy())
    return trajectory


@pytest.mark.parametrize("name,kwargs,ref,ref_kwargs", CASES, ids=IDS)
def test_matches_reference_float64(name, kwargs, ref, ref_kwargs):
    _, _, got = run_kusari(name, kwargs, np.float64)
    expected = run_reference(ref, ref_kwargs)
    for step, (g, e) in enumerate(zip(got, expected), 1):
        np.testing.assert_allclose(
            g, e, rtol=1e-10, atol=1e-12, err_msg=f"{name} step {step}"
        )


@pytest.mark.parametrize("name,kwargs,ref,ref_kwargs", CASES, ids=IDS)
def test_float32_stays_float32_and_close(name, kwargs, ref, ref_kwargs):
    model, _, got = run_kusari(name, kwargs, np.float32)
    assert model.w.array.dtype == np.float32
    assert model.w.grad.dtype == np.float32
    expected = run_reference(ref, ref_kwargs)
    np.testing.assert_allclose(got[-1], expected[-1], rtol=1e-4, atol=1e-5)


CONVERGENCE = {
    "SGD": {"lr": 0.2},
    "MomentumSGD": {"lr": 0.05},
    "NesterovAG": {"lr": 0.05},
    "CorrectedMomentumSGD": {"lr": 0.05},
    "AdaGrad": {"lr": 0.5},
    "AdaDelta": {"rho": 0.95, "eps": 1e-4},
    "RMSprop": {"lr": 0.02},
    "RMSpropGraves": {"lr": 0.01},
    "Adam": {"alpha": 0.05},
    "AdamW": {"alpha": 0.05},
    "AMSGrad": {"alpha": 0.05},
    "AdaBound": {"alpha": 0.05, "final_lr": 0.05},
    "AMSBound": {"alpha": 0.05, "final_lr": 0.05},
    "SMORMS3": {"lr": 0.05},
    "MSVAG": {"lr": 0.2},
}


@pytest.mark.parametrize("name", sorted(CONVERGENCE))
def test_converges_on_quadratic(name):
    model, _, _ = run_kusari(name, CONVERGENCE[name], np.float32, steps=600)
    optimum = -B / A
    np.testing.assert_allclose(model.w.array, optimum, atol=2e-2)


@pytest.mark.parametrize("name", sorted(CONVERGENCE))
def test_float16_params_keep_dtype(name):
    kwargs = dict(CONVERGENCE[name])
    if name.startswith(("Ada", "Adam", "AMS", "RMSprop")) and name != "AdaGrad":
        kwargs.setdefault("eps", 1e-3)  # the default 1e-8 is 0 in float16
    model, _, _ = run_kusari(name, kwargs, np.float16, steps=2)
    assert model.w.array.dtype == np.float16


def _state_snapshot(opt, model):
    s = DictionarySerializer()
    opt.serialize(s)
    return s.target


@pytest.mark.parametrize("name,kwargs,ref,ref_kwargs", CASES, ids=IDS)
def test_serialization_round_trip_resumes_exactly(name, kwargs, ref, ref_kwargs):
    model, opt, _ = run_kusari(name, kwargs, np.float32, steps=3)
    saved = _state_snapshot(opt, model)
    assert int(saved["t"]) == 3
    assert int(saved["w/t"]) == 3
    # A fresh optimizer loading the state continues bit-identically.
    fresh_model = Quadratic(np.float32)
    fresh_model.w.array[...] = model.w.array
    fresh = getattr(optimizers, name)(**kwargs).setup(fresh_model)
    fresh.serialize(NpzDeserializer(saved))
    assert fresh.t == 3 and fresh_model.w.update_rule.t == 3
    for m, o in ((model, opt), (fresh_model, fresh)):
        for _ in range(3):
            m.w.grad = grad_of(m.w.array.astype(np.float64)).astype(np.float32)
            o.update()
    np.testing.assert_array_equal(model.w.array, fresh_model.w.array)


def test_state_keys_follow_chainer_names():
    expected = {
        "SGD": set(),
        "MomentumSGD": {"v"},
        "NesterovAG": {"v"},
        "CorrectedMomentumSGD": {"v"},
        "AdaGrad": {"h"},
        "AdaDelta": {"msg", "msdx"},
        "RMSprop": {"ms"},
        "RMSpropGraves": {"n", "g", "delta"},
        "Adam": {"m", "v"},
        "AdamW": {"m", "v"},
        "AMSGrad": {"m", "v", "vhat"},
        "AdaBound": {"m", "v"},
        "AMSBound": {"m", "v", "vhat"},
        "SMORMS3": {"mem", "g", "g2"},
        "MSVAG": {"m", "v"},
    }
    assert set(expected) == set(optimizers.__all__)
    for name, keys in expected.items():
        model, _, _ = run_kusari(name, {}, np.float32, steps=1)
        assert set(model.w.update_rule.state) == keys, name


def test_hyperparameter_proxy_reaches_rules():
    model = Quadratic()
    opt = optimizers.MomentumSGD(lr=0.1).setup(model)
    rule = model.w.update_rule
    assert rule.hyperparam.lr == 0.1
    opt.lr = 0.5
    assert rule.hyperparam.lr == 0.5
    rule.hyperparam.lr = 0.0  # per-parameter override
    assert opt.lr == 0.5 and rule.hyperparam.lr == 0.0
    w = model.w.array.copy()
    model.w.grad = np.ones_like(w)
    opt.update()
    np.testing.assert_array_equal(model.w.array, w)


def test_adam_alpha_t_and_deprecated_lr():
    model = Quadratic()
    opt = optimizers.Adam(alpha=0.1).setup(model)
    with pytest.raises(RuntimeError, match="first update"):
        _ = opt.alpha_t
    model.w.grad = np.ones(4)
    opt.update()
    expected = 0.1 * math.sqrt(1 - 0.999) / (1 - 0.9)
    assert opt.alpha_t == pytest.approx(expected)
    assert model.w.update_rule.alpha_t == pytest.approx(expected)
    with pytest.warns(DeprecationWarning):
        assert opt.lr == pytest.approx(expected)


def test_eps_too_small_for_float16_is_rejected():
    model = Quadratic(np.float16)
    opt = optimizers.Adam().setup(model)
    model.w.grad = np.ones(4, dtype=np.float16)
    with pytest.raises(ValueError, match="too small for float16"):
        opt.update()


def test_default_hyperparams_match_chainer():
    assert optimizers.SGD().lr == 0.01
    momentum = optimizers.MomentumSGD()
    assert (momentum.lr, momentum.momentum) == (0.01, 0.9)
    adam = optimizers.Adam()
    assert (adam.alpha, adam.beta1, adam.beta2, adam.eps, adam.eta) == (
        0.001,
        0.9,
        0.999,
        1e-8,
        1.0,
    )
    assert (adam.final_lr, adam.gamma, adam.amsgrad, adam.adabound) == (
        0.1,
        1e-3,
        False,
        False,
    )
    assert optimizers.AMSGrad().amsgrad and optimizers.AdaBound().adabound
    assert optimizers.RMSpropGraves().lr == 1e-4
    assert optimizers.AdaDelta().rho == 0.95
    assert optimizers.SMORMS3().eps == 1e-16
    assert optimizers.MSVAG().lr == 0.1
    assert optimizers.RMSprop().eps_inside_sqrt is False


def test_update_with_lossfun_uses_backprop():
    model = Quadratic(np.float32)
    opt = optimizers.SGD(lr=0.5).setup(model)
    opt.update(lambda: kusari.functions.sum(model.w * model.w))
    np.testing.assert_allclose(model.w.array, np.zeros(4), atol=1e-7)
    assert opt.t == 1


@pytest.mark.parametrize("shape", [(), (1, 0, 2)])
def test_msvag_updates_zero_d_and_empty_parameters(shape):
    # A 0-d parameter's update factor is a NumPy scalar (no item assignment).
    link = kusari.Link()
    with link.init_scope():
        link.w = kusari.Parameter(np.ones(shape, np.float32))
    opt = optimizers.MSVAG().setup(link)
    link.w.grad = np.full(shape, 0.5, np.float32)
    opt.update()
    assert link.w.array.shape == shape and link.w.dtype == np.float32
    if link.w.size:
        assert link.w.array < 1
