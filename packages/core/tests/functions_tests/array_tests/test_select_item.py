import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("b,n", [(4, 3), (1, 1), (5, 2)])
@pytest.mark.parametrize("tdtype", [np.int32, np.int64])
def test_select_item(b, n, tdtype, float_dtype, device):
    t = np.random.default_rng(3).integers(0, n, b).astype(tdtype)
    check_op(
        F.select_item,
        lambda x, t: x[np.arange(len(t)), t],
        [(b, n), t],
        dtype=float_dtype,
        device=device,
    )


def test_select_item_errors():
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(type_check.InvalidType, match="SelectItem"):
        F.select_item(x, np.zeros(2, np.int32))
    with pytest.raises(type_check.InvalidType, match="kind"):
        F.select_item(x, np.zeros(3, np.float32))
    with pytest.raises(type_check.InvalidType, match="ndim"):
        F.select_item(np.zeros(3, np.float32), np.zeros(3, np.int32))


def test_select_item_debug_bounds():
    x = np.zeros((2, 3), np.float32)
    with kusari.using_config("debug", True):
        with pytest.raises(ValueError, match="out of bounds"):
            F.select_item(x, np.array([0, 3], np.int32))
