import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 2), ()])
@pytest.mark.parametrize("fn,ref", [(F.sinh, np.sinh), (F.cosh, np.cosh)])
def test_hyperbolic(fn, ref, shape, float_dtype, device):
    check_op(fn, ref, [shape], dtype=float_dtype, device=device)


@pytest.mark.parametrize("fn", [F.sinh, F.cosh])
def test_int_input_is_rejected(fn):
    with pytest.raises(type_check.InvalidType, match=fn.__name__):
        fn(np.zeros(3, np.int32))
