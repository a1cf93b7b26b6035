"""type_check: expressions, messages, light mode."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.utils import type_check


def _types(*arrays):
    return type_check.get_types(arrays, "in_types", False)


def test_expect_passes_and_fails_with_message():
    t = _types(np.zeros((2, 3), np.float32))
    type_check.expect(t[0].ndim == 2, t[0].dtype == np.float32)
    with pytest.raises(type_check.InvalidType) as e:
        type_check.expect(t[0].shape[1] == 4)
    assert str(e.value) == "Expect: in_types[0].shape[1] == 4\nActual: 3 != 4"


def test_argname_names_inputs_and_checks_count():
    t = _types(np.zeros(2, np.float32), np.zeros(3, np.float32))
    type_check._argname(t, ("x", "W"))
    with pytest.raises(type_check.InvalidType, match=r"Expect: W.shape\[0\] == 2"):
        type_check.expect(t[1].shape[0] == 2)
    with pytest.raises(type_check.InvalidType, match="Invalid number of arguments"):
        type_check._argname(t, ("x",))


def test_expression_printing():
    t = _types(np.zeros((2, 3), np.float32))
    type_check._argname(t, ("x",))
    expr = t[0].shape[0] * 2 + 1 == (t[0].size - 1) // 2
    assert str(expr) == "x.shape[0] * 2 + 1 == (x.size - 1) // 2"
    with pytest.raises(type_check.InvalidType, match="Actual: 5 != 2"):
        type_check.expect(expr)


def test_expr_is_not_a_bool():
    t = _types(np.zeros(2, np.float32))
    with pytest.raises(RuntimeError, match="cannot be used as a bool"):
        bool(t[0].ndim == 1)


def test_light_mode_uses_arrays():
    t = type_check.get_light_types((np.zeros((2, 3), np.float32),))
    assert t.size() == 1 and t[0].shape == (2, 3)
    type_check.expect(t[0].ndim == 2)
    with pytest.raises(type_check.InvalidType):
        type_check.expect(t[0].ndim == 3)


def test_broadcast_shapes():
    type_check.expect_broadcast_shapes((2, 1), (1, 3))
    with pytest.raises(type_check.InvalidType, match="cannot be broadcast"):
        type_check.expect_broadcast_shapes((2, 3), (4,))


def test_function_message_for_linear():
    x = np.zeros((2, 3), np.float32)
    W = np.zeros((5, 4), np.float32)
    with pytest.raises(type_check.InvalidType) as e:
        F.linear(x, W)
    msg = str(e.value)
    assert "Invalid operation is performed in: LinearFunction (Forward)" in msg
    assert "Expect: prod(x.shape[n_batch_axes:]) == W.shape[1]" in msg
    assert "Actual: 3 != 4" in msg


def test_wrong_dtype_for_linear():
    # Chainer 7 accepts x and W of different float dtypes; a bias that does not
    # match x, or an integer W, is still refused.
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match=r"Expect: b.dtype == x.dtype"):
        F.linear(x, np.zeros((5, 3), np.float32), np.zeros(5, np.float64))
    with pytest.raises(type_check.InvalidType, match=r"Expect: W.dtype.kind == 'f'"):
        F.linear(x, np.zeros((5, 3), np.int32))


def test_invalid_type_pickles():
    import pickle

    e = type_check.InvalidType("a", "b")
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.expect == "a" and str(e2) == str(e)


def test_same_types_and_prod_and_eval():
    assert type_check.same_types(np.zeros(1), np.zeros(2))
    assert type_check.eval(type_check.prod([2, 3])) == 6
    with type_check.light_mode:
        assert type_check.prod([2, 3]) == 6
    assert type_check.eval(type_check.Constant(4)) == 4
    assert kusari.type_check is type_check


def test_symbolic_prod_and_no_iteration():
    t = _types(np.zeros((2, 3, 4), np.float32))
    p = type_check.prod(t[0].shape[1:])
    assert type_check.eval(p) == 12
    with pytest.raises(
        type_check.InvalidType, match=r"Expect: prod\(in_types\[0\].shape\[1:\]\) == 5"
    ):
        type_check.expect(p == 5)
    with pytest.raises(TypeError, match="cannot be iterated"):
        list(t[0].shape)


def test_prod_of_a_plain_list_is_symbolic():
    p = type_check.prod([])
    assert str(p) == "prod([])" and type_check.eval(p) == 1
    assert isinstance(type_check.prod([2, 3]), type_check.Expr)


def test_priorities_bind_like_python():
    x, y = type_check.Variable(1, "x"), type_check.Variable(2, "y")
    # higher binds tighter: | ^ & << + * unary ** atom
    chain = [x | y, x ^ y, x & y, x << y, x + y, x * y, -x, x**y, x]
    prios = [e.priority for e in chain]
    assert prios == sorted(prios) and len(set(prios)) == len(prios)
    assert (x == y).priority < (x | y).priority
    assert str(x - (y - x)) == "x - (y - x)" and str(x - y - x) == "x - y - x"
    assert str((x**y) ** x) == "(x ** y) ** x" and str(x ** (y**x)) == "x ** y ** x"
    assert str(-(x**y)) == "-x ** y" and str((-x) ** y) == "(-x) ** y"
    assert str(-(x + y)) == "-(x + y)"


def test_operator_classes_take_chainers_arguments():
    x, y = type_check.Variable(1, "x"), type_check.Variable(1, "y")
    op = type_check.BinaryOperator(8, x, y, "+", lambda a, b: (a, b))
    assert str(op) == "x + (y)" and op.eval() == (1, 1)
    assert str(type_check.UnaryOperator(9, x, "-", lambda a: -a)) == "-(x)"
    bad = type_check.BoolBinaryOperator(x, 2, "==", "!=", lambda a, b: a == b)
    with pytest.raises(type_check.InvalidType, match="Actual: 1 != 2"):
        bad.expect()


def test_printing_of_keys_attributes_calls_and_lists():
    d = type_check.Variable({"a": 1}, "d")
    assert str(d["a"]) == "d['a']" and type_check.eval(d["a"]) == 1
    v = type_check.Variable([1, 2, 3], "v")
    assert str(v[1:2, ...]) == "v[1:2, ...]"
    assert str(type_check.GetAttr(v, 3)) == "getattr(v, 3)"
    assert str(type_check.GetAttr(v, type_check.Constant("real"))) == "v.real"
    f = type_check.Variable(sum, "sum")
    assert str(f([1, "a"])) == "sum([1, 'a'])"
    assert type_check._repr((type_check.Constant(0),)) == "(0,)"


def test_lists_of_expressions_are_evaluated_item_by_item():
    zero = type_check.Constant(0)
    assert type_check.eval(type_check.Constant([0]) == [zero])
    assert type_check.eval(type_check.Constant(((0,),)) == ((zero,),))
    t = _types(np.zeros((2, 3), np.float32))
    type_check.expect(t[0].shape == (2, t[0].shape[1]))


def test_get_types_needs_a_sequence():
    with pytest.raises(AssertionError, match="must be a tuple of arrays, got int"):
        type_check.get_types(1, "in_types", False)
