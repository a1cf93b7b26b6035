"""FunctionNode's parts off the hot path (kusari._function_node_support):
``_impl_name``, and the checks and hooks ``apply`` binds as methods."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import FunctionHook, FunctionNode, Variable, function_node
from kusari.function import FunctionAdapter
from kusari.utils import type_check


class Twice(FunctionNode):
    @property
    def label(self):
        return "twice (a label that is not the class name)"

    def forward(self, inputs):
        return (inputs[0] * 2,)


class OldTwice(kusari.Function):
    def forward(self, inputs):
        return (inputs[0] * 2,)

    def backward(self, inputs, grad_outputs):
        return (grad_outputs[0] * 2,)


class RecordImplName(FunctionHook):
    """What Chainer's TimerHook reads to name each call."""

    name = "record_impl_name"

    def __init__(self):
        self.names = []

    def forward_preprocess(self, function, in_data):
        self.names.append(function._impl_name)


def _x():
    return Variable(np.arange(3, dtype=np.float32))


def test_impl_name_is_the_class_name_not_the_label():
    y = Twice().apply((_x(),))[0]
    assert y.creator._impl_name == "Twice"
    assert y.creator.label != "Twice"
    assert F.relu(_x()).creator._impl_name == "ReLU"


def test_impl_name_of_an_old_style_function_is_the_wrapped_class():
    y = OldTwice()(_x())
    adapter = y.creator_node
    assert type(adapter) is FunctionAdapter
    assert adapter._impl_name == "OldTwice"


def test_impl_name_of_an_adapter_whose_function_is_gone():
    # The adapter refers weakly to a Function it was never applied for.
    adapter = FunctionAdapter(OldTwice())
    assert adapter.function is None
    assert adapter._impl_name == "FunctionAdapter"


def test_hooks_see_impl_names():
    hook = RecordImplName()
    with hook:
        x = _x()
        Twice().apply((x,))
        OldTwice()(x)
        F.tanh(x)
    assert hook.names == ["Twice", "OldTwice", "Tanh"]


def test_impl_name_is_read_only():
    with pytest.raises(AttributeError):
        Twice()._impl_name = "other"


def test_off_path_helpers_are_bound_as_methods():
    # apply calls them as methods: the same functions, bound like any other.
    node = Twice()
    assert node._check_data_type_forward.__self__ is node
    assert node.get_retained_outputs.__self__ is node
    assert node._all_hooks() == []
    with pytest.raises(TypeError, match="inputs must be Variables or ndarrays"):
        node.apply(([1.0, 2.0],))


def test_type_check_failure_still_names_the_function():
    class NeedsFloat(FunctionNode):
        def check_type_forward(self, in_types):
            type_check.expect(in_types[0].dtype.kind == "f")

        def forward(self, inputs):
            return (inputs[0],)

    with pytest.raises(type_check.InvalidType, match="NeedsFloat"):
        NeedsFloat().apply((np.arange(3),))


def test_grad_is_still_importable_from_function_node():
    assert function_node.grad is kusari.grad
    x = Variable(np.array([3.0], np.float32))
    (gx,) = function_node.grad([x * x], [x])
    np.testing.assert_array_equal(gx.array, [6.0])
