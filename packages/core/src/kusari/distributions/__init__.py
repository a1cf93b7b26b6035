"""Probability distributions (Chainer's ``chainer.distributions``).

Every distribution takes Variables or arrays as parameters; log-probabilities,
statistics and (where reparameterised) samples are differentiable with
respect to them. KL divergences are looked up with
:func:`kusari.distribution.kl_divergence`.
"""

from kusari.distributions.bernoulli import Bernoulli
from kusari.distributions.beta import Beta
from kusari.distributions.categorical import Categorical
from kusari.distributions.cauchy import Cauchy
from kusari.distributions.chisquare import Chisquare
from kusari.distributions.dirichlet import Dirichlet
from kusari.distributions.exponential import Exponential
from kusari.distributions.gamma import Gamma
from kusari.distributions.geometric import Geometric
from kusari.distributions.gumbel import Gumbel
from kusari.distributions.independent import Independent
from kusari.distributions.laplace import Laplace
from kusari.distributions.log_normal import LogNormal
from kusari.distributions.multivariate_normal import MultivariateNormal
from kusari.distributions.normal import Normal
from kusari.distributions.one_hot_categorical import OneHotCategorical
from kusari.distributions.pareto import Pareto
from kusari.distributions.poisson import Poisson
from kusari.distributions.uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Categorical",
    "Cauchy",
    "Chisquare",
    "Dirichlet",
    "Exponential",
    "Gamma",
    "Geometric",
    "Gumbel",
    "Independent",
    "Laplace",
    "LogNormal",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Pareto",
    "Poisson",
    "Uniform",
]
