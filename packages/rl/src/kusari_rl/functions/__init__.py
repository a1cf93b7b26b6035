"""Functions used by the agents, beyond what ``kusari.functions`` offers.

Each one is differentiable (double backprop included) and works on NumPy and
CuPy arrays alike.
"""

from kusari_rl.functions.bound_by_tanh import bound_by_tanh
from kusari_rl.functions.lower_triangular_matrix import (
    LowerTriangularMatrix,
    lower_triangular_matrix,
)
from kusari_rl.functions.mellowmax import maximum_entropy_mellowmax, mellowmax
from kusari_rl.functions.scale_grad import ScaleGrad, scale_grad
from kusari_rl.functions.sum_arrays import (
    SumArrays,
    WeightedSumArrays,
    sum_arrays,
    weighted_sum_arrays,
)

__all__ = [
    "LowerTriangularMatrix",
    "ScaleGrad",
    "SumArrays",
    "WeightedSumArrays",
    "bound_by_tanh",
    "lower_triangular_matrix",
    "maximum_entropy_mellowmax",
    "mellowmax",
    "scale_grad",
    "sum_arrays",
    "weighted_sum_arrays",
]
