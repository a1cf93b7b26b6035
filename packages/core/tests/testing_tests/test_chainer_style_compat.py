"""Chainer-style test tools in the corners Chainer's own suite relies on:
functions as parameters, stacked backend injection, scalar comparisons and
upstream gradients left out (None) in FunctionTestCase.
"""

from __future__ import annotations

import sys
import unittest

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import testing


def _run(classes):
    result = unittest.TestResult()
    for cls in classes:
        unittest.defaultTestLoader.loadTestsFromTestCase(cls).run(result)
    return result


def _forget(classes):
    module = sys.modules[__name__]
    for cls in classes:
        if getattr(module, cls.__name__, None) is cls:
            delattr(module, cls.__name__)


def test_parameterize_keeps_a_function_value_unbound():
    def sampler(order, position):
        return order[::-1]

    @testing.parameterize({"order_sampler": sampler}, {"order_sampler": None})
    class TestWithSampler(unittest.TestCase):
        def test_it(self):
            # Read through self, the function is not a bound method: it
            # takes exactly the two arguments it declares.
            if self.order_sampler is not None:
                assert self.order_sampler is sampler
                assert self.order_sampler([1, 2], 0) == [2, 1]

    classes = list(TestWithSampler)
    try:
        result = _run(classes)
        assert result.testsRun == 2
        assert result.wasSuccessful(), result.failures + result.errors
    finally:
        _forget(classes)


def test_stacked_inject_backend_tests_fill_each_config_argument_in_order():
    seen = []

    @testing.inject_backend_tests(None, [{}, {"use_ideep": "always"}])
    @testing.inject_backend_tests(None, [{}])
    class TestTwoConfigs(unittest.TestCase):
        def test_pair(self, first_backend_config, second_backend_config):
            seen.append((first_backend_config, second_backend_config))

    result = _run([TestTwoConfigs])
    # The iDeep config of the outer decorator is skipped (no iDeep here).
    assert result.testsRun == 2 and len(result.skipped) == 1
    assert result.wasSuccessful(), result.failures + result.errors
    ((first, second),) = seen
    assert isinstance(first, testing.BackendConfig)
    assert isinstance(second, testing.BackendConfig)
    names = sorted(
        n
        for n, m in vars(TestTwoConfigs).items()
        if n.startswith("test_pair__") and m is not None
    )
    assert names == [
        "test_pair__use_cuda_false__use_cuda_false",
        "test_pair__use_cuda_false__use_cuda_false__use_ideep_always",
    ]


def test_numbered_config_arguments_are_filled_too():
    # Chainer's optimizer-hook tests stack three decorators over methods
    # taking (backend_config0, backend_config1, backend_config2).
    seen = []

    @testing.inject_backend_tests(None, [{}])
    @testing.inject_backend_tests(None, [{}])
    @testing.inject_backend_tests(None, [{}])
    class TestThree(unittest.TestCase):
        def test_all(self, backend_config0, backend_config1, backend_config2):
            seen.append((backend_config0, backend_config1, backend_config2))

        def test_plain(self):
            seen.append("plain")

    result = _run([TestThree])
    assert result.testsRun == 2
    assert result.wasSuccessful(), result.failures + result.errors
    configs = [s for s in seen if s != "plain"]
    assert len(configs) == 1 and "plain" in seen
    assert all(isinstance(c, testing.BackendConfig) for c in configs[0])


def test_assert_allclose_takes_python_scalars_and_lists():
    testing.assert_allclose(2.0, np.float32(2.0))
    testing.assert_allclose([0.3, 0.3], np.array([0.3, 0.3], np.float32))
    with pytest.raises(AssertionError, match="not close"):
        testing.assert_allclose(1, 2.0)


def _split_case(grad_is_none):
    @testing.inject_backend_tests(None, [{}])
    class TestSplit(testing.FunctionTestCase):
        def generate_inputs(self):
            return (np.random.uniform(-1, 1, (2, 6)),)

        def generate_grad_outputs(self, outputs_template):
            return tuple(
                None if none else np.random.uniform(-1, 1, a.shape)
                for none, a in zip(grad_is_none, outputs_template)
            )

        def forward(self, inputs, device):
            return F.split_axis(inputs[0], 3, 1)

        def forward_expected(self, inputs):
            return tuple(np.split(inputs[0], 3, 1))

    return TestSplit


def test_function_test_case_takes_none_upstream_gradients():
    result = _run([_split_case([False, True, False])])
    assert result.testsRun == 3
    assert result.wasSuccessful(), result.failures + result.errors


def test_function_test_case_still_rejects_a_non_array_gradient():
    case = _split_case([False, False, False])
    case.generate_grad_outputs = lambda self, t: (1.0, 2.0, 3.0)
    result = _run([case])
    assert len(result.errors) == 2  # backward and double backward
    assert "numpy.ndarray or None" in result.errors[0][1]


def test_forward_expected_may_give_a_device_sent_numpy_scalar():
    @testing.inject_backend_tests(None, [{}])
    class TestDot(testing.FunctionTestCase):
        skip_backward_test = True
        skip_double_backward_test = True

        def generate_inputs(self):
            return np.ones(3), np.full(3, 2.0)

        def forward(self, inputs, device):
            return (F.matmul(*inputs),)

        def forward_expected(self, inputs):
            # numpy.dot of vectors is a NumPy scalar; send() makes it 0-d.
            return (kusari.backend.CpuDevice().send(np.dot(*inputs)),)

    result = _run([TestDot])
    assert result.testsRun == 3 and len(result.skipped) == 2
    assert result.wasSuccessful(), result.failures + result.errors
