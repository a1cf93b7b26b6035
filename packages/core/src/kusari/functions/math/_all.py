"""Public names of kusari.functions.math (re-exported by kusari.functions)."""

from kusari.functions.math.arctanh import arctanh
from kusari.functions.math.average import average, mean
from kusari.functions.math.basic_math import absolute, add
from kusari.functions.math.batch_l2_norm_squared import batch_l2_norm_squared
from kusari.functions.math.bias import bias
from kusari.functions.math.ceil import ceil
from kusari.functions.math.cholesky import cholesky
from kusari.functions.math.clip import clip
from kusari.functions.math.cumprod import cumprod
from kusari.functions.math.cumsum import cumsum
from kusari.functions.math.det import batch_det, det
from kusari.functions.math.digamma import digamma
from kusari.functions.math.einsum import einsum
from kusari.functions.math.erf import erf
from kusari.functions.math.erfc import erfc
from kusari.functions.math.erfcinv import erfcinv
from kusari.functions.math.erfcx import erfcx
from kusari.functions.math.erfinv import erfinv
from kusari.functions.math.exponential import exp, log, log2, log10
from kusari.functions.math.exponential_m1 import expm1
from kusari.functions.math.fft import fft, ifft
from kusari.functions.math.fix import fix
from kusari.functions.math.floor import floor
from kusari.functions.math.fmod import fmod
from kusari.functions.math.hyperbolic import cosh, sinh
from kusari.functions.math.identity import identity
from kusari.functions.math.inv import batch_inv, inv
from kusari.functions.math.lgamma import lgamma
from kusari.functions.math.linear_interpolate import linear_interpolate
from kusari.functions.math.log_ndtr import log_ndtr
from kusari.functions.math.logarithm_1p import log1p
from kusari.functions.math.logsumexp import logsumexp
from kusari.functions.math.matmul import batch_matmul, matmul
from kusari.functions.math.maximum import maximum
from kusari.functions.math.minimum import minimum
from kusari.functions.math.minmax import argmax, argmin, max, min
from kusari.functions.math.ndtr import ndtr
from kusari.functions.math.ndtri import ndtri
from kusari.functions.math.polygamma import polygamma
from kusari.functions.math.prod import prod
from kusari.functions.math.scale import scale
from kusari.functions.math.sign import sign
from kusari.functions.math.sparse_matmul import sparse_matmul
from kusari.functions.math.sqrt import rsqrt, sqrt
from kusari.functions.math.square import square
from kusari.functions.math.squared_difference import squared_difference
from kusari.functions.math.sum import sum, sum_to
from kusari.functions.math.tensordot import tensordot
from kusari.functions.math.trigonometric import (
    arccos,
    arcsin,
    arctan,
    arctan2,
    cos,
    sin,
    tan,
)
from kusari.functions.math.zeta import zeta

__all__ = [
    "absolute",
    "add",
    "arccos",
    "arcsin",
    "arctan",
    "arctan2",
    "arctanh",
    "argmax",
    "argmin",
    "average",
    "batch_det",
    "batch_inv",
    "batch_l2_norm_squared",
    "batch_matmul",
    "bias",
    "ceil",
    "cholesky",
    "clip",
    "cos",
    "cosh",
    "cumprod",
    "cumsum",
    "det",
    "digamma",
    "einsum",
    "erf",
    "erfc",
    "erfcinv",
    "erfcx",
    "erfinv",
    "exp",
    "expm1",
    "fft",
    "fix",
    "floor",
    "fmod",
    "identity",
    "ifft",
    "inv",
    "lgamma",
    "linear_interpolate",
    "log",
    "log10",
    "log1p",
    "log2",
    "log_ndtr",
    "logsumexp",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "ndtr",
    "ndtri",
    "polygamma",
    "prod",
    "rsqrt",
    "scale",
    "sign",
    "sin",
    "sinh",
    "sparse_matmul",
    "sqrt",
    "squared_difference",
    "square",
    "sum",
    "sum_to",
    "tan",
    "tensordot",
    "zeta",
]
