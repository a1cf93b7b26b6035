"""``distribution_unittest``: the standard tests of a probability distribution.

A subclass describes the distribution and its SciPy counterpart in
``setUp_configure``; the base class then compares each quantity listed in
``test_targets`` with SciPy's, on the CPU and (where present) the GPU.
"""

from __future__ import annotations

import functools
import unittest
from collections.abc import Callable, Iterator
from typing import Any

import numpy

from kusari.backends import cuda
from kusari.testing import attr
from kusari.testing.array import assert_allclose
from kusari.utils import size_of_shape
from kusari.variable import Variable

TARGETS = frozenset(
    {
        "batch_shape",
        "cdf",
        "entropy",
        "event_shape",
        "icdf",
        "log_cdf",
        "log_prob",
        "log_survival",
        "mean",
        "prob",
        "sample",
        "stddev",
        "support",
        "survival",
        "variance",
    }
)

# Draws compared in the sample check (their mean and standard deviation).
_N_SAMPLES = 100000


class distribution_unittest(unittest.TestCase):
    """Base class of distribution tests, as ``chainer.testing.distribution_unittest``.

    A subclass is parameterized (usually with :func:`kusari.testing.parameterize`)
    over ``shape`` (the batch shape), ``is_variable`` (pass the parameters as
    Variables) and ``sample_shape``, and defines:

    - ``setUp_configure(self)``, which sets ``self.dist`` (the distribution
      class), ``self.scipy_dist`` (the ``scipy.stats`` object), ``self.params``
      (keyword arguments of ``dist``), ``self.scipy_params`` (those of the
      SciPy calls) and ``self.test_targets`` (a subset of ``batch_shape``,
      ``cdf``, ``entropy``, ``event_shape``, ``icdf``, ``log_cdf``,
      ``log_prob``, ``log_survival``, ``mean``, ``prob``, ``sample``,
      ``stddev``, ``support``, ``survival``, ``variance``), and may change
      ``self.support`` (``'real'``), ``self.event_shape`` (``()``),
      ``self.continuous`` (True: SciPy's ``pdf``, else ``pmf``) and
      ``self.options`` (extra keyword arguments of ``dist`` not passed as
      Variables);
    - ``sample_for_test(self)``, points of shape
      ``sample_shape + shape + event_shape`` in the support.

    Set the class attribute ``scipy_onebyone = True`` when SciPy cannot
    broadcast the parameters (as for multivariate distributions): the
    reference is then computed one batch element at a time.

    Each target gives ``test_<target>_cpu`` and ``test_<target>_gpu``, which
    call ``check_<target>(is_gpu)``; targets not listed are skipped.

    Example:
        >>> import io, unittest
        >>> import numpy
        >>> from kusari import distributions, testing
        >>> class TestExponential(testing.distribution_unittest):
        ...     shape, sample_shape, is_variable = (2, 3), (4,), True
        ...     def setUp_configure(self):
        ...         from scipy import stats
        ...         self.dist = distributions.Exponential
        ...         self.scipy_dist = stats.expon
        ...         self.test_targets = {'batch_shape', 'cdf', 'mean', 'support'}
        ...         lam = numpy.random.uniform(0.5, 2, self.shape).astype('f')
        ...         self.params = {'lam': lam}
        ...         self.scipy_params = {'scale': 1 / lam}
        ...         self.support = 'positive'
        ...     def sample_for_test(self):
        ...         return numpy.random.uniform(
        ...             0.1, 3, self.sample_shape + self.shape).astype('f')
        >>> suite = unittest.defaultTestLoader.loadTestsFromTestCase(TestExponential)
        >>> result = unittest.TextTestRunner(stream=io.StringIO()).run(suite)
        >>> result.wasSuccessful(), result.testsRun - len(result.skipped)
        (True, 4)

        In a test module the class is usually multiplied with
        ``@testing.parameterize(*testing.product({'shape': [(2, 3), ()],
        'is_variable': [True, False], 'sample_shape': [(3,), ()]}))``.
    """

    # pytest collects every TestCase in a test module's namespace; the base
    # class (imported with ``from kusari.testing import ...``) has no tests of
    # its own, while its subclasses are collected again (__init_subclass__).
    __test__ = False
    scipy_onebyone = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__test__" not in cls.__dict__:
            cls.__test__ = True

    # Set by the subclass's parameters and setUp_configure.
    dist: Any
    scipy_dist: Any
    params: dict[str, Any]
    scipy_params: dict[str, Any]
    shape: tuple[int, ...]

    def setUp(self) -> None:
        self.support = "real"
        if not hasattr(self, "event_shape"):
            self.event_shape = ()
        if not hasattr(self, "sample_shape"):
            self.sample_shape = ()
        self.continuous = True
        self.test_targets: set[str] = set()
        self.options: dict[str, Any] = {}
        self.setUp_configure()
        if not hasattr(self, "shape"):
            raise AttributeError(
                f"{type(self).__name__}: distribution_unittest needs the batch "
                "shape as self.shape (usually a testing.parameterize parameter)"
            )
        unknown = set(self.test_targets) - TARGETS
        if unknown:
            raise ValueError(
                f"{type(self).__name__}: invalid target(s) {sorted(unknown)} in "
                f"test_targets; the targets are {sorted(TARGETS)}"
            )
        if getattr(self, "is_variable", False):
            self.params = {k: Variable(v) for k, v in self.params.items()}

    def setUp_configure(self) -> None:
        """Set ``dist``, ``scipy_dist``, ``params``, ``scipy_params`` and
        ``test_targets`` (see the class docstring)."""
        raise NotImplementedError(
            f"{type(self).__name__} must define setUp_configure(self)"
        )

    def sample_for_test(self) -> Any:
        """Points at which to compare densities and distribution functions."""
        raise NotImplementedError(
            f"{type(self).__name__} must define sample_for_test(self) for the "
            "cdf, log_cdf, log_prob, log_survival, prob and survival targets"
        )

    # -- the distributions under test --------------------------------------------

    @property
    def cpu_dist(self) -> Any:
        """The distribution built from ``params`` and ``options``."""
        return self.dist(**self.params, **self.options)

    @property
    def gpu_dist(self) -> Any:
        """The same distribution with its parameters on the current GPU."""
        params = {}
        for k, v in self.params.items():
            if isinstance(v, Variable):
                params[k] = Variable(cuda.to_gpu(v.array))
            else:
                params[k] = cuda.to_gpu(v)
        return self.dist(**params, **self.options)

    def _dist(self, is_gpu: bool) -> Any:
        return self.gpu_dist if is_gpu else self.cpu_dist

    def _sample(self, is_gpu: bool) -> tuple[Any, Any]:
        """A test sample: as the distribution takes it, and on the host."""
        smp = numpy.asarray(self.sample_for_test())
        return (cuda.to_gpu(smp) if is_gpu else smp), smp

    def scipy_onebyone_params_iter(self) -> Iterator[dict[str, Any]]:
        """SciPy's parameters for each batch element in turn."""
        for index in numpy.ndindex(*self.shape):
            yield {k: v[index] for k, v in self.scipy_params.items()}

    def _scipy_stat(self, name: str, shape: tuple[int, ...]) -> Any:
        """``scipy_dist.<name>(**scipy_params)``, one by one when asked."""
        fn = getattr(self.scipy_dist, name)
        if not self.scipy_onebyone:
            return fn(**self.scipy_params)
        values = [numpy.asarray(fn(**p)) for p in self.scipy_onebyone_params_iter()]
        return numpy.stack(values).reshape(shape)

    # -- the checks ------------------------------------------------------------------

    def check_batch_shape(self, is_gpu: bool) -> None:
        self.assertEqual(self._dist(is_gpu).batch_shape, self.shape)

    def check_event_shape(self, is_gpu: bool) -> None:
        self.assertEqual(self._dist(is_gpu).event_shape, self.event_shape)

    def check_support(self, is_gpu: bool) -> None:
        self.assertEqual(self._dist(is_gpu).support, self.support)

    def _check_function(self, method: str, scipy_name: str, is_gpu: bool) -> None:
        smp, host = self._sample(is_gpu)
        actual = getattr(self._dist(is_gpu), method)(smp).array
        expected = getattr(self.scipy_dist, scipy_name)(host, **self.scipy_params)
        assert_allclose(actual, expected)

    def check_cdf(self, is_gpu: bool) -> None:
        self._check_function("cdf", "cdf", is_gpu)

    def check_log_cdf(self, is_gpu: bool) -> None:
        self._check_function("log_cdf", "logcdf", is_gpu)

    def check_survival(self, is_gpu: bool) -> None:
        self._check_function("survival_function", "sf", is_gpu)

    def check_log_survival(self, is_gpu: bool) -> None:
        self._check_function("log_survival_function", "logsf", is_gpu)

    def check_prob(self, is_gpu: bool) -> None:
        self._check_function("prob", "pdf" if self.continuous else "pmf", is_gpu)

    def check_log_prob(self, is_gpu: bool) -> None:
        smp, host = self._sample(is_gpu)
        actual = self._dist(is_gpu).log_prob(smp).array
        fn = getattr(self.scipy_dist, "logpdf" if self.continuous else "logpmf")
        if not self.scipy_onebyone:
            expected = fn(host, **self.scipy_params)
        else:
            # (sample..., batch..., event...) -> one column of points per batch
            # element, each evaluated with that element's parameters.
            n_sample = size_of_shape(self.sample_shape)
            flat = host.reshape(
                (n_sample, size_of_shape(self.shape)) + tuple(self.event_shape)
            )
            columns = [
                numpy.asarray(fn(flat[:, i], **p)).reshape(n_sample)
                for i, p in enumerate(self.scipy_onebyone_params_iter())
            ]
            expected = numpy.stack(columns, axis=1).reshape(
                self.sample_shape + self.shape
            )
        assert_allclose(actual, expected)

    def check_icdf(self, is_gpu: bool) -> None:
        host = numpy.random.uniform(
            1e-5, 1 - 1e-5, self.sample_shape + self.shape
        ).astype(numpy.float32)
        smp = cuda.to_gpu(host) if is_gpu else host
        actual = self._dist(is_gpu).icdf(smp).array
        assert_allclose(actual, self.scipy_dist.ppf(host, **self.scipy_params))

    def check_entropy(self, is_gpu: bool) -> None:
        actual = self._dist(is_gpu).entropy.array
        assert_allclose(actual, self._scipy_stat("entropy", self.shape))

    def check_mean(self, is_gpu: bool) -> None:
        dist = self._dist(is_gpu)
        expected = self._scipy_stat("mean", self.shape + dist.event_shape)
        assert_allclose(dist.mean.array, expected)

    def check_variance(self, is_gpu: bool) -> None:
        dist = self._dist(is_gpu)
        expected = self._scipy_stat("var", self.shape + dist.event_shape)
        assert_allclose(dist.variance.array, expected)

    def check_stddev(self, is_gpu: bool) -> None:
        actual = self._dist(is_gpu).stddev.array
        assert_allclose(actual, self.scipy_dist.std(**self.scipy_params))

    def check_sample(self, is_gpu: bool) -> None:
        dist = self._dist(is_gpu)
        draws = (_N_SAMPLES,) + tuple(self.sample_shape)
        actual = cuda.to_cpu(dist.sample(sample_shape=draws).array)
        if self.scipy_onebyone:
            # Each batch element's draws, put back between the sample axes
            # and the event axes.
            parts = [
                numpy.asarray(self.scipy_dist.rvs(size=draws, **p)).reshape(
                    draws + dist.event_shape
                )
                for p in self.scipy_onebyone_params_iter()
            ]
            expected = numpy.stack(parts, axis=len(draws)).reshape(
                draws + self.shape + dist.event_shape
            )
        else:
            expected = self.scipy_dist.rvs(size=draws + self.shape, **self.scipy_params)
        assert_allclose(
            actual.mean(axis=0), expected.mean(axis=0), atol=3e-2, rtol=3e-2
        )
        assert_allclose(actual.std(axis=0), expected.std(axis=0), atol=3e-2, rtol=3e-2)


def _skip_unless_target(target: str, f: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(f)
    def run(self: distribution_unittest) -> None:
        if target not in self.test_targets:
            self.skipTest(f"'{target}' is not in test_targets")
        f(self)

    return run


def _add_tests() -> None:
    """``test_<target>_cpu`` and ``test_<target>_gpu`` for every target."""
    for target in sorted(TARGETS):

        def cpu(self: distribution_unittest, _t: str = target) -> None:
            getattr(self, f"check_{_t}")(False)

        def gpu(self: distribution_unittest, _t: str = target) -> None:
            if not cuda.available:  # for runners that ignore pytest's marks
                self.skipTest("CuPy / a CUDA GPU is not available")
            getattr(self, f"check_{_t}")(True)

        for suffix, f in (("cpu", cpu), ("gpu", gpu)):
            name = f"test_{target}_{suffix}"
            f.__name__ = f.__qualname__ = name
            test = _skip_unless_target(target, f)
            if suffix == "gpu":
                test = attr.gpu(test)
            setattr(distribution_unittest, name, test)


_add_tests()
