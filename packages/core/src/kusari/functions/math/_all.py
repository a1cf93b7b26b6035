"""Public names of kusari.functions.math (re-exported by kusari.functions)."""

from kusari.functions.math.basic_math import absolute, add
from kusari.functions.math.exponential import exp, log, log2, log10
from kusari.functions.math.matmul import matmul
from kusari.functions.math.sum import sum, sum_to

__all__ = ["absolute", "add", "exp", "log", "log10", "log2", "matmul", "sum", "sum_to"]
