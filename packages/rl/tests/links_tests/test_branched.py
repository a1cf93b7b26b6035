"""Tests of kusari_rl.links.Branched."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.links as L
from kusari_rl.links import Branched


def test_every_child_gets_the_same_input_and_outputs_are_in_order():
    a, b = L.Linear(3, 2), L.Linear(3, 5)
    net = Branched(a, b)
    x = np.random.rand(4, 3).astype(np.float32)
    ya, yb = net(x)
    np.testing.assert_allclose(ya.array, a(x).array)
    np.testing.assert_allclose(yb.array, b(x).array)
    assert yb.shape == (4, 5)


def test_keyword_arguments_reach_every_child():
    seen = []

    class Echo(kusari.Link):
        def forward(self, x, scale=1.0):
            seen.append(scale)
            return x * scale

    out = Branched(Echo(), Echo())(np.ones(2, dtype=np.float32), scale=3.0)
    assert seen == [3.0, 3.0]
    assert [o.tolist() for o in out] == [[3.0, 3.0], [3.0, 3.0]]


def test_parameters_are_registered_and_trained():
    net = Branched(L.Linear(2, 1), L.Linear(2, 1))
    assert len(list(net.params())) == 4
    opt = kusari.optimizers.SGD(0.1)
    opt.setup(net)
    before = [p.array.copy() for p in net.params()]
    y1, y2 = net(np.ones((1, 2), dtype=np.float32))
    opt.update(lambda: kusari.functions.sum(y1 + y2))
    assert all(not np.array_equal(b, p.array) for b, p in zip(before, net.params()))


def test_bad_children_are_rejected():
    with pytest.raises(ValueError, match="Branched: expected at least one"):
        Branched()
    with pytest.raises(TypeError, match="Branched: child 1 must be a kusari.Link"):
        Branched(L.Linear(2, 1), lambda x: x)
