"""kusari._backprop: the phases of a backward pass, one by one."""

from __future__ import annotations

import contextlib
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


# -- gradient destinations (kusari.grad_destinations) -------------


def _mlp_grads(dests: bool, steps: int = 3) -> tuple[list[np.ndarray], list[bool]]:
    """Gradients of a small MLP after ``steps`` cleargrads + backward, with
    or without destinations; and whether each grad was its destination."""
    import kusari.links as L

    rng = np.random.default_rng(0)
    model = kusari.Sequential(L.Linear(4, 5), F.relu, L.Linear(5, 3))
    for p in model.params():
        p.array[...] = rng.standard_normal(p.shape)
    outs = [np.full(p.shape, np.nan, p.dtype) for p in model.params()]
    for _ in range(steps):
        x = rng.standard_normal((6, 4)).astype(np.float32)
        model.cleargrads()
        loss = F.sum(model(x) ** 2)
        if dests:
            with _backprop.grad_destinations(zip(model.params(), outs)):
                loss.backward()
        else:
            loss.backward()
    return [p.grad for p in model.params()], [
        p.grad is o for p, o in zip(model.params(), outs)
    ]


def test_destinations_receive_the_gradients_bit_for_bit() -> None:
    plain, was_plain = _mlp_grads(False)
    into, was_dest = _mlp_grads(True)
    assert not any(was_plain) and all(was_dest)
    for a, b in zip(plain, into):
        np.testing.assert_array_equal(a, b)


def test_destinations_collect_several_contributions_in_place() -> None:
    x = _v(1.0, 2.0)
    out = np.zeros(2, np.float32)
    with _backprop.grad_destinations([(x, out)]):
        F.sum(x * 3.0 + x * 5.0 + x * x).backward()
    assert x.grad is out
    np.testing.assert_allclose(out, [10.0, 12.0])


def test_an_old_gradient_elsewhere_is_added_and_left_alone() -> None:
    x = _v(1.0, 2.0)
    old = np.array([10.0, 20.0], np.float32)
    x.grad = old
    out = np.full(2, np.nan, np.float32)
    with _backprop.grad_destinations([(x, out)]):
        F.sum(x * 3.0 + x * 5.0).backward()
    assert x.grad is out
    np.testing.assert_array_equal(out, [18.0, 28.0])
    np.testing.assert_array_equal(old, [10.0, 20.0])


@pytest.mark.parametrize("same_object", [True, False])
def test_an_old_gradient_in_the_destination_accumulates(same_object) -> None:
    # zerograds, or two backward passes before one update: the destination
    # holds the old gradient (as that very array or as another view of it)
    x = _v(1.0, 2.0)
    out = np.array([10.0, 20.0], np.float32)
    x.grad = out if same_object else out[:]
    with _backprop.grad_destinations([(x, out)]):
        F.sum(x * 3.0).backward()
        F.sum(x * x).backward()
    assert x.grad is out
    np.testing.assert_array_equal(out, [15.0, 27.0])


def test_a_variable_without_gradient_keeps_its_grad_and_destination() -> None:
    x, unused = _v(1.0), _v(5.0)
    out = np.full(1, 7.0, np.float32)
    with _backprop.grad_destinations([(x, np.zeros(1, np.float32)), (unused, out)]):
        F.sum(x * 2.0).backward()
    assert unused.grad is None
    np.testing.assert_array_equal(out, [7.0])


def test_destinations_end_with_the_block_and_nest() -> None:
    x = _v(1.0)
    outer, inner = np.zeros(1, np.float32), np.zeros(1, np.float32)
    with _backprop.grad_destinations([(x, outer)]):
        with _backprop.grad_destinations([(x, inner)]):
            x.cleargrad()
            F.sum(x * 2.0).backward()
            assert x.grad is inner
        x.cleargrad()
        F.sum(x * 3.0).backward()
        assert x.grad is outer
    x.cleargrad()
    F.sum(x * 4.0).backward()
    assert x.grad is not outer and x.grad is not inner
    np.testing.assert_array_equal(x.grad, [4.0])
    np.testing.assert_array_equal(outer, [3.0])
    np.testing.assert_array_equal(inner, [2.0])


def test_passes_that_do_not_store_leaf_gradients_ignore_destinations() -> None:
    x = _v(2.0)
    out = np.full(1, np.nan, np.float32)
    with _backprop.grad_destinations([(x, out)]):
        (gx,) = kusari.grad([F.sum(x * x)], [x])  # returned, not stored
        assert gx.array is not out and x.grad is None
        F.sum(x * x).backward(enable_double_backprop=True)
        assert x.grad is not out
        np.testing.assert_array_equal(x.grad, [4.0])
        x.cleargrad()
        with kusari.using_config("lazy_grad_sum", True):
            F.sum(x * 3.0 + x * 5.0).backward()
        assert x.grad is not out
        np.testing.assert_array_equal(x.grad, [8.0])
    assert np.isnan(out).all()


def test_kusari_backward_uses_destinations() -> None:
    x = _v(1.0, 2.0)
    out = np.zeros(2, np.float32)
    with _backprop.grad_destinations([(x, out)]):
        kusari.backward([x * 2.0, x * 3.0], [_v(1.0, 1.0), _v(1.0, 1.0)])
    assert x.grad is out
    np.testing.assert_array_equal(out, [5.0, 5.0])


@pytest.mark.parametrize(
    ("var", "dest", "error", "words"),
    [
        (np.zeros(2, np.float32), np.zeros(2, np.float32), TypeError, "got a ndarray"),
        (_v(1.0, 2.0), np.zeros(3, np.float32), ValueError, "shape (2,)"),
        (_v(1.0, 2.0), np.zeros(2, np.float64), ValueError, "dtype float32"),
        (_v(1.0, 2.0), [0.0, 0.0], TypeError, "must be a ndarray like its array"),
        (kusari.Parameter(), np.zeros(2, np.float32), ValueError, "no array yet"),
    ],
)
def test_bad_destinations_are_named(var, dest, error, words) -> None:
    with pytest.raises(error, match="grad_destinations") as info:
        with _backprop.grad_destinations([(var, dest)]):
            pass
    assert words in str(info.value)


def test_a_read_only_destination_is_refused() -> None:
    out = np.zeros(2, np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="grad_destinations: .* read-only"):
        with _backprop.grad_destinations([(_v(1.0, 2.0), out)]):
            pass


# -- the fused loop of a plain first-order pass (_backprop._run_arrays) -------


def _spy_fast_loop(monkeypatch) -> list[object]:
    calls: list[object] = []
    real = _backprop._run_arrays
    monkeypatch.setattr(
        _backprop, "_run_arrays", lambda bp: calls.append(bp) or real(bp)
    )
    return calls


def _chain_grads(**backward_kwargs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    x, w, b = (
        kusari.Variable(rng.standard_normal(4).astype(np.float32)) for _ in "xwb"
    )
    h = x
    for _ in range(5):
        h = F.tanh(h * w + b) * 0.5
    h.grad = np.ones(4, np.float32)
    h.backward(**backward_kwargs)
    return x.grad, w.grad, b.grad


@pytest.mark.parametrize(
    "setting,taken",
    [
        ("plain", True),
        ("retain_grad", False),
        ("double", False),
        ("debug", False),
        ("hook", False),
        ("lazy", False),
    ],
)
def test_fast_loop_runs_only_where_nothing_watches(monkeypatch, setting, taken) -> None:
    general = _chain_grads(retain_grad=True)  # the per-phase methods
    calls = _spy_fast_loop(monkeypatch)
    kwargs = {
        "retain_grad": setting == "retain_grad",
        "enable_double_backprop": setting == "double",
    }
    with contextlib.ExitStack() as stack:
        if setting == "debug":
            stack.enter_context(kusari.using_config("debug", True))
        if setting == "lazy":
            stack.enter_context(kusari.using_config("lazy_grad_sum", True))
        if setting == "hook":
            stack.enter_context(kusari.function_hooks.TimerHook())
        got = _chain_grads(**kwargs)
    assert bool(calls) == taken
    for g, want in zip(got, general):
        np.testing.assert_array_equal(g, want)


def test_fast_loop_serves_kusari_grad_with_stop_nodes(monkeypatch) -> None:
    calls = _spy_fast_loop(monkeypatch)
    x = _v(1.0, 2.0)
    h = x * x
    (gh,) = kusari.grad([F.sum(F.tanh(h) * 3.0)], [h])
    assert len(calls) == 1  # h stops the pass
    t = np.tanh(h.array)
    np.testing.assert_allclose(gh.array, 3.0 * (1 - t * t), rtol=1e-6)
    assert x.grad is None
    # An input with another input behind it is captured: the general loop.
    (gh2, gx) = kusari.grad([F.sum(F.tanh(h) * 3.0)], [h, x])
    assert len(calls) == 1
    np.testing.assert_allclose(gh2.array, gh.array)
    np.testing.assert_allclose(gx.array, gh.array * 2 * x.array, rtol=1e-6)


class _NoArrayBackward(kusari.FunctionNode):
    """3 * x with a Variable backward only: run_node's path inside the loop."""

    def forward(self, inputs):
        return (inputs[0] * 3,)

    def backward(self, indexes, grad_outputs):
        return (grad_outputs[0] * 3.0,)


class _Halves(kusari.FunctionNode):
    """Two outputs (x / 2 twice): multi-output functions leave the loop too."""

    def forward(self, inputs):
        return (inputs[0] / 2, inputs[0] / 2)

    def backward_array(self, indexes, grad_outputs):
        total = sum(g for g in grad_outputs if g is not None)
        return (total / 2,)

    def backward(self, indexes, grad_outputs):
        raise AssertionError("backward_array is used in a first-order pass")


def test_fast_loop_hands_other_functions_to_run_node(monkeypatch) -> None:
    calls = _spy_fast_loop(monkeypatch)
    x = _v(1.0, 2.0)
    h = _NoArrayBackward().apply((x * 2.0,))[0]
    a, b = _Halves().apply((h,))
    F.sum(F.tanh(a) + b * 4.0).backward()
    assert calls
    t = np.tanh(3.0 * x.array)
    np.testing.assert_allclose(x.grad, 6.0 * ((1 - t * t) + 4.0) / 2, rtol=1e-6)


def test_fast_loop_runs_local_hooks_through_run_node(monkeypatch) -> None:
    seen = []

    class Hook(kusari.FunctionHook):
        name = "spy"

        def backward_preprocess(self, function, in_data, out_grad):
            seen.append(function.label)

    calls = _spy_fast_loop(monkeypatch)
    x = _v(1.0)
    h = x * 2.0
    h.creator_node.add_hook(Hook())
    F.sum(h * h).backward()
    assert calls and seen == ["_ * 2.0"]
    np.testing.assert_allclose(x.grad, [8.0])


def test_fast_loop_checks_backward_array_results() -> None:
    class Wrong(kusari.FunctionNode):
        def __init__(self, result):
            self.result = result

        def forward(self, inputs):
            return (inputs[0].copy(),)

        def backward(self, indexes, grad_outputs):
            return (grad_outputs[0],)

        def backward_array(self, indexes, grad_outputs):
            return self.result(grad_outputs[0])

    # A list and a 0-dim NumPy scalar are accepted, as run_node accepts them.
    x = kusari.Variable(np.array(2.0, np.float32))
    F.sum(Wrong(lambda g: [g * 2]).apply((x,))[0]).backward()
    assert x.grad == 2.0
    x.cleargrad()
    F.sum(Wrong(lambda g: (np.float32(g) * 3,)).apply((x,))[0]).backward()
    assert type(x.grad) is np.ndarray and x.grad == 3.0
    # Shapes and dtypes that do not match the input are named.
    y = _v(1.0, 2.0)
    bad = [
        (lambda g: (g[:1],), ValueError, "shape"),
        (lambda g: (g.astype(np.float64),), TypeError, "dtype"),
        (lambda g: ("nope",), TypeError, "backward_array returned str"),
    ]
    for result, error, words in bad:
        with pytest.raises(error, match=words):
            F.sum(Wrong(result).apply((y,))[0]).backward()


def test_fast_loop_frees_retained_arrays_and_refuses_a_second_pass() -> None:
    x = _v(1.0, 2.0)
    h = F.tanh(x * x)
    y = F.sum(h)
    y.backward()
    assert h.creator_node._retained_output_data is None
    assert h.creator_node.inputs[0].data is None  # x * x's retained input
    with pytest.raises(RuntimeError, match="freed by an earlier backward"):
        y.backward()


def test_fast_loop_moves_leaf_gradients_into_destinations(monkeypatch) -> None:
    calls = _spy_fast_loop(monkeypatch)
    w = kusari.Parameter(np.ones(3, np.float32))
    out = np.full(3, np.nan, np.float32)
    with kusari.grad_destinations([(w, out)]):
        F.sum(w * 2.0 + w * w).backward()
    assert calls and w.grad is out
    np.testing.assert_allclose(out, [4.0, 4.0, 4.0])
