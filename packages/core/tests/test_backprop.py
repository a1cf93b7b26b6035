"""kusari._backprop: the phases of a backward pass, one by one."""

from __future__ import annotations

import heapq

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import _backprop, _backprop_steps


def _v(*values: float) -> kusari.Variable:
    return kusari.Variable(np.array(values, dtype=np.float32))


def test_seed_queues_the_creator_and_orders_by_rank() -> None:
    x = _v(1.0, 2.0)
    h = x * 2.0  # rank 0 function
    y = F.sum(h * h)  # rank 1, then rank 2
    bp = _backprop.BackwardPass(False, False, None)
    bp.seed([y.node], [kusari.Variable(np.ones((), np.float32))])
    assert [f for _, _, f in bp.heap] == [y.creator_node]
    ranks = []
    while bp.heap:
        func = heapq.heappop(bp.heap)[2]
        ranks.append(func.rank)
        bp.run_node(func)
    assert ranks == sorted(ranks, reverse=True)
    grads = bp.hand_out(set_leaf_grads=True)
    assert grads == {}
    np.testing.assert_allclose(x.grad, 8 * x.array)


def test_accumulate_sums_contributions_without_touching_the_first() -> None:
    x = _v(1.0, 2.0)
    first = np.ones(2, np.float32)
    y = x * 3.0 + x * 5.0
    y.grad = first
    y.backward()
    np.testing.assert_allclose(x.grad, [8.0, 8.0])
    np.testing.assert_array_equal(first, [1.0, 1.0])  # the seed is not mutated


def test_hand_out_adds_to_an_existing_leaf_gradient() -> None:
    x = _v(1.0)
    F.sum(x * 2.0).backward()
    F.sum(x * 3.0).backward()
    np.testing.assert_allclose(x.grad, [5.0])


def test_stop_nodes_are_leaves_and_results_come_back() -> None:
    x = _v(2.0)
    h = x * x
    (gh,) = kusari.grad([F.sum(h * 3.0)], [h])
    np.testing.assert_allclose(gh.array, [3.0])
    assert x.grad is None


def test_freed_graph_refuses_a_second_pass() -> None:
    x = _v(1.0)
    y = F.sum(x * x)
    y.backward()
    with pytest.raises(RuntimeError, match="freed by an earlier backward"):
        y.backward()


def test_config_can_keep_the_graph_for_a_second_pass() -> None:
    # Chainer keeps retained arrays until the graph is dropped; code that
    # backprops twice through one graph (DCGAN's updater) turns freeing off.
    x = _v(1.0, 2.0)
    y = F.sum(F.exp(x) * 3)
    with kusari.using_config("free_graph_in_backward", False):
        y.backward()
        y.backward()
    np.testing.assert_allclose(x.grad, 2 * 3 * np.exp([1.0, 2.0]), rtol=1e-6)
    # Outside the switch the default frees again.
    z = F.sum(x * x)
    z.backward()
    with pytest.raises(RuntimeError, match="freed by an earlier backward"):
        z.backward()


def test_backward_returning_a_non_variable_is_named() -> None:
    class Bad(kusari.FunctionNode):
        def forward(self, xs):  # type: ignore[no-untyped-def]
            return (xs[0] * 1,)

        def backward(self, indexes, gys):  # type: ignore[no-untyped-def]
            return (np.ones(1, np.float32),)

    x = _v(1.0)
    (y,) = Bad().apply((x,))
    with pytest.raises(TypeError, match="Bad.backward returned ndarray"):
        F.sum(y).backward()


def test_backward_variable_needs_a_gradient_for_non_scalars() -> None:
    x = _v(1.0, 2.0)
    with pytest.raises(ValueError, match="gradient is ambiguous"):
        (x * 2.0).backward()


def test_backward_from_an_integer_output_does_nothing() -> None:
    # argmax's indexes carry no gradient: Chainer's backward is a no-op
    # there, where a float output of the same shape is an error.
    x = kusari.Variable(np.array([[1.0, 3.0], [4.0, 2.0]], np.float32))
    y = F.argmax(x * 2.0, axis=1)
    assert y.creator is not None and y.dtype.kind == "i"
    y.backward()
    assert x.grad is None and y.grad is None


def test_retain_grad_keeps_intermediate_gradients() -> None:
    x = _v(1.0, 2.0)
    h = x * 2.0
    F.sum(h * h).backward(retain_grad=True)
    np.testing.assert_allclose(h.grad, 2 * h.array)


def test_lazy_grad_sum_gives_the_same_result() -> None:
    x = _v(1.0, 2.0)
    with kusari.using_config("lazy_grad_sum", True):
        F.sum(x * 3.0 + x * 5.0).backward()
    np.testing.assert_allclose(x.grad, [8.0, 8.0])


def test_large_gradients_are_summed_over_the_threads(monkeypatch) -> None:
    from kusari.utils import threads

    x = kusari.Variable(np.random.default_rng(0).standard_normal((6, 5)))

    def grads(n: int) -> np.ndarray:
        monkeypatch.setattr(threads, "_num_threads", n)
        x.cleargrad()
        y = F.tanh(x)
        # y feeds two branches (and three): its gradients are added up.
        F.sum(F.sin(y) + F.exp(y) * 2.0 + y).backward()
        return x.grad

    one = grads(1)
    monkeypatch.setattr(_backprop_steps, "_BIG", 16)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    calls = []
    original = threads.elementwise

    def counting(*args):
        calls.append(args[0])
        return original(*args)

    monkeypatch.setattr(threads, "elementwise", counting)
    np.testing.assert_array_equal(grads(2), one)
    assert np.add in calls
