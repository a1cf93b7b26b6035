"""GradBuffer.select keeps its walk of a model while the model's parameter
set stays the same (``Link.param_set_version``), and only then."""

import gc

import numpy as np

import kusari
import kusari.links as L
from kusari_mn.communicators._memory_utility import GradBuffer


class CountingChain(kusari.Chain):
    """A chain that counts the walks of its parameters."""

    walks = 0

    def namedparams(self, include_uninit=True):
        type(self).walks += 1
        return super().namedparams(include_uninit)


def _model():
    model = CountingChain()
    with model.init_scope():
        model.fc = L.Linear(3, 2)
        model.layers = kusari.ChainList(L.Linear(2, 2))
    for p in model.params():
        p.grad = np.ones(p.shape, p.dtype)
    CountingChain.walks = 0
    return model


def _names(selected):
    return [name for name, _ in selected]


def test_unchanged_model_is_walked_once():
    grads = GradBuffer()
    model = _model()
    first = grads.select(model, zero_fill=False)
    for _ in range(3):
        assert grads.select(model, zero_fill=False) == first
    assert CountingChain.walks == 1
    assert _names(first) == ["/fc/W", "/fc/b", "/layers/0/W", "/layers/0/b"]


def test_every_structural_change_is_seen():
    grads = GradBuffer()
    model = _model()
    grads.select(model, True)
    model.layers.append(L.Linear(2, 4))
    assert "/layers/1/W" in _names(grads.select(model, True))
    del model.layers[-1]
    assert "/layers/1/W" not in _names(grads.select(model, True))
    with model.fc.init_scope():
        model.fc.c = kusari.Parameter(np.zeros(2, np.float32))
    assert "/fc/c" in _names(grads.select(model, True))
    del model.fc.c
    assert "/fc/c" not in _names(grads.select(model, True))
    assert CountingChain.walks == 5


def test_initialization_and_grads_are_looked_at_every_call():
    grads = GradBuffer()
    model = _model()
    with model.init_scope():
        model.lazy = L.Linear(None, 2)
    assert "/lazy/W" not in _names(grads.select(model, True))
    model.lazy(np.ones((1, 3), np.float32))
    assert "/lazy/W" in _names(grads.select(model, True))
    model.fc.b.grad = None
    assert "/fc/b" not in _names(grads.select(model, False))
    assert "/fc/b" in _names(grads.select(model, True))
    assert CountingChain.walks == 1


def test_another_model_or_a_dead_one_is_walked_again():
    grads = GradBuffer()
    a, b = _model(), _model()
    CountingChain.walks = 0
    grads.select(a, True)
    grads.select(b, True)
    grads.select(a, True)
    assert CountingChain.walks == 3  # (one counter for both models)
    del a, b
    gc.collect()
    assert grads._walk[0]() is None  # the buffer kept no model alive


def test_a_model_without_a_version_is_walked_every_time():
    class Duck:
        walks = 0

        def namedparams(self, include_uninit=True):
            Duck.walks += 1
            return iter([("/w", kusari.Parameter(np.zeros(2, np.float32)))])

    grads = GradBuffer()
    duck = Duck()
    grads.select(duck, True)
    grads.select(duck, True)
    assert Duck.walks == 2
