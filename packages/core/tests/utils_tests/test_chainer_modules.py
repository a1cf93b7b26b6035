"""Modules that Chainer code imports by name: argument, memory_layouts,
backends.intel64, basic_math."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
from kusari import memory_layouts as ml
from kusari.backends import intel64
from kusari.utils import argument


def test_argument_helpers():
    kwargs = {"a": 1, "train": True}
    with pytest.raises(ValueError, match="use config.train"):
        argument.parse_kwargs(kwargs, ("a", 0), train="use config.train")
    kwargs = {"a": 1}
    assert argument.parse_kwargs(kwargs, ("a", 0), ("b", 2)) == (1, 2)
    assert kwargs == {}
    with pytest.raises(TypeError, match="unexpected keyword argument.*'zz'"):
        argument.parse_kwargs({"zz": 1}, ("a", 0))
    with pytest.raises(TypeError, match="'q'"):
        argument.assert_kwargs_empty({"q": 1})
    argument.assert_kwargs_empty({})
    argument.check_unexpected_kwargs({"x": 1}, y="gone")


def test_memory_layouts_shapes():
    x = np.zeros((2, 4, 5, 3))
    v = kusari.Variable(np.zeros((2, 3, 4)))
    assert ml.get_raw_shape(x) == (2, 4, 5, 3) and ml.get_raw_shape(v) == (2, 3, 4)
    assert ml.get_semantic_shape(x) == (2, 4, 5, 3)
    assert ml.get_semantic_shape(x, assumed_layout=ml.CUDNN_CHANNEL_LAST_X) == (
        2,
        3,
        4,
        5,
    )
    assert ml.get_semantic_shape(x, assumed_layout=ml.CUDNN_CHANNEL_FIRST_X) == x.shape
    with pytest.raises(ValueError, match="unknown layout"):
        ml.get_semantic_shape(x, assumed_layout="NHWC?")
    with pytest.raises(ValueError, match="3\\+ axes"):
        ml.get_semantic_shape(np.zeros((2, 3)), assumed_layout=ml.CUDNN_CHANNEL_LAST_W)


def test_intel64_reports_unavailable():
    assert not intel64.is_ideep_available()
    assert not intel64.should_use_ideep("auto")
    assert not intel64.inputs_all_ready((np.zeros((2, 2)),))
    with pytest.raises(RuntimeError, match="iDeep is not part of kusari"):
        intel64.check_ideep_available()
    with pytest.raises(RuntimeError):
        intel64.Intel64Device()
    with pytest.raises(ValueError, match="use_ideep"):
        intel64.should_use_ideep("sometimes")


def test_basic_math_is_importable_by_chainers_name():
    import kusari.basic_math as bm
    import kusari.functions.math.basic_math as real

    assert bm is real and kusari.basic_math is real
    assert hasattr(bm, "Add") or hasattr(bm, "add")
