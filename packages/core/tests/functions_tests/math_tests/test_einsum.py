import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

CASES = [
    ("ij,jk->ik", [(2, 3), (3, 2)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->i", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]),
    ("ij,jk", [(2, 3), (3, 2)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 2)]),
    ("i...->...", [(2, 3, 2)]),
    ("iij->ij", [(2, 2, 3)]),
]


@pytest.mark.parametrize("subs,shapes", CASES)
def test_einsum(subs, shapes, float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        lambda *xs: F.einsum(subs, *xs),
        lambda *xs: np.einsum(subs, *xs),
        shapes,
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_operand_count():
    with pytest.raises(ValueError, match="einsum"):
        F.einsum("ij,jk->ik", np.zeros((2, 2), np.float32))


def test_bad_subscripts():
    a = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError, match="einsum"):
        F.einsum("i1->i", a)
    with pytest.raises(ValueError, match="einsum"):
        F.einsum("ij->k", a)
    with pytest.raises(TypeError, match="einsum"):
        F.einsum(3, a)


def test_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match="einsum"):
        F.einsum(
            "ij,jk->ik", np.zeros((2, 3), np.float32), np.zeros((2, 2), np.float32)
        )
    with pytest.raises(type_check.InvalidType, match="einsum"):
        F.einsum("ijk->i", np.zeros((2, 3), np.float32))


def test_dtype_mismatch():
    with pytest.raises(type_check.InvalidType, match="einsum"):
        F.einsum("i,i->", np.zeros(2, np.float32), np.zeros(2, np.float64))
