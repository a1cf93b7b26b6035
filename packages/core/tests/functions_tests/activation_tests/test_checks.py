"""The one-float-input type check of tanh, sigmoid and ReLU: its fast case
passes exactly what the full check passes, and failures keep the full
check's message."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.activation import _checks
from kusari.functions.activation.relu import ReLU
from kusari.functions.activation.sigmoid import Sigmoid
from kusari.functions.activation.tanh import Tanh
from kusari.utils import type_check

FUNCS = [F.tanh, F.sigmoid, F.relu]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (3,), (2, 0)])
def test_float_inputs_pass_both_modes(dtype, shape):
    x = np.zeros(shape, dtype)
    _checks.check_one_float(type_check.LightTypeInfoTuple((x,)))
    _checks.check_one_float(type_check.get_types((x,), "in_types", False))


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.complex64])
def test_other_dtypes_fail_both_modes(dtype):
    x = np.zeros(3, dtype)
    with pytest.raises(type_check.InvalidType):
        _checks.check_one_float(type_check.LightTypeInfoTuple((x,)))
    with pytest.raises(type_check.InvalidType):
        _checks.check_one_float(type_check.get_types((x,), "in_types", False))


def test_wrong_number_of_inputs():
    x = np.zeros(3, np.float32)
    for n in (0, 2):
        with pytest.raises(type_check.InvalidType):
            _checks.check_one_float(type_check.LightTypeInfoTuple((x,) * n))


@pytest.mark.parametrize("func", FUNCS)
def test_int_input_message_names_function_and_dtype_kind(func):
    with pytest.raises(type_check.InvalidType) as info:
        func(np.zeros(3, np.int32))
    msg = str(info.value)
    name = {F.tanh: "Tanh", F.sigmoid: "Sigmoid", F.relu: "ReLU"}[func]
    assert f"performed in: {name} (Forward)" in msg
    assert "Expect: x.dtype.kind == 'f'" in msg and "Actual: 'i' != 'f'" in msg


@pytest.mark.parametrize("node", [Tanh, Sigmoid, ReLU])
def test_uninitialized_input_is_explained(node):
    with pytest.raises(RuntimeError, match="no array"):
        node()._check_data_type_forward((None,))


@pytest.mark.parametrize("func", FUNCS)
def test_check_runs_only_when_enabled(func, monkeypatch):
    calls = []
    real = _checks.check_one_float
    for cls in (Tanh, Sigmoid, ReLU):
        monkeypatch.setattr(
            cls,
            "check_type_forward",
            staticmethod(lambda t: calls.append(1) or real(t)),
        )
    x = np.zeros(3, np.float32)
    func(x)
    assert calls == [1]
    with kusari.using_config("type_check", False):
        func(x)
    assert calls == [1]


def test_tanh_keeps_zero_dim_arrays():
    y = F.tanh(np.array(0.5, np.float32))
    assert type(y.array) is np.ndarray and y.shape == () and y.dtype == np.float32
    np.testing.assert_allclose(y.array, np.tanh(np.float32(0.5)))
