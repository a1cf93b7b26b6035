"""kusari.parameter: Parameter in its own module, and its old import paths."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import kusari
from kusari import parameter, variable


def test_parameter_lives_in_its_module_and_keeps_old_names() -> None:
    assert kusari.Parameter is parameter.Parameter
    assert variable.Parameter is parameter.Parameter
    from kusari.variable import Parameter

    assert Parameter is parameter.Parameter
    assert variable._recover_parameter is parameter._recover_parameter


def test_unknown_variable_attribute_still_raises() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        variable.Nope  # noqa: B018


def test_pickled_parameter_round_trips() -> None:
    p = kusari.Parameter(np.arange(3, dtype=np.float32), name="w")
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is kusari.Parameter
    np.testing.assert_array_equal(q.array, p.array)
    assert q.name == "w"


def test_addgrad_initializes_a_lazy_parameter_but_not_a_variable() -> None:
    src = kusari.Variable(np.ones(2, np.float32))
    src.grad = np.full(2, 3, np.float32)
    lazy = kusari.Parameter(kusari.initializers.Zero())
    lazy.addgrad(src)
    assert lazy.shape == (2,)
    plain = kusari.Variable(None)
    with pytest.raises(RuntimeError, match="addgrad"):
        plain.addgrad(src)


def test_gradients_of_parameters_made_three_ways() -> None:
    # As in Chainer: from an array, no gradient yet; with a shape, a NaN
    # gradient; lazily, a NaN gradient when initialized.
    from_array = kusari.Parameter(np.ones(3, np.float32))
    assert from_array.grad is None
    with_shape = kusari.Parameter(kusari.initializers.One(), (2,))
    assert np.isnan(with_shape.grad).all()
    lazy = kusari.Parameter()
    lazy.initialize((2,))
    assert np.isnan(lazy.grad).all()


def test_reinitializing_a_parameter_made_with_data_leaves_no_gradient() -> None:
    p = kusari.Parameter(shape=(2, 3))
    p.initializer = kusari.initializers.Normal()
    p.initialize(p.shape)
    assert p.grad is None and not np.isnan(p.array).any()
    # A lazily made one still gets its NaN gradient back.
    lazy = kusari.Parameter()
    lazy.initialize((2,))
    lazy.initialize((3,))
    assert lazy.grad.shape == (3,) and np.isnan(lazy.grad).all()


def test_a_numpy_device_the_parameter_was_sent_to_is_reported() -> None:
    # A user's device over NumPy arrays (Chainer's tests build one to check
    # that updaters pass the device on) stays the parameter's device.
    class TaggedCpu(kusari.backend.CpuDevice):
        pass

    tagged = TaggedCpu()
    p = kusari.Parameter(np.zeros(3, np.float32))
    assert isinstance(p.device, kusari.backend.CpuDevice)
    p.to_device(tagged)
    assert p.device is tagged
    link = kusari.links.Linear(2, 3)
    link.to_device(tagged)
    assert link.W.device is tagged and link.b.device is tagged
