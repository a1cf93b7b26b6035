"""Optimizer hooks: each gradient transformation checked by hand."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
from kusari import optimizer_hooks, optimizers

W = np.array([1.0, -2.0, 0.5], dtype=np.float32)
G = np.array([0.3, 0.4, -1.2], dtype=np.float32)


def setup(hook, lr=1.0, timing="auto"):
    link = kusari.Link()
    with link.init_scope():
        link.w = kusari.Parameter(W.copy())
        link.v = kusari.Parameter(np.array([3.0, 4.0], dtype=np.float32))
    opt = optimizers.SGD(lr=lr).setup(link)
    opt.add_hook(hook, timing=timing)
    link.w.grad = G.copy()
    link.v.grad = np.array([0.0, 12.0], dtype=np.float32)
    return link, opt


def test_weight_decay():
    link, opt = setup(optimizer_hooks.WeightDecay(0.1))
    opt.update()
    np.testing.assert_allclose(link.w.array, W - (G + 0.1 * W), rtol=1e-6)


def test_weight_decay_scales_with_loss_scale():
    link, opt = setup(optimizer_hooks.WeightDecay(0.1))
    link.w._loss_scale = 4.0
    link.w.grad = 4.0 * G
    opt.update()
    np.testing.assert_allclose(link.w.array, W - (G + 0.1 * W), rtol=1e-6)


def test_lasso():
    link, opt = setup(optimizer_hooks.Lasso(0.1))
    opt.update()
    np.testing.assert_allclose(link.w.array, W - (G + 0.1 * np.sign(W)), rtol=1e-6)


def test_gradient_clipping_global_norm():
    link, opt = setup(optimizer_hooks.GradientClipping(1.0))
    norm = np.sqrt((G**2).sum() + 144.0)
    opt.update()
    np.testing.assert_allclose(link.w.array, W - G / norm, rtol=1e-6)
    np.testing.assert_allclose(link.v.array, [3.0, 4.0 - 12.0 / norm], rtol=1e-6)


def test_gradient_clipping_leaves_small_grads():
    link, opt = setup(optimizer_hooks.GradientClipping(100.0))
    opt.update()
    np.testing.assert_allclose(link.w.array, W - G, rtol=1e-6)


def test_gradient_hard_clipping():
    link, opt = setup(optimizer_hooks.GradientHardClipping(-0.5, 0.35))
    opt.update()
    np.testing.assert_allclose(link.w.array, W - np.clip(G, -0.5, 0.35), rtol=1e-6)


def test_gradient_noise_uses_noise_func_and_rule_t():
    seen = []

    def noise(xp, shape, dtype, hook, rule):
        seen.append(rule.t)
        return xp.full(shape, 0.5, dtype=dtype)

    link, opt = setup(optimizer_hooks.GradientNoise(0.01, noise_func=noise))
    opt.update()
    np.testing.assert_allclose(link.w.array, W - (G + 0.5), rtol=1e-6)
    assert seen == [0, 0]  # before the rule's own update counts


def test_gradient_noise_default_std():
    np.random.seed(0)
    big = kusari.Link()
    with big.init_scope():
        big.w = kusari.Parameter(np.zeros(20000, dtype=np.float64))
    opt = optimizers.SGD(lr=1.0).setup(big)
    opt.add_hook(optimizer_hooks.GradientNoise(0.3))
    big.w.grad = np.zeros(20000)
    opt.update()
    assert np.std(big.w.array) == pytest.approx(np.sqrt(0.3), rel=0.03)


def test_gradient_lars():
    hook = optimizer_hooks.GradientLARS(threshold=1e-2, weight_decay=0.1, eps=1e-9)
    link, opt = setup(hook)
    p_norm, g_norm = np.linalg.norm(W), np.linalg.norm(G)
    rate = p_norm / (1e-9 + g_norm + 0.1 * p_norm)
    opt.update()
    np.testing.assert_allclose(link.w.array, W - rate * (G + 0.1 * W), rtol=1e-5)


def test_gradient_lars_below_threshold_keeps_rate_one():
    hook = optimizer_hooks.GradientLARS(threshold=1e6)
    link, opt = setup(hook)
    opt.update()
    np.testing.assert_allclose(link.w.array, W - G, rtol=1e-6)


def test_hook_attributes():
    for cls in (optimizer_hooks.WeightDecay, optimizer_hooks.Lasso):
        h = cls(0.1)
        assert h.timing == "pre" and h.call_for_each_param and h.name == cls.__name__
    assert not optimizer_hooks.GradientClipping(1.0).call_for_each_param
    assert "rate=0.1" in repr(optimizer_hooks.WeightDecay(0.1))


def test_post_timing_applies_after_update():
    link, opt = setup(optimizer_hooks.WeightDecay(0.1), timing="post")
    opt.update()
    np.testing.assert_allclose(link.w.array, W - G, rtol=1e-6)
    np.testing.assert_allclose(link.w.grad, G + 0.1 * (W - G), rtol=1e-6)
