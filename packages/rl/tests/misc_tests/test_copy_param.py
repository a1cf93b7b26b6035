"""Soft and hard parameter copies between links (target networks)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_rl.misc import copy_param, soft_copy_param


class _Net(kusari.Chain):
    def __init__(self, in_size: int | None = 3) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(in_size, 5)
            self.l2 = L.Linear(5, 2)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def _arrays(link):
    return {name: p.array.copy() for name, p in link.namedparams()}


def _expected(target, source, tau):
    return {
        name: (target[name] * np.float32(1 - tau) + np.float32(tau) * source[name])
        for name in source
    }


def _train_once(net, opt):
    x = np.random.RandomState(0).randn(4, 3).astype(np.float32)
    opt.update(lambda: F.sum(net(x) ** 2))


def test_soft_copy_matches_the_formula_on_a_fused_optimizers_buffer():
    source = _Net()
    target = copy.deepcopy(source)
    opt = kusari.optimizers.Adam(alpha=0.1)
    opt.setup(source)
    for step in range(3):
        _train_once(source, opt)
        before_t, before_s = _arrays(target), _arrays(source)
        soft_copy_param(target, source, 0.25)
        after = _arrays(target)
        for name, want in _expected(before_t, before_s, 0.25).items():
            np.testing.assert_array_equal(after[name], want, err_msg=f"{step} {name}")
        # Source untouched.
        for name, arr in _arrays(source).items():
            np.testing.assert_array_equal(arr, before_s[name])
    # The flat path was taken: the target's arrays now tile one buffer.
    bases = [p.array.base for p in target.params()]
    assert bases[0] is not None and all(b is bases[0] for b in bases)


def test_soft_copy_without_optimizer_goes_parameter_by_parameter():
    source, target = _Net(), _Net()
    before_t, before_s = _arrays(target), _arrays(source)
    soft_copy_param(target, source, 0.5)
    for name, want in _expected(before_t, before_s, 0.5).items():
        np.testing.assert_array_equal(_arrays(target)[name], want)


def test_soft_copy_follows_replaced_arrays():
    source = _Net()
    target = copy.deepcopy(source)
    opt = kusari.optimizers.SGD(lr=0.1)
    opt.setup(source)
    _train_once(source, opt)
    soft_copy_param(target, source, 0.1)
    # A load (or to_device) replaces the arrays: the next call must use the
    # new ones on both sides, not the remembered buffers.
    for p in source.params():
        p.array = np.full_like(p.array, 2.0)
    for p in target.params():
        p.array = np.zeros_like(p.array)
    soft_copy_param(target, source, 0.5)
    for p in target.params():
        np.testing.assert_array_equal(p.array, np.ones_like(p.array))


def test_soft_copy_keeps_tied_target_arrays_shared():
    source = _Net()
    target = _Net()
    shared = np.zeros(10, np.float32)
    target.l2.W.array = shared.reshape(2, 5)
    opt = kusari.optimizers.SGD(lr=0.1)
    opt.setup(source)
    _train_once(source, opt)
    soft_copy_param(target, source, 1.0)
    assert target.l2.W.array.base is shared
    np.testing.assert_array_equal(shared.reshape(2, 5), source.l2.W.array)


def test_soft_copy_initialises_a_lazy_target_and_copies_bn_statistics():
    source = kusari.Sequential(L.Linear(None, 4), L.BatchNormalization(4))
    target = copy.deepcopy(source)
    with kusari.using_config("train", True):
        source(np.random.RandomState(1).randn(8, 3).astype(np.float32))
    soft_copy_param(target, source, 1.0)
    np.testing.assert_array_equal(target[0].W.array, source[0].W.array)
    np.testing.assert_allclose(target[1].avg_mean, source[1].avg_mean)
    np.testing.assert_allclose(target[1].avg_var, source[1].avg_var)


def test_copy_param_copies_and_names_a_missing_parameter():
    source, target = _Net(), _Net()
    copy_param(target, source)
    for name, arr in _arrays(source).items():
        np.testing.assert_array_equal(_arrays(target)[name], arr)
    with pytest.raises(KeyError, match="copy_param"):
        copy_param(L.Linear(3, 5, nobias=True), L.Linear(3, 5))
