"""Array backends: NumPy (``_cpu``) and CuPy (``cuda``)."""

from kusari.backends import cuda
