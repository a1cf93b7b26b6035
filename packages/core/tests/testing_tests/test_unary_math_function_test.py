"""How ``unary_math_function_unittest`` merges the caller's tolerances."""

from __future__ import annotations

import sys
import unittest

import numpy as np

import kusari.functions as F
from kusari import gradient_check, testing


def _run_and_record(klass, prefix, monkeypatch):
    """Run every generated CPU case; return {(dtype, check): kwargs}."""
    seen = {}

    def recorder(name):
        def record(*args, **kwargs):
            seen[(np.dtype(args[1].dtype).name, name)] = kwargs

        return record

    monkeypatch.setattr(gradient_check, "check_backward", recorder("backward"))
    monkeypatch.setattr(gradient_check, "check_double_backward", recorder("double"))
    module = sys.modules[__name__]
    result = unittest.TestResult()
    try:
        for cls in list(klass):
            unittest.defaultTestLoader.loadTestsFromTestCase(cls).run(result)
    finally:
        for name in list(vars(module)):
            if name.startswith(prefix):
                delattr(module, name)
    assert result.wasSuccessful(), result.failures + result.errors
    return seen


def test_given_options_update_the_per_dtype_defaults(monkeypatch):
    @testing.unary_math_function_unittest(
        F.arctan, double_backward_options={"eps": 1e-3}
    )
    class TestMergeArctan(unittest.TestCase):
        pass

    seen = _run_and_record(TestMergeArctan, "TestMergeArctan_", monkeypatch)
    # One key given: float16 keeps its wide tolerances, as in Chainer v7.
    assert seen[("float16", "double")] == {
        "dtype": np.float64,
        "eps": 1e-3,
        "atol": 2.0**-4,
        "rtol": 2.0**-4,
    }
    assert seen[("float32", "double")] == {
        "dtype": np.float64,
        "eps": 1e-3,
        "atol": 1e-4,
        "rtol": 1e-4,
    }
    # Nothing given: the defaults alone.
    assert seen[("float16", "backward")] == {
        "dtype": np.float64,
        "eps": 2.0**-4,
        "atol": 2.0**-4,
        "rtol": 2.0**-4,
    }
    assert seen[("float64", "backward")] == {
        "dtype": np.float64,
        "atol": 1e-4,
        "rtol": 1e-4,
    }


def test_given_forward_tolerance_is_used(monkeypatch):
    # A reference off by 1e-3 fails the default float64 forward check
    # (1e-4) but passes once the caller widens atol to 1e-2.
    def shifted(x):
        return np.sin(x) + 1e-3

    @testing.unary_math_function_unittest(F.sin, func_expected=shifted)
    class TestShiftStrict(unittest.TestCase):
        pass

    @testing.unary_math_function_unittest(
        F.sin, func_expected=shifted, forward_options={"atol": 1e-2}
    )
    class TestShiftLoose(unittest.TestCase):
        pass

    module = sys.modules[__name__]
    try:
        strict, loose = unittest.TestResult(), unittest.TestResult()
        for cls in TestShiftStrict:
            unittest.defaultTestLoader.loadTestsFromTestCase(cls).run(strict)
        for cls in TestShiftLoose:
            unittest.defaultTestLoader.loadTestsFromTestCase(cls).run(loose)
    finally:
        for name in list(vars(module)):
            if name.startswith(("TestShiftStrict_", "TestShiftLoose_")):
                delattr(module, name)
    failed = [t.id() for t, _ in strict.failures]
    assert any("float64" in f and "test_forward" in f for f in failed), failed
    assert loose.wasSuccessful(), loose.failures + loose.errors


def test_reference_gets_dtype_by_keyword_as_in_v7():
    # v7 calls func_expected(x, dtype=x.dtype); references written for it
    # take dtype without a default, so calling them with x alone fails.
    seen = []

    def reference(x, dtype):
        seen.append(dtype)
        return np.sin(x).astype(dtype)

    @testing.unary_math_function_unittest(F.sin, func_expected=reference)
    class TestSinDtype(unittest.TestCase):
        pass

    module = sys.modules[__name__]
    try:
        result = unittest.TestResult()
        for cls in TestSinDtype:
            unittest.defaultTestLoader.loadTestsFromTestCase(cls).run(result)
    finally:
        for name in list(vars(module)):
            if name.startswith("TestSinDtype_"):
                delattr(module, name)
    assert result.wasSuccessful(), result.failures + result.errors
    assert {np.dtype(d) for d in seen} == {
        np.dtype(np.float16),
        np.dtype(np.float32),
        np.dtype(np.float64),
    }
