"""Arithmetic computed directly on arrays (no FunctionNode) with backprop off,
and large operands split over the intra-op threads."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import Variable
from kusari.functions.math import (
    _arith_direct,
    _arith_nodes,
    _div_pow_nodes,
)
from kusari.utils import threads, type_check

OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "add_c": lambda a, b: a + 1.5,
    "sub_c": lambda a, b: a - 2,
    "rsub_c": lambda a, b: 2.5 - a,
    "mul_c": lambda a, b: a * 0.5,
    "div_c": lambda a, b: a / 4.0,
    "rdiv_c": lambda a, b: 3.0 / a,
    "neg": lambda a, b: -a,
    "bias": lambda a, b: a + b.array[0],  # broadcast: through the FunctionNode
}


def _pair(shape=(4, 3), dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.5, 2, shape).astype(dtype)
    b = rng.uniform(0.5, 2, shape).astype(dtype)
    return Variable(a), Variable(b)


@pytest.fixture
def no_nodes(monkeypatch):
    """Fail on any FunctionNode.apply of basic_math's functions."""
    made = []
    original = kusari.FunctionNode.apply

    def apply(self, inputs):
        made.append(type(self).__name__)
        return original(self, inputs)

    monkeypatch.setattr(kusari.FunctionNode, "apply", apply)
    return made


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("type_check_on", [True, False])
def test_no_backprop_values_match_graph_mode(name, type_check_on, no_nodes):
    a, b = _pair()
    want = OPS[name](a, b)
    with kusari.no_backprop_mode(), kusari.using_config("type_check", type_check_on):
        # The operators read a per-thread snapshot of the configuration that
        # the first FunctionNode after a change refreshes (until then they
        # take the FunctionNode path, which is always right).
        F.identity(a)
        no_nodes.clear()
        got = OPS[name](a, b)
    assert got.creator is None and got.requires_grad
    assert type(got.array) is np.ndarray and got.dtype == want.dtype
    np.testing.assert_array_equal(got.array, want.array)
    if name == "bias" and type_check_on:
        assert no_nodes == ["Add"]  # a broadcast is checked by the node
    else:
        assert no_nodes == [], f"{name} made a FunctionNode: {no_nodes}"


def test_requires_grad_follows_the_inputs():
    a, b = _pair()
    c = Variable(b.array, requires_grad=False)
    with kusari.no_backprop_mode():
        assert not (c * c).requires_grad
        assert (c * a).requires_grad
        assert not (c + 1).requires_grad
        assert (-a).requires_grad


@pytest.mark.parametrize(
    "lhs,rhs",
    [
        (np.ones(3, np.float32), np.ones(3, np.float64)),  # dtypes differ
        (np.ones(3, np.float32), np.ones(4, np.float32)),  # shapes do not broadcast
    ],
)
def test_no_backprop_still_type_checks(lhs, rhs):
    with kusari.no_backprop_mode():
        with pytest.raises(type_check.InvalidType):
            Variable(lhs) * Variable(rhs)


def test_no_backprop_division_of_integers_is_checked():
    a = Variable(np.arange(1, 4, dtype=np.int32))
    with kusari.no_backprop_mode():
        with pytest.raises(type_check.InvalidType):
            a / a
        with pytest.raises(type_check.InvalidType):
            2.0 / a


def test_hooks_and_debug_see_every_operation():
    class Count(kusari.FunctionHook):
        name = "count"

        def __init__(self):
            self.seen = []

        def forward_preprocess(self, function, in_data):
            self.seen.append(function.label)

    a, b = _pair()
    with kusari.no_backprop_mode(), Count() as hook:
        a * b + 1.0
    assert hook.seen == ["_ * _", "_ + 1.0"]
    inf = Variable(np.array([np.inf], np.float32))
    zero = Variable(np.zeros(1, np.float32))
    with kusari.no_backprop_mode(), kusari.using_config("debug", True):
        with np.errstate(invalid="ignore"), pytest.raises(RuntimeError, match="NaN"):
            F.identity(inf)  # refreshes the configuration snapshot
            inf * zero


@pytest.fixture
def split_small(monkeypatch):
    """Two threads, and arrays of 16 elements and more count as large."""
    monkeypatch.setattr(threads, "_num_threads", 2)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    # The FunctionNodes read the threshold from their own modules.
    monkeypatch.setattr(_arith_nodes, "BIG", 16)
    monkeypatch.setattr(_div_pow_nodes, "BIG", 16)
    monkeypatch.setattr(_arith_direct, "BIG", 16)
    tasks = []
    original = threads.parallel_for

    def counting(fn, n):
        tasks.append(n)
        original(fn, n)

    monkeypatch.setattr(threads, "parallel_for", counting)
    return tasks


def _forward_backward(name, shape, monkeypatch, n):
    monkeypatch.setattr(threads, "_num_threads", n)
    a, b = _pair(shape, seed=3)
    y = OPS[name](a, b)
    y.grad = np.random.default_rng(4).standard_normal(y.shape).astype(y.dtype)
    y.backward()
    with kusari.no_backprop_mode():
        z = OPS[name](a, b)
    return y.array, z.array, a.grad, None if b.grad is None else b.grad


@pytest.mark.parametrize("name", sorted(OPS))
def test_large_operands_split_exactly(name, split_small, monkeypatch):
    one = _forward_backward(name, (8, 5), monkeypatch, 1)
    assert split_small == []
    many = _forward_backward(name, (8, 5), monkeypatch, 2)
    assert 2 in split_small, "nothing was split"
    for want, got in zip(one, many):
        if want is None:
            assert got is None
        else:
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_small_operands_never_reach_the_pool(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 4)

    def fail(*args):
        pytest.fail("a small operation went to the thread pool")

    monkeypatch.setattr(threads, "elementwise", fail)
    monkeypatch.setattr(threads, "reduce_sum", fail)
    a, b = _pair((64, 64))
    for name in OPS:
        y = OPS[name](a, b)
        F.sum(y).backward()
        with kusari.no_backprop_mode():
            OPS[name](a, b)


def test_large_sum_uses_the_pool(split_small, monkeypatch):
    monkeypatch.setattr(threads, "MIN_ELEMENTS", 16)
    x = np.random.default_rng(2).standard_normal((6, 7)).astype(np.float64)
    monkeypatch.setattr(threads, "_num_threads", 1)
    want = [F.sum(x, axis=1).array, F.sum(x).array, F.mean(x, axis=0).array]
    assert split_small == []
    monkeypatch.setattr(threads, "_num_threads", 2)
    got = [F.sum(x, axis=1).array, F.sum(x).array, F.mean(x, axis=0).array]
    assert split_small.count(2) == 3
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-13)


@pytest.mark.parametrize("name", sorted(set(OPS) - {"bias"}))
def test_first_operation_after_entering_no_backprop_makes_no_node(name, no_nodes):
    a, b = _pair()
    want = OPS[name](a, b)  # graph mode: the snapshot is fresh here
    assert want.creator is not None
    no_nodes.clear()
    with kusari.no_backprop_mode():
        # The snapshot is stale now; the operator must notice by itself.
        got = OPS[name](a, b)
    assert no_nodes == [], f"{name} made a FunctionNode: {no_nodes}"
    assert got.creator is None and got.requires_grad
    np.testing.assert_array_equal(got.array, want.array)
    # And back in graph mode the first operation records its node again.
    again = OPS[name](a, b)
    assert again.creator is not None
