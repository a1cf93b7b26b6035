"""FunctionNode.apply under no_backprop_mode: no graph bookkeeping at all."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import FunctionNode, Variable


class TwoOut(FunctionNode):
    """``(x * y, x + y)``, retaining inputs and outputs."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        self.retain_outputs((0,))
        x, y = inputs
        return x * y, x + y

    def backward(self, indexes, grad_outputs):  # pragma: no cover - not reached
        raise AssertionError("no graph: backward must not run")


def _v(*values, requires_grad=True):
    return Variable(np.array(values, np.float32), requires_grad=requires_grad)


def test_outputs_are_leaves_and_inputs_get_no_node():
    x, y = _v(1.0, 2.0), _v(3.0, 4.0)
    f = TwoOut()
    with kusari.no_backprop_mode():
        a, b = f.apply((x, y))
    np.testing.assert_array_equal(a.array, [3.0, 8.0])
    np.testing.assert_array_equal(b.array, [4.0, 6.0])
    for out in (a, b):
        assert out.creator is None and out.creator_node is None
        assert out.requires_grad and out.rank == 0
    # Nothing of the graph was built: no links from the inputs' nodes (the
    # nodes they have had since they were made), no retained arrays.
    assert x.node.creator_node is None and x.node.data is None
    assert y.node.creator_node is None and y.node.data is None
    assert a._node is None and b._node is None
    assert f.inputs is None and f.outputs is None
    assert f._retained_output_data is None
    ref = weakref.ref(f)
    del f
    gc.collect()
    assert ref() is None


def test_requires_grad_is_that_of_the_inputs():
    with kusari.no_backprop_mode():
        y = F.tanh(_v(1.0, requires_grad=False))
        z = F.tanh(_v(1.0))
        (a, b) = TwoOut().apply((np.ones(1, np.float32), _v(2.0, requires_grad=False)))
    assert not y.requires_grad and z.requires_grad
    assert not a.requires_grad and not b.requires_grad


def test_backward_from_an_output_does_nothing():
    x = _v(0.5, 1.5)
    with kusari.no_backprop_mode():
        y = F.sum(F.tanh(x) * x + 1.0)
    y.backward()
    assert x.grad is None
    assert x.grad_var is None


def test_graph_mode_inside_no_backprop_records():
    x = _v(0.5)
    with kusari.no_backprop_mode():
        with kusari.force_backprop_mode():
            y = F.tanh(x) * 2.0
    y.backward()
    np.testing.assert_allclose(x.grad, 2 * (1 - np.tanh(0.5) ** 2), rtol=1e-6)


def test_type_checks_and_input_errors_still_apply():
    with kusari.no_backprop_mode():
        with pytest.raises(kusari.utils.type_check.InvalidType):
            F.tanh(np.arange(3))  # an integer input
        with pytest.raises(TypeError, match="inputs must be Variables or ndarrays"):
            F.tanh([1.0, 2.0])


def test_forward_may_change_the_configuration():
    # Decided before forward: a forward that turns backprop on (as a
    # recomputing function might) does not make its own outputs recorded.
    class Flip(FunctionNode):
        def forward(self, inputs):
            kusari.config.enable_backprop = True
            return (inputs[0] * 2,)

    x = _v(1.0)
    with kusari.no_backprop_mode():  # restores the key on exit
        (y,) = Flip().apply((x,))
        assert y.creator is None
    assert kusari.config.enable_backprop
