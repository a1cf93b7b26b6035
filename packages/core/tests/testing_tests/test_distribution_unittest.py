"""testing.distribution_unittest run on kusari's distributions, and tests of
the harness itself (it must fail on a wrong distribution, skip what is not
listed, reject unknown targets)."""

import io
import unittest

import numpy
import pytest

from kusari import distributions, testing

stats = pytest.importorskip("scipy.stats")


def _uniform(low, high, shape):
    # An array even for shape () (numpy.random gives a scalar there), as
    # Variable takes arrays only; Chainer's tests use utils.force_array.
    return numpy.asarray(numpy.random.uniform(low, high, shape), numpy.float32)


PARAMS = testing.product(
    {"shape": [(2, 3), ()], "is_variable": [True, False], "sample_shape": [(3,), ()]}
)


@testing.parameterize(
    *testing.product_dict(PARAMS, [{"log_scale": False}, {"log_scale": True}])
)
@testing.fix_random()
class TestNormal(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Normal
        self.scipy_dist = stats.norm
        self.test_targets = set(testing._distribution.TARGETS)
        loc = _uniform(-1, 1, self.shape)
        log_scale = _uniform(-1, 1, self.shape)
        scale = numpy.asarray(numpy.exp(log_scale))
        if self.log_scale:
            self.params = {"loc": loc, "log_scale": log_scale}
        else:
            self.params = {"loc": loc, "scale": scale}
        self.scipy_params = {"loc": loc, "scale": scale}

    def sample_for_test(self):
        return numpy.random.normal(size=self.sample_shape + self.shape).astype(
            numpy.float32
        )


@testing.parameterize(*PARAMS)
@testing.fix_random()
class TestExponential(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Exponential
        self.scipy_dist = stats.expon
        self.test_targets = {
            "batch_shape",
            "cdf",
            "entropy",
            "event_shape",
            "icdf",
            "log_cdf",
            "log_prob",
            "mean",
            "prob",
            "sample",
            "stddev",
            "support",
            "variance",
        }
        lam = _uniform(0.5, 2, self.shape)
        self.params = {"lam": lam}
        self.scipy_params = {"scale": 1 / lam}
        self.support = "positive"

    def sample_for_test(self):
        return numpy.random.uniform(0.1, 3, self.sample_shape + self.shape).astype(
            numpy.float32
        )


@testing.parameterize(*PARAMS)
@testing.fix_random()
class TestBernoulli(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist = distributions.Bernoulli
        self.scipy_dist = stats.bernoulli
        self.test_targets = {
            "batch_shape",
            "entropy",
            "log_prob",
            "mean",
            "prob",
            "sample",
            "stddev",
            "support",
            "variance",
        }
        p = _uniform(0.1, 0.9, self.shape)
        self.params = {"p": p}
        self.scipy_params = {"p": p}
        self.support = "{0, 1}"
        self.continuous = False

    def sample_for_test(self):
        return numpy.random.randint(0, 2, self.sample_shape + self.shape).astype(
            numpy.float32
        )


@testing.parameterize(*PARAMS)
@testing.fix_random()
class TestMultivariateNormal(testing.distribution_unittest):
    # SciPy's multivariate_normal does not broadcast over a batch.
    scipy_onebyone = True

    def setUp_configure(self):
        self.dist = distributions.MultivariateNormal
        self.scipy_dist = stats.multivariate_normal
        self.event_shape = (2,)
        self.test_targets = {
            "batch_shape",
            "entropy",
            "event_shape",
            "log_prob",
            "mean",
            "sample",
            "support",
            "variance",
        }
        loc = _uniform(-1, 1, self.shape + (2,))
        tril = numpy.random.uniform(-0.5, 0.5, self.shape + (2, 2))
        tril = numpy.tril(tril) + 1.2 * numpy.eye(2)  # positive diagonal
        tril = tril.astype(numpy.float32)
        cov = tril @ numpy.swapaxes(tril, -1, -2)
        self.params = {"loc": loc, "scale_tril": tril}
        self.scipy_params = {"mean": loc, "cov": cov}

    def sample_for_test(self):
        return numpy.random.normal(size=self.sample_shape + self.shape + (2,)).astype(
            numpy.float32
        )

    # SciPy's multivariate_normal has no mean() or var(): a subclass may
    # replace any check_<target>.
    def check_mean(self, is_gpu):
        testing.assert_allclose(
            self._dist(is_gpu).mean.array, self.scipy_params["mean"]
        )

    def check_variance(self, is_gpu):
        expected = numpy.diagonal(self.scipy_params["cov"], axis1=-2, axis2=-1)
        testing.assert_allclose(self._dist(is_gpu).variance.array, expected)


# -- the harness itself ---------------------------------------------------------


def _run(case_class):
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case_class)
    return unittest.TextTestRunner(stream=io.StringIO()).run(suite)


def _exponential_case(scale_factor=1.0, targets=("cdf", "mean")):
    class Case(testing.distribution_unittest):
        shape, sample_shape, is_variable = (3,), (), False

        def setUp_configure(self):
            self.dist = distributions.Exponential
            self.scipy_dist = stats.expon
            self.test_targets = set(targets)
            lam = numpy.array([0.5, 1.0, 2.0], numpy.float32)
            self.params = {"lam": lam}
            self.scipy_params = {"scale": scale_factor / lam}

        def sample_for_test(self):
            return numpy.array([0.2, 1.0, 3.0], numpy.float32)

    return Case


def test_harness_passes_and_skips_unlisted_targets():
    result = _run(_exponential_case())
    assert result.wasSuccessful()
    skipped = {t.id().rsplit(".", 1)[-1] for t, _ in result.skipped}
    assert "test_entropy_cpu" in skipped and "test_cdf_cpu" not in skipped
    assert result.testsRun - len(result.skipped) == 2  # cdf and mean, CPU


def test_harness_fails_on_a_wrong_distribution():
    result = _run(_exponential_case(scale_factor=1.5))
    failed = sorted(t.id().rsplit(".", 1)[-1] for t, _ in result.failures)
    assert failed == ["test_cdf_cpu", "test_mean_cpu"]


def test_harness_rejects_unknown_targets():
    result = _run(_exponential_case(targets=("mean", "kurtosis")))
    assert result.errors
    assert all("invalid target" in text for _, text in result.errors)


def test_base_class_is_not_collected_but_subclasses_are():
    assert testing.distribution_unittest.__test__ is False
    assert _exponential_case().__test__ is True
    assert TestNormal.classes[0].__test__ is True
