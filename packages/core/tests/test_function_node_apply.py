"""FunctionNode.apply's shortcuts for one and two Variables, against its loop."""

from __future__ import annotations

import numpy as np
import pytest
from _function_node_helpers import Square

import kusari
from kusari import FunctionNode, Variable
from kusari.utils import type_check
from kusari.variable import _new_variable


class _Product(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b = inputs
        return (a * b,)

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        (gy,) = grad_outputs
        return tuple([gy * (b if i == 0 else a) for i in indexes])


def _chain(depth, requires_grad=True):
    v = Variable(np.full(3, 1.1, np.float32))
    for _ in range(depth):
        v = Square().apply((v,))[0]
    if not requires_grad:
        # A graph output that needs no gradient (as a user's custom node may
        # make one): its rank must not count.
        v._requires_grad = v.node.requires_grad = False
    return v


class TestApplyShortcuts:
    """apply's one- and two-Variable shortcuts record what the loop records."""

    @pytest.mark.parametrize(
        "req0,req1,depth0,depth1",
        [
            (True, True, 3, 5),
            (True, True, 5, 3),
            (True, False, 2, 4),
            (False, True, 4, 2),
            (False, False, 1, 1),
        ],
    )
    def test_binary_matches_the_general_path(self, req0, req1, depth0, depth1):
        results = []
        for as_tuple in (True, False):
            a = _chain(depth0, req0)
            b = _chain(depth1, req1)
            f = _Product()
            # A tuple takes the shortcut; a list takes the general loop.
            (y,) = f.apply((a, b) if as_tuple else [a, b])
            if not (req0 or req1):
                assert y.creator is None and not y.requires_grad
                results.append(None)
                continue
            assert f.inputs == (a.node, b.node)
            assert y.creator is f and y.node.rank == f.rank + 1
            y.grad = np.ones(3, np.float32)
            y.backward()
            results.append((f.rank, a.grad if req0 else None, b.grad if req1 else None))
        fast, general = results
        if fast is None:
            assert general is None
            return
        assert fast[0] == general[0]
        # The rank comes from the inputs that need a gradient only.
        want = max(d for r, d in ((req0, depth0), (req1, depth1)) if r)
        assert fast[0] == want
        for g_fast, g_general in zip(fast[1:], general[1:]):
            if g_fast is None:
                assert g_general is None
            else:
                np.testing.assert_array_equal(g_fast, g_general)

    def test_unary_gives_a_new_input_node_and_rank(self):
        # A variable the engine made (an output of a no-graph apply that
        # requires a gradient) has no node until a graph needs one; a user's
        # Variable has had its node from the start (as in Chainer).
        assert Variable(np.ones(1, np.float32))._node is not None
        x = _new_variable(np.full(2, 3.0, np.float32), True)
        assert x._node is None
        f = Square()
        (y,) = f.apply((x,))
        assert f.inputs == (x.node,) and f.rank == 0 and y.node.rank == 1
        (z,) = Square().apply((y,))
        assert z.node.rank == 2
        z.grad = np.ones(2, np.float32)
        z.backward()
        np.testing.assert_allclose(x.grad, 4 * 3.0**3 * np.ones(2))

    def test_unary_without_gradient_records_nothing(self):
        x = Variable(np.ones(2, np.float32), requires_grad=False)
        f = Square()
        (y,) = f.apply((x,))
        assert y.creator is None and not y.requires_grad and f.inputs is None

    @pytest.mark.parametrize("n_in", [1, 2])
    @pytest.mark.parametrize("keep", [(), (0,), (-1,)])
    def test_retained_indexes_are_honoured(self, n_in, keep):
        class Keep(FunctionNode):
            def forward(self, inputs):
                self.retain_inputs(keep)
                self.retain_outputs(keep)
                return (inputs[0] + inputs[-1],)

        xs = tuple(Variable(np.full(2, i + 1.0, np.float32)) for i in range(n_in))
        f = Keep()
        (y,) = f.apply(xs)
        kept = {i % n_in for i in keep}
        for i, node in enumerate(f.inputs):
            assert (node.data is xs[i].array) == (i in kept)
            if i not in kept:
                assert node.data is None
        assert f._retained_output_data == tuple(y.array for _ in keep)


# -- the shortcuts' own forward steps (type checks, output checks) ------------


class _FloatOnly(FunctionNode):
    """One float input, checked as tanh is; counts its full checks."""

    _float_input_passes_type_check = True
    full_checks = 0

    def check_type_forward(self, in_types):
        type(self).full_checks += 1
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        return (inputs[0] + 1,)


def test_type_check_kind_is_decided_per_class():
    from kusari import _function_node_support as support
    from kusari.functions.activation.tanh import Tanh
    from kusari.functions.math.basic_math import Add, Mul, MulConstant

    assert FunctionNode._type_check_kind == support.FULL_CHECK
    assert Square._type_check_kind == support.FULL_CHECK
    assert _Product._type_check_kind == support.NO_CHECK
    assert Add._type_check_kind == Mul._type_check_kind == support.SAME_OPERANDS
    assert Tanh._type_check_kind == _FloatOnly._type_check_kind == support.ONE_FLOAT
    assert MulConstant._type_check_kind == support.NO_CHECK


def test_every_one_float_check_is_decided_on_sight():
    # A function whose whole check is "one float input" declares so, and
    # apply then passes a float Variable without running the check.
    from kusari import _function_node_support as support
    from kusari.functions.activation import relu, sigmoid, tanh
    from kusari.functions.activation._checks import check_one_float

    users = [
        cls
        for module in (relu, sigmoid, tanh)
        for cls in vars(module).values()
        if isinstance(cls, type)
        and issubclass(cls, FunctionNode)
        and cls.check_type_forward is check_one_float
    ]
    assert {c.__name__ for c in users} >= {"ReLU", "Sigmoid", "Tanh"}
    for cls in users:
        assert cls._type_check_kind == support.ONE_FLOAT, cls.__name__


@pytest.mark.parametrize("backprop", [True, False])
def test_one_float_variable_is_passed_on_sight_else_checked(backprop):
    _FloatOnly.full_checks = 0
    with kusari.using_config("enable_backprop", backprop):
        (y,) = _FloatOnly().apply((Variable(np.ones(2, np.float32)),))
        assert _FloatOnly.full_checks == 0
        np.testing.assert_array_equal(y.array, [2.0, 2.0])
        # An array input takes the general path, which runs the check.
        _FloatOnly().apply((np.ones(2, np.float32),))
        assert _FloatOnly.full_checks == 1
        with pytest.raises(type_check.InvalidType, match="_FloatOnly"):
            _FloatOnly().apply((Variable(np.ones(2, np.int32)),))
        with kusari.using_config("type_check", False):
            _FloatOnly().apply((Variable(np.ones(2, np.int32)),))
    assert _FloatOnly.full_checks == 3  # light check failed, then full mode


@pytest.mark.parametrize("backprop", [True, False])
def test_binary_operands_alike_skip_the_check_else_it_explains(backprop):
    x = Variable(np.ones(3, np.float32))
    with kusari.using_config("enable_backprop", backprop):
        with pytest.raises(type_check.InvalidType, match="lhs.dtype == rhs.dtype"):
            x * Variable(np.ones(3, np.float64))
        # Broadcast shapes are checked in full, and pass.
        y = x * Variable(np.ones((2, 3), np.float32))
    assert y.shape == (2, 3) and y.requires_grad
    assert (y.creator is not None) == backprop


class _Returns(FunctionNode):
    def __init__(self, result):
        self.result = result

    def forward(self, inputs):
        return self.result


@pytest.mark.parametrize("n_in", [1, 2])
@pytest.mark.parametrize("backprop", [True, False])
def test_bad_outputs_are_named_in_the_shortcuts(n_in, backprop):
    xs = tuple(Variable(np.ones(2, np.float32)) for _ in range(n_in))
    with kusari.using_config("enable_backprop", backprop):
        with pytest.raises(TypeError, match=r"forward output must be a tuple \("):
            _Returns([np.ones(2)]).apply(xs)
        with pytest.raises(TypeError, match="returned float among its outputs"):
            _Returns((np.ones(2), 1.5)).apply(xs)
        with pytest.raises(TypeError, match="returned int among its outputs"):
            _Returns((3,)).apply(xs)
        if not backprop:
            with kusari.using_config("type_check", False):
                (y,) = _Returns((3,)).apply(xs)  # unchecked, as in Chainer
            assert y.array == 3


@pytest.mark.parametrize("req", [(True,), (False,), (True, False), (False, False)])
def test_no_graph_outputs_need_a_gradient_when_an_input_does(req):
    xs = tuple(Variable(np.ones(2, np.float32), requires_grad=r) for r in req)
    f = _Returns((np.zeros(2, np.float32), np.ones(2, np.float32)))
    with kusari.no_backprop_mode():
        outs = f.apply(xs)
    assert [o.requires_grad for o in outs] == [any(req)] * 2
    assert f.inputs is None and all(o.creator is None for o in outs)


def test_several_outputs_are_recorded_with_their_rank():
    x = _chain(2)
    f = _Returns((np.zeros(3, np.float32), np.ones(3, np.float32)))
    a, b = f.apply((x,))
    assert f.rank == 2 and a.rank == b.rank == 3
    assert [r() for r in f.outputs] == [a.node, b.node]
    assert a.creator is f and b.creator is f
