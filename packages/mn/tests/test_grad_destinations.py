"""Backward writing gradients into the averaging's buffer: GradBuffer's
destinations and the multi-node optimizer's use of them, on one rank.

Two to three ranks, the ring and double buffering: mpi_scripts/
check_grad_destinations.py (run by test_mpi.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
import kusari_mn
import kusari_mn.optimizers as mn_optimizers
from kusari_mn.communicators._memory_utility import GradBuffer


def _model(seed: int = 0) -> kusari.Chain:
    rng = np.random.default_rng(seed)
    model = kusari.Sequential(L.Linear(3, 4), F.relu, L.Linear(4, 2))
    for p in model.params():
        p.array[...] = rng.standard_normal(p.shape)
        p.grad = rng.standard_normal(p.shape).astype(p.dtype)
    return model


def test_destinations_are_the_views_of_the_last_layout():
    grads = GradBuffer()
    model = _model()
    assert grads.destinations(model) is None  # nothing laid out yet
    params = grads.select(model, True)
    grads.prepare(params)
    pairs = grads.destinations(model)
    assert [p for p, _ in pairs] == [p for _, p in params]
    for (p, view), own in zip(pairs, grads._views, strict=True):
        assert view is own and view.shape == p.shape
    assert grads.destinations(model) is pairs  # kept while nothing changes
    other = _model(1)  # a model the buffer did not average last
    assert grads.destinations(other) is None
    grads.prepare(grads.select(other, True))
    assert grads.destinations(model) is None
    assert grads.destinations(other) is not None


def test_destinations_end_when_a_parameter_gets_another_array():
    grads = GradBuffer()
    model = _model()
    grads.prepare(grads.select(model, True))
    first = next(iter(model.params()))
    pairs = grads.destinations(model)
    first.array = first.array.copy()  # an array like it: the view still fits
    assert grads.destinations(model) is pairs
    first.array = first.array.astype(np.float64)
    assert grads.destinations(model) is None
    first.array = np.zeros((5, 3), np.float32)  # another shape
    assert grads.destinations(model) is None
    grads.prepare(grads.select(model, True))
    assert grads.destinations(model) is not None
    grads.forget_layout()
    assert grads.destinations(model) is None


def _train(use_destinations, double_buffering=False, cleargrads=True, steps=6):
    comm = kusari_mn.create_communicator("flat")
    model = _model(1)
    opt = kusari_mn.create_multi_node_optimizer(
        kusari.optimizers.MomentumSGD(lr=0.1), comm, double_buffering=double_buffering
    )
    opt.setup(model)
    object.__setattr__(opt, "_use_destinations", use_destinations)
    rng = np.random.default_rng(2)
    with warnings.catch_warnings():
        # zerograds before each backward: deprecated, still supported
        warnings.simplefilter("ignore", DeprecationWarning)
        if not cleargrads:
            opt.use_cleargrads(False)
        for _ in range(steps):
            x = rng.standard_normal((5, 3)).astype(np.float32)
            opt.update(lambda x=x: F.sum(model(x) ** 2))
    return model, comm, opt


@pytest.mark.parametrize("double_buffering", [False, True])
@pytest.mark.parametrize("cleargrads", [True, False])
def test_training_into_the_buffer_matches_training_without(
    monkeypatch, double_buffering, cleargrads
):
    calls = []
    original = mn_optimizers.grad_destinations

    def counting(pairs):
        calls.append(len(pairs))
        return original(pairs)

    monkeypatch.setattr(mn_optimizers, "grad_destinations", counting)
    plain, _, _ = _train(False, double_buffering, cleargrads)
    assert calls == []
    into, comm, opt = _train(True, double_buffering, cleargrads)
    # Backward writes into a buffer from the second update on (with double
    # buffering, from the third: each of its two buffers is laid out by one
    # averaging first).
    assert calls == [4] * (4 if double_buffering else 5)
    for (name, a), (_, b) in zip(
        sorted(plain.namedparams()), sorted(into.namedparams()), strict=True
    ):
        np.testing.assert_array_equal(a.array, b.array, err_msg=name)
        np.testing.assert_array_equal(a.grad, b.grad, err_msg=name)
    buffers = opt._buffers if double_buffering else [comm._grads]
    views = {id(v) for g in buffers for v in g._views}
    assert all(id(p.grad) in views for p in into.params())


def test_the_averaging_finds_every_gradient_in_its_view(monkeypatch):
    comm = kusari_mn.create_communicator("flat")
    model = _model(3)
    opt = kusari_mn.create_multi_node_optimizer(kusari.optimizers.SGD(lr=0.0), comm)
    opt.setup(model)
    x = np.ones((2, 3), np.float32)
    opt.update(lambda: F.sum(model(x)))  # lays the buffer out
    seen = []
    original = GradBuffer.load

    def load(self, params, scale=1.0):
        seen.append([p.grad is v for (_, p), v in zip(params, self._views)])
        return original(self, params, scale)

    monkeypatch.setattr(GradBuffer, "load", load)
    ref = model.copy(mode="copy")
    ref.cleargrads()
    F.sum(ref(2 * x)).backward()
    opt.update(lambda: F.sum(model(2 * x)))
    assert seen == [[True] * 4]
    for (name, p), (_, r) in zip(
        sorted(model.namedparams()), sorted(ref.namedparams()), strict=True
    ):
        np.testing.assert_array_equal(p.grad, r.grad, err_msg=name)


def test_switched_off_or_without_a_buffer_backward_hands_out_new_arrays():
    model, comm, opt = _train(False, steps=2)
    views = {id(v) for v in comm._grads._views}
    assert opt._destination_buffer() is None
    object.__setattr__(opt, "_use_destinations", True)
    assert opt._destination_buffer() is comm._grads
    object.__setattr__(comm, "_grads", None)  # a communicator of another kind
    assert opt._destination_buffer() is None
    assert all(id(p.grad) in views for p in model.params())


def _gan_like(monkeypatch, use_destinations):
    """Two models with one optimizer each on one communicator, updated in
    turn (a GAN's pattern); returns the parameters and the pairs handed to
    backward."""
    calls = []
    original = mn_optimizers.grad_destinations
    monkeypatch.setattr(
        mn_optimizers,
        "grad_destinations",
        lambda pairs: calls.append(pairs) or original(pairs),
    )
    comm = kusari_mn.create_communicator("flat")
    gen, dis = _model(4), _model(5)
    opts = []
    for model in (gen, dis):
        opt = kusari_mn.create_multi_node_optimizer(kusari.optimizers.SGD(lr=0.1), comm)
        opt.setup(model)
        object.__setattr__(opt, "_use_destinations", use_destinations)
        opts.append(opt)
    x = np.ones((2, 3), np.float32)
    for _ in range(3):
        for opt, model in zip(opts, (gen, dis), strict=True):
            opt.update(lambda model=model: F.sum(model(x) ** 2))
    return [p.array.copy() for m in (gen, dis) for p in m.params()], calls


def test_two_optimizers_sharing_a_communicator_write_no_other_model(monkeypatch):
    # The buffer's last layout is always the other model's: its views are
    # that model's gradients, which backward must not be given.
    plain, _ = _gan_like(monkeypatch, False)
    into, calls = _gan_like(monkeypatch, True)
    assert calls == []
    for a, b in zip(plain, into, strict=True):
        np.testing.assert_array_equal(a, b)
