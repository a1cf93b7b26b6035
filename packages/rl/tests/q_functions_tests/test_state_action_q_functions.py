import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_rl.q_function import StateActionQFunction
from kusari_rl.q_functions import (
    FCBNLateActionSAQFunction,
    FCBNSAQFunction,
    FCLateActionSAQFunction,
    FCSAQFunction,
    SingleModelStateActionQFunction,
)

CLASSES = [
    FCSAQFunction,
    FCBNSAQFunction,
    FCLateActionSAQFunction,
    FCBNLateActionSAQFunction,
]


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("n_layers", [1, 3])
def test_shapes_gradients_and_interface(cls, n_layers):
    q = cls(3, 2, n_hidden_channels=8, n_hidden_layers=n_layers)
    assert isinstance(q, StateActionQFunction)
    s = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    a = kusari.Variable(np.random.default_rng(1).normal(size=(5, 2)).astype(np.float32))
    y = q(s, a)
    assert y.shape == (5, 1) and y.dtype == np.float32
    F.sum(y).backward()
    # The action gradient is what DDPG/TD3/SAC's actors climb.
    assert a.grad is not None and np.abs(a.grad).sum() > 0
    assert all(p.grad is not None for p in q.params())


def test_fcsaq_matches_numpy_forward():
    q = FCSAQFunction(2, 1, n_hidden_channels=4, n_hidden_layers=2, nonlinearity=F.tanh)
    s = np.array([[0.5, -1.0], [2.0, 0.0]], np.float32)
    a = np.array([[0.3], [-0.7]], np.float32)
    h = np.concatenate([s, a], axis=1)
    for layer in list(q)[:-1]:
        h = np.tanh(h @ layer.W.array.T + layer.b.array)
    expected = h @ q.output.W.array.T + q.output.b.array
    np.testing.assert_allclose(q(s, a).array, expected, rtol=1e-5, atol=1e-6)


def test_late_action_joins_action_after_first_layer():
    q = FCLateActionSAQFunction(2, 1, n_hidden_channels=4, n_hidden_layers=2)
    assert q.obs_mlp.output.W.shape == (4, 2)  # state only
    assert q.mlp.hidden_layers[0].W.shape == (4, 5)  # hidden + action


def test_last_wscale_shrinks_initial_outputs():
    np.random.seed(0)
    small = FCSAQFunction(3, 1, 32, 2, last_wscale=1e-3)
    assert np.abs(small.output.W.array).max() < 1e-2


def test_single_model_wrapper():
    class Sum(kusari.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = L.Linear(3, 1)

        def forward(self, x, a):
            return self.l(F.concat((x, a), axis=1))

    q = SingleModelStateActionQFunction(Sum())
    assert q(np.ones((2, 2), np.float32), np.ones((2, 1), np.float32)).shape == (2, 1)
    assert len(list(q.params())) == 2


@pytest.mark.parametrize("cls", CLASSES)
def test_bad_sizes(cls):
    with pytest.raises(ValueError, match=cls.__name__):
        cls(3, 1, 8, 0)
    with pytest.raises(ValueError, match="n_dim_action"):
        cls(3, 0, 8, 1)
