"""kusari._backprop_pass: the state of a backward pass, in a module of its own."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
from kusari import _backprop, _backprop_pass
from kusari._backprop_pass import target_indexes


def test_backward_pass_is_still_importable_from_backprop() -> None:
    assert _backprop.BackwardPass is _backprop_pass.BackwardPass


def _nodes(*requires_grad: bool) -> tuple[kusari.VariableNode, ...]:
    return tuple(
        kusari.Variable(np.zeros(1, np.float32), requires_grad=r).node
        for r in requires_grad
    )


@pytest.mark.parametrize(
    "requires_grad,want",
    [
        ((True,), (0,)),
        ((False,), ()),
        ((True, True), (0, 1)),
        ((True, False), (0,)),
        ((False, True), (1,)),
        ((False, False), ()),
        ((False, True, True), (1, 2)),
        ((), ()),
    ],
)
def test_target_indexes_are_the_inputs_that_need_a_gradient(
    requires_grad, want
) -> None:
    assert target_indexes(_nodes(*requires_grad)) == want


def test_functions_of_equal_rank_leave_the_queue_in_the_order_queued() -> None:
    x = kusari.Variable(np.ones(2, np.float32))
    ys = [x * float(i) for i in range(1, 5)]  # four functions of rank 0
    bp = _backprop_pass.BackwardPass(False, False, None)
    for y in reversed(ys):
        bp._add_initial(y.node, kusari.Variable(np.ones(2, np.float32)))
        bp.schedule(y.node)
    order = [f for _, _, f in sorted(bp.heap)]
    assert order == [y.creator_node for y in reversed(ys)]


def test_first_leaf_grad_enters_the_table_and_remembers_the_leaf() -> None:
    x = kusari.Variable(np.ones(2, np.float32))
    bp = _backprop_pass.BackwardPass(False, False, None)
    g = np.full(2, 3.0, np.float32)
    bp.first_leaf_grad(x.node, g)
    assert bp.grads[x.node] is g and bp.leaves == [x.node] and not bp.heap
    bp.hand_out(set_leaf_grads=True)
    np.testing.assert_array_equal(x.grad, g)


def test_first_leaf_grad_fills_a_destination() -> None:
    x = kusari.Variable(np.ones(2, np.float32))
    dest = np.zeros(2, np.float32)
    bp = _backprop_pass.BackwardPass(False, False, None, destinations={x.node: dest})
    bp.first_leaf_grad(x.node, np.full(2, 5.0, np.float32))
    assert bp.grads[x.node] is dest and x.node in bp.owned
    np.testing.assert_array_equal(dest, [5.0, 5.0])
