import numpy as np
import pytest

import kusari.functions as F
import kusari.links as L
from kusari_cv.links import PickableSequentialChain


class Counter:
    """A layer that records how often it ran."""

    def __init__(self):
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return x * 2


def make_chain():
    chain = PickableSequentialChain()
    with chain.init_scope():
        chain.l1 = L.Linear(3, 4)
        chain.f1 = F.relu
        chain.l2 = L.Linear(4, 5)
        chain.tail = Counter()
    return chain


X = np.random.default_rng(0).uniform(-1, 1, (2, 3)).astype(np.float32)


def test_layer_names_follow_registration_order():
    chain = make_chain()
    assert chain.layer_names == ["l1", "f1", "l2", "tail"]
    # Non-callables and attributes outside init_scope are not layers.
    with chain.init_scope():
        chain.some_value = 3
    chain.extra = F.relu
    assert chain.layer_names == ["l1", "f1", "l2", "tail"]


def test_default_pick_returns_last_layer():
    chain = make_chain()
    assert chain.pick is None
    y = chain(X)
    h = np.maximum(X @ chain.l1.W.array.T + chain.l1.b.array, 0)
    expect = (h @ chain.l2.W.array.T + chain.l2.b.array) * 2
    np.testing.assert_allclose(y.array, expect, rtol=1e-5, atol=1e-6)


def test_pick_string_returns_one_output_and_stops_early():
    chain = make_chain()
    chain.pick = "f1"
    assert chain.pick == "f1"
    y = chain(X)
    h = np.maximum(X @ chain.l1.W.array.T + chain.l1.b.array, 0)
    np.testing.assert_allclose(y.array, h, rtol=1e-5, atol=1e-6)
    assert chain.tail.calls == 0


def test_pick_sequence_returns_tuple_in_pick_order():
    chain = make_chain()
    chain.pick = ["l2", "l1"]
    assert chain.pick == ("l2", "l1")
    out = chain(X)
    assert isinstance(out, tuple)
    assert [o.shape for o in out] == [(2, 5), (2, 4)]
    chain.pick = ("l1",)  # a one-element sequence still gives a tuple
    (only,) = chain(X)
    assert only.shape == (2, 4)


def test_pick_rejects_unknown_name():
    chain = make_chain()
    with pytest.raises(ValueError, match="invalid layer name.*'nope'"):
        chain.pick = ("l1", "nope")
    assert chain.pick is None


def test_remove_unused_deletes_layers_after_last_pick():
    chain = make_chain()
    chain.pick = ("f1", "l1")
    chain.remove_unused()
    assert chain.layer_names == ["l1", "f1"]
    assert not hasattr(chain, "l2") and not hasattr(chain, "tail")
    names = sorted(name for name, _ in chain.namedparams())
    assert names == ["/l1/W", "/l1/b"]
    assert chain(X)[0].shape == (2, 4)


def test_remove_unused_without_pick_keeps_everything():
    chain = make_chain()
    chain.remove_unused()
    assert chain.layer_names == ["l1", "f1", "l2", "tail"]


def test_deleting_a_picked_layer_is_refused():
    chain = make_chain()
    chain.pick = "l2"
    with pytest.raises(AttributeError, match="registered in pick"):
        del chain.l2
    del chain.tail
    assert chain.layer_names == ["l1", "f1", "l2"]
