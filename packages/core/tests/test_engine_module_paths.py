"""Names that moved into modules of their own stay where code finds them.

The engine modules were split to stay readable (FunctionNode's off-path
helpers, the backward pass's per-function steps, VariableNode, Variable's
printing, the arithmetic FunctionNodes, type_check's expressions); Chainer
code, kusari's own and old pickles still import every name from the old
module, and get the very same object.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import kusari
from kusari import (
    _backprop,
    _backprop_steps,
    _function_node_support,
    _grad,
    _variable_node,
    _variable_print,
    function_node,
    variable,
)
from kusari.functions.math import _arith_nodes, _div_pow_nodes, basic_math
from kusari.utils import _type_check_expr, type_check

MOVED = [
    (function_node, _grad, ["grad"]),
    (function_node, _function_node_support, []),
    (
        _backprop,
        _backprop_steps,
        [
            "raise_old_style_twice",
            "freed_message",
            "initial_grad",
            "normalize_grads",
            "_sum_grads",
            "_add_arrays",
            "_as_grad_array",
            "_grad_arrays",
            "_backward_variables",
            "_check_nan_backward",
        ],
    ),
    (
        variable,
        _variable_node,
        [
            "VariableNode",
            "_array_types",
            "_is_array",
            "_new_output",
            "_check_grad_type",
            "_node_new",
            "_ref",
        ],
    ),
    (variable, _variable_print, ["variable_repr", "variable_str"]),
    (
        basic_math,
        _arith_nodes,
        [
            "Neg",
            "neg",
            "Absolute",
            "Add",
            "AddConstant",
            "MultiAdd",
            "Sub",
            "SubFromConstant",
            "Mul",
            "MulConstant",
            "_ConstantOp",
            "_FloatConstantOp",
            "_check_scalar",
            "_check_binary",
            "_is_operand",
            "_operand_types",
            "_reduce_to",
            "_retained",
            "_sum_to_array",
            "_py_scalar",
            "_scalar_label",
            "_BOTH_INPUTS",
        ],
    ),
    (
        basic_math,
        _div_pow_nodes,
        [
            "Div",
            "DivFromConstant",
            "FloorDiv",
            "PowVarVar",
            "PowVarConst",
            "PowConstVar",
        ],
    ),
    (
        type_check,
        _type_check_expr,
        [
            "InvalidType",
            "Expr",
            "Atom",
            "Constant",
            "Variable",
            "GetAttr",
            "GetItem",
            "Call",
            "UnaryOperator",
            "BinaryOperator",
            "BoolBinaryOperator",
            "Testable",
            "eval",
            "_eval",
            "_repr",
            "_paren",
        ],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [(old, new, name) for old, new, names in MOVED for name in names],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_old_module_gives_the_same_object(old, new, name):
    assert getattr(old, name) is getattr(new, name)


def test_public_names_of_the_old_modules():
    assert function_node.FunctionNode is kusari.FunctionNode
    assert variable.Variable is kusari.Variable
    assert variable.Parameter is kusari.Parameter
    for name in ("add", "sub", "rsub", "mul", "div", "rdiv", "pow", "rpow"):
        assert callable(getattr(basic_math, name))
    for name in ("floordiv", "rfloordiv", "matmul", "rmatmul", "absolute"):
        assert callable(getattr(basic_math, name))
    assert basic_math.VARIABLE_METHODS["__neg__"] is basic_math.neg
    for name in ("expect", "same_types", "prod", "light_mode", "get_types"):
        assert hasattr(type_check, name)


def test_variable_node_is_built_by_the_engine():
    x = kusari.Variable(np.ones(2, np.float32))
    y = x * 2
    assert type(y.node) is variable.VariableNode
    assert type(y.node.get_variable()) is kusari.Variable
    del y  # the node outlives its variable; get_variable rebuilds one
    z = (x * 3) * 1
    node = z.creator.inputs[0]
    rebuilt = node.get_variable()
    assert type(rebuilt) is kusari.Variable


def test_invalid_type_pickles_under_its_public_module():
    err = type_check.InvalidType("a == b", "1 != 2")
    assert type_check.InvalidType.__module__ == "kusari.utils.type_check"
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type_check.InvalidType
    assert str(back) == str(err)


def test_function_nodes_pickle_and_old_pickles_load():
    # A pickle that names the old module (as one made before the split did)
    # still loads: the class is importable from there.
    node = basic_math.MulConstant(2.0)
    data = pickle.dumps(node, protocol=0)  # text: names end at a newline
    old = data.replace(
        b"kusari.functions.math._arith_nodes", b"kusari.functions.math.basic_math"
    )
    assert b"basic_math" in old
    assert type(pickle.loads(old)) is basic_math.MulConstant
    assert pickle.loads(data).value == 2.0


def test_variable_printing_is_unchanged():
    x = kusari.Variable(np.array([1.0, 2.0], np.float32), name="x")
    assert repr(x) == "variable x([1., 2.])"
    assert str(x) == "variable x([1. 2.])"
    assert x.summary() == "<variable x>"
    lines = x.debug_print().splitlines()
    assert lines[0] == "<variable x>"
    assert lines[1] == "- device: CPU"
    assert lines[-1] == "- grad: None"
