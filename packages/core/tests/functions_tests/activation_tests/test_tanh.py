import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.activation.tanh import TanhGrad
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 4), ()])
def test_tanh(shape, float_dtype, device):
    check_op(F.tanh, np.tanh, [shape], dtype=float_dtype, device=device)


def test_tanh_backward_is_one_node():
    x = kusari.Variable(np.array([0.3, -0.2], np.float64))
    y = F.tanh(x)
    (gx,) = kusari.grad(
        [y], [x], grad_outputs=[np.ones(2)], enable_double_backprop=True
    )
    assert isinstance(gx.creator, TanhGrad)
    np.testing.assert_allclose(gx.array, 1 - np.tanh(x.array) ** 2)


def test_tanh_int_input():
    with pytest.raises(type_check.InvalidType):
        F.tanh(np.zeros(3, np.int32))


# -- F.tanh on a Variable with nothing recording: computed on the array -------


@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("shape", [(4,), ()])
def test_tanh_without_a_graph_makes_no_node(requires_grad, shape, monkeypatch):
    from kusari.functions.activation import tanh as tanh_module

    def no_node(*args):
        raise AssertionError("no FunctionNode without a graph")

    monkeypatch.setattr(tanh_module.Tanh, "forward", no_node)
    data = np.linspace(-1, 1, 4, dtype=np.float32)
    x = kusari.Variable(
        data[:1].reshape(()) if shape == () else data, requires_grad=requires_grad
    )
    with kusari.no_backprop_mode():
        y = F.tanh(x)
    assert type(y.array) is np.ndarray and y.shape == shape
    assert y.dtype == np.float32 and y.requires_grad == requires_grad
    assert y.creator is None
    np.testing.assert_array_equal(y.array, np.tanh(x.array))


def test_tanh_without_a_graph_still_checks_and_observes():
    with kusari.no_backprop_mode():
        with pytest.raises(type_check.InvalidType, match="Tanh"):
            F.tanh(kusari.Variable(np.zeros(3, np.int32)))
        seen = []

        class Spy(kusari.FunctionHook):
            name = "spy"

            def forward_preprocess(self, function, in_data):
                seen.append(function.label)

        with Spy():
            y = F.tanh(kusari.Variable(np.zeros(3, np.float32)))
        assert seen == ["Tanh"] and y.creator is None
        with kusari.using_config("debug", True):
            with pytest.raises(RuntimeError, match="NaN"):
                F.tanh(kusari.Variable(np.full(3, np.nan, np.float32)))
