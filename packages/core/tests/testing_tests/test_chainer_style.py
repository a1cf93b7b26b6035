"""Chainer-style test tools: parameterize, backends, FunctionTestCase, conditions.

The classes under test are built inside the tests and run with unittest's
own runner, so a broken tool shows up as a wrong count of failures here.
"""

from __future__ import annotations

import sys
import unittest
import warnings

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import FunctionNode, testing
from kusari.backends import cuda
from kusari.testing import condition


def _run(classes):
    result = unittest.TestResult()
    loader = unittest.defaultTestLoader
    for cls in classes:
        loader.loadTestsFromTestCase(cls).run(result)
    return result


def test_parameterize_makes_named_classes_in_the_module_and_stacks():
    @testing.parameterize(*testing.product({"a": [1, 2], "b": ["x"]}))
    class TestSomething(unittest.TestCase):
        def test_it(self):
            assert self.a in (1, 2) and self.b == "x"

    module = sys.modules[__name__]
    classes = list(TestSomething)
    try:
        names = [c.__name__ for c in classes]
        assert names == [
            "TestSomething_param_0_{a=1, b='x'}",
            "TestSomething_param_1_{a=2, b='x'}",
        ]
        assert all(getattr(module, n) is c for n, c in zip(names, classes))
        result = _run(classes)
        assert result.testsRun == 2 and result.wasSuccessful()

        # A second parameterize multiplies each generated class again.
        again = list(testing.parameterize({"c": 0}, {"c": 1})(TestSomething))
        assert len(again) == 4 and {c.c for c in again} == {0, 1}
        assert not hasattr(module, names[0])  # replaced by its derivatives
    finally:
        for name in list(vars(module)):
            if name.startswith("TestSomething_"):
                delattr(module, name)


def test_parameterize_pytest_and_from_pytest_parameterize():
    assert testing.from_pytest_parameterize("a,b", [(1, 2), (3, 4)]) == [
        {"a": 1, "b": 2},
        {"a": 3, "b": 4},
    ]
    assert testing.from_pytest_parameterize("a", [5]) == [{"a": 5}]

    class Base(unittest.TestCase):
        pass

    cases = list(testing.parameterize_pytest("n", [1, 2, 3])(Base))
    try:
        assert [c.n for c in cases] == [1, 2, 3]
        with pytest.raises(ValueError, match="2 names"):
            testing.parameterize_pytest("a,b", [(1, 2, 3)])
        with pytest.raises(TypeError, match="must be a dict"):
            testing.parameterize([1])
    finally:
        for c in cases:
            delattr(sys.modules[__name__], c.__name__)


def test_inject_backend_tests_calls_each_config_and_skips_missing_gpu():
    seen = []

    @testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
    class TestUsesBackend(unittest.TestCase):
        def test_sum(self, backend_config):
            seen.append(backend_config)
            x = backend_config.get_array(np.arange(3.0))
            assert (
                backend_config.xp.asnumpy(x).sum() == 3
                if backend_config.use_cuda
                else x.sum() == 3
            )

        def test_plain(self):
            seen.append("plain")

    result = _run([TestUsesBackend])
    assert result.wasSuccessful(), result.failures + result.errors
    assert result.testsRun == 3
    configs = [s for s in seen if s != "plain"]
    assert not configs[0].use_cuda and configs[0].xp is np
    assert configs[0].device == kusari.get_device("@numpy")
    assert len(result.skipped) == (0 if cuda.available else 1)
    with pytest.raises(ValueError, match="unknown parameters"):
        testing.BackendConfig({"use_tpu": True})
    with pytest.raises(TypeError, match="list of dicts"):
        testing.inject_backend_tests(None, {"use_cuda": True})


def test_backend_config_sets_the_configuration():
    config = testing.BackendConfig({"autotune": True, "use_cudnn": "always"})
    assert kusari.config.autotune is False
    with config:
        assert kusari.config.autotune is True
        assert kusari.config.use_cudnn == "always"
    assert kusari.config.autotune is False
    assert "autotune=True" in repr(config)


class _Square(FunctionNode):
    def __init__(self, grad_scale):
        self.grad_scale = grad_scale

    def forward(self, inputs):
        self.retain_inputs((0,))
        return (inputs[0] * inputs[0],)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (self.grad_scale * x * grad_outputs[0],)


def _square_case(grad_scale, expected_factor=1.0):
    @testing.inject_backend_tests(None, [{}])
    class TestSquare(testing.FunctionTestCase):
        def setUp(self):
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-4}

        def generate_inputs(self):
            return (np.random.uniform(-1, 1, (3, 2)),)

        def forward(self, inputs, device):
            return (_Square(grad_scale).apply(inputs)[0],)

        def forward_expected(self, inputs):
            return (inputs[0] * inputs[0] * expected_factor,)

    return TestSquare


def test_function_test_case_passes_a_correct_function():
    result = _run([_square_case(2.0)])
    assert result.testsRun == 3
    assert result.wasSuccessful(), result.failures + result.errors


def test_function_test_case_catches_wrong_forward_and_wrong_backward():
    result = _run([_square_case(2.0, expected_factor=1.5)])
    assert [t.id().rsplit(".", 1)[-1] for t, _ in result.failures] == [
        "test_forward__use_cuda_false"
    ]
    assert "output 0 is not close" in result.failures[0][1]

    result = _run([_square_case(3.0)])  # gradient 3x instead of 2x
    failed = sorted(t.id().rsplit(".", 1)[-1] for t, _ in result.failures)
    # The double-backward check differentiates the (wrong but smooth)
    # gradient itself, so only the first-order check can see this bug.
    assert failed == ["test_backward__use_cuda_false"]
    assert all("FunctionTestError" in text for _, text in result.failures)


def test_function_test_case_reports_modified_inputs():
    class Inplace(FunctionNode):
        def forward(self, inputs):
            inputs[0][...] = 0
            return (inputs[0].copy(),)

    @testing.inject_backend_tests(["test_forward"], [{}])
    class TestInplace(testing.FunctionTestCase):
        def generate_inputs(self):
            return (np.ones((2, 2)),)

        def forward(self, inputs, device):
            return (Inplace().apply(inputs)[0],)

        def forward_expected(self, inputs):
            return (np.zeros((2, 2)),)

    result = _run([TestInplace])
    assert len(result.failures) == 1 and "modified its inputs" in result.failures[0][1]


def test_unary_math_function_unittest_detects_a_wrong_reference():
    @testing.unary_math_function_unittest(F.sin)
    class TestSin(unittest.TestCase):
        pass

    @testing.unary_math_function_unittest(F.sin, func_expected=np.cos)
    class TestSinWrong(unittest.TestCase):
        pass

    module = sys.modules[__name__]
    try:
        good = _run(list(TestSin))
        assert good.wasSuccessful(), good.failures + good.errors
        # 2 shapes x 3 dtypes x 3 tests on the CPU (GPU variants skip here).
        assert good.testsRun - len(good.skipped) == 18 or cuda.available
        bad = _run(list(TestSinWrong))
        failed = {t.id().rsplit(".", 1)[-1] for t, _ in bad.failures}
        assert failed == {"test_forward__use_cuda_false"}
    finally:
        for name in list(vars(module)):
            if name.startswith(("TestSin_", "TestSinWrong_")):
                delattr(module, name)


def test_repeat_with_success_at_least_counts_and_stops_early():
    calls = []

    @condition.repeat_with_success_at_least(5, 2)
    def flaky():
        calls.append(1)
        assert len(calls) % 2 == 0  # fails, passes, fails, passes

    flaky()
    assert len(calls) == 4  # stopped once two had passed

    @condition.retry(3)
    def always_fails():
        raise AssertionError("no")

    with pytest.raises(AssertionError, match="0 of 3 runs passed, 1 needed"):
        always_fails()

    runs = []

    @condition.repeat(3)
    def fine():
        runs.append(1)

    fine()
    assert len(runs) == 3
    with pytest.raises(ValueError, match="min_success"):
        condition.repeat_with_success_at_least(2, 3)


def test_repeat_gives_a_test_case_fresh_set_up_each_run():
    class TestFresh(unittest.TestCase):
        def setUp(self):
            self.items = []

        @condition.repeat(3)
        def test_append(self):
            self.items.append(1)
            assert self.items == [1]

    result = _run([TestFresh])
    assert result.wasSuccessful(), result.failures + result.errors


def test_attr_marks_are_pytest_marks():
    def f():
        pass

    for mark in (testing.attr.gpu, testing.attr.slow, testing.attr.multi_gpu(2)):
        marked = mark(f)
        assert marked.pytestmark

    def g():
        pass

    names = {m.name for m in testing.attr.gpu(g).pytestmark}
    assert "gpu" in names and ("skipif" in names)


def test_helpers():
    with testing.assert_warns(UserWarning):
        warnings.warn("x", UserWarning)
    with pytest.raises(pytest.fail.Exception):
        with testing.assert_warns(UserWarning):
            pass
    assert testing.with_requires("numpy>=2").mark.args == (False,)
    assert testing.with_requires("numpy<1").mark.args == (True,)
    assert testing.with_requires("no-such-package-kusari").mark.args == (True,)
    assert testing.without_requires("numpy").mark.args == (True,)
    with pytest.raises(ValueError, match="cannot read requirement"):
        testing.with_requires("numpy >= = 2")

    m = testing.generate_matrix((2, 4, 3), singular_values=[3.0, 2.0, 0.5])
    assert m.shape == (2, 4, 3) and m.dtype == np.float64
    np.testing.assert_allclose(
        np.linalg.svd(m, compute_uv=False), [[3, 2, 0.5]] * 2, rtol=1e-10
    )
    c = testing.generate_matrix((3, 3), dtype=np.complex64)
    assert c.dtype == np.complex64
    with pytest.raises(TypeError, match="float or complex"):
        testing.generate_matrix((2, 2), dtype=np.int32)

    with testing.patch("kusari.functions.relu", return_value=7) as relu:
        assert F.relu(np.zeros(1)) == 7
    relu.assert_called_once()


def test_patch_wraps_the_real_object():
    # Chainer's testing.patch: calls go through to the patched object and
    # are counted (a test can check that a function was used, not replace it).
    with testing.patch("kusari.functions.relu") as relu:
        y = F.relu(np.array([-1.0, 2.0]))
        np.testing.assert_array_equal(y.array, [0.0, 2.0])
        with pytest.raises(TypeError):  # the real function rejects this call
            F.relu(1, 2, 3, 4)
    assert relu.call_count == 2
    calls = []

    def spy(x):
        calls.append(x)
        return F.identity(x)

    with testing.patch("kusari.functions.relu", wraps=spy):
        F.relu(np.array([-1.0]))
    assert len(calls) == 1
    assert F.relu is not relu  # restored


def test_save_and_load_npz_and_hdf5():
    a, b = L.Linear(3, 2), L.Linear(3, 2)
    testing.save_and_load_npz(a, b)
    np.testing.assert_array_equal(a.W.array, b.W.array)
    pytest.importorskip("h5py")
    c = L.Linear(3, 2)
    testing.save_and_load_hdf5(a, c)
    np.testing.assert_array_equal(a.W.array, c.W.array)


def test_trainer_with_mock_updater_counts_epochs():
    trainer = testing.get_trainer_with_mock_updater((2, "epoch"), iter_per_epoch=5)
    epochs = []
    trainer.extend(
        lambda t: epochs.append(t.updater.epoch_detail), trigger=(1, "epoch")
    )
    trainer.run()
    assert trainer.updater.iteration == 10 and epochs == [1.0, 2.0]


def _linear_case(scale_expected=1.0, broken_grad=False):
    class ScaledGrad(FunctionNode):
        def forward(self, inputs):
            return (inputs[0].copy(),)

        def backward(self, indexes, grad_outputs):
            return (grad_outputs[0] * 1.5,)

    @testing.inject_backend_tests(None, [{}])
    class TestLinear(testing.LinkTestCase):
        param_names = ("W", "b")

        def setUp(self):
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

        def generate_params(self):
            w = np.random.uniform(-1, 1, (3, 2)).astype(np.float32)
            return w, np.random.uniform(-1, 1, 3).astype(np.float32)

        def generate_inputs(self):
            return (np.random.uniform(-1, 1, (4, 2)).astype(np.float32),)

        def create_link(self, initializers):
            w, b = initializers
            return L.Linear(2, 3, initialW=w, initial_bias=b)

        def forward(self, link, inputs, device):
            y = link(*inputs)
            return ((ScaledGrad().apply((y,))[0] if broken_grad else y),)

        def forward_expected(self, link, inputs):
            w, b = link.W.array, link.b.array
            return ((inputs[0] @ w.T + b) * scale_expected,)

    return TestLinear


def test_link_test_case_passes_and_catches_bugs():
    good = _run([_linear_case()])
    assert good.testsRun == 2 and good.wasSuccessful(), good.failures + good.errors
    wrong_forward = _run([_linear_case(scale_expected=2.0)])
    assert [t.id().rsplit(".", 1)[-1] for t, _ in wrong_forward.failures] == [
        "test_forward__use_cuda_false"
    ]
    wrong_backward = _run([_linear_case(broken_grad=True)])
    assert [t.id().rsplit(".", 1)[-1] for t, _ in wrong_backward.failures] == [
        "test_backward__use_cuda_false"
    ]
    assert "LinkTestError" in wrong_backward.failures[0][1]


def test_link_initializers_test_case():
    from kusari import initializers

    def case(bias_options):
        @testing.inject_backend_tests(None, [{}])
        class TestLinearInit(testing.LinkInitializersTestCase):
            param_names = ("W", "b")

            def generate_params(self):
                return initializers.Constant(1.0), initializers.Constant(0.0)

            def generate_inputs(self):
                return (np.ones((1, 2), np.float32),)

            def create_link(self, inits):
                return L.Linear(2, 3, initialW=inits[0], initial_bias=inits[1])

            def get_initializers(self):
                return ([initializers.Constant(2.0), 3.0], bias_options)

        return TestLinearInit

    good = _run([case([4.0, testing.InitializerArgument(None, 0.0)])])
    assert good.testsRun == 1 and good.wasSuccessful(), good.failures + good.errors
    # Linear's default bias is 0, not 5: the test must say so.
    bad = _run([case([testing.InitializerArgument(None, 5.0)])])
    assert len(bad.failures) == 1 and "'b' initialized with None" in bad.failures[0][1]
