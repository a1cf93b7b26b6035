"""FunctionNode behaviour that Chainer v7's own tests rely on."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

import kusari
from kusari import FunctionNode, Variable
from kusari._variable_node import BackwardGradientError
from kusari.utils import type_check


def _x(*values: float) -> Variable:
    return Variable(np.array(values, np.float32))


def test_base_class_instance_with_mocked_methods_runs_its_type_check() -> None:
    f = FunctionNode()
    f.check_type_forward = mock.MagicMock()  # type: ignore[method-assign]
    f.forward_cpu = mock.MagicMock(  # type: ignore[method-assign]
        return_value=(np.ones(2, np.float32),)
    )
    (y,) = f.apply((_x(1.0, 2.0), np.zeros(2, np.int32)))
    assert f.check_type_forward.call_count == 1
    (types,) = f.check_type_forward.call_args[0]
    assert isinstance(types, type_check.LightTypeInfoTuple)
    assert [t.dtype for t in types] == [np.float32, np.int32]
    assert y.creator_node is f


class _Double(FunctionNode):
    def forward(self, inputs):  # type: ignore[no-untyped-def]
        return (inputs[0] * 2,)

    def backward(self, indexes, grad_outputs):  # type: ignore[no-untyped-def]
        return (grad_outputs[0] * 2,)


def test_a_function_object_applied_again_after_backward_backprops_again() -> None:
    # backward frees what the first application kept; a second application
    # of the same object records afresh and must not be taken as freed.
    f = _Double()
    for _ in range(2):
        x = _x(1.0)
        (y,) = f.apply((x,))
        y.backward()
        np.testing.assert_array_equal(x.grad, [2.0])


def test_backward_through_a_freed_application_still_raises() -> None:
    x = _x(1.0)
    (y,) = _Double().apply((x,))
    z = y * 1.0
    z.backward()
    with pytest.raises(RuntimeError, match="freed"):
        z.backward()


class _Returns(FunctionNode):
    def __init__(self, result):  # type: ignore[no-untyped-def]
        self.result = result

    def forward(self, inputs):  # type: ignore[no-untyped-def]
        return (inputs[0] * 1,)

    def backward(self, indexes, grad_outputs):  # type: ignore[no-untyped-def]
        return self.result


@pytest.mark.parametrize(
    "result,words",
    [
        ((), "number of gradients returned from backward is incorrect: 0"),
        (
            (_x(1.0), _x(1.0)),
            "number of gradients returned from backward is incorrect: 2",
        ),
        ((_x(1.0, 2.0),), "shape of gradients returned from backward is incorrect"),
        (
            (Variable(np.array([1], np.int64)),),
            "dtype of gradients returned from backward is incorrect",
        ),
        (np.ones(1, np.float32), "type of gradients returned from backward"),
        ((np.ones(1, np.float32),), "type of gradients returned from backward"),
    ],
)
def test_bad_gradients_are_reported_in_chainers_words(result, words) -> None:  # type: ignore[no-untyped-def]
    (y,) = _Returns(result).apply((_x(1.0),))
    with pytest.raises(BackwardGradientError, match=words) as info:
        y.backward()
    # Chainer raised ValueError; kusari raised TypeError for types and dtypes.
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_add_hook_and_delete_hook_on_one_function() -> None:
    hook = kusari.function_hooks.TimerHook()
    f = _Double()
    f.add_hook(hook)
    assert f.local_function_hooks["TimerHook"] is hook
    assert f._n_local_function_hooks == 1
    with pytest.raises(KeyError, match="already exists"):
        f.add_hook(hook)
    f.apply((_x(1.0),))
    assert len(hook.call_history) == 1
    f.delete_hook("TimerHook")
    assert f._n_local_function_hooks == 0
