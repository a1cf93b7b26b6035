from __future__ import annotations

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op


def _positive(rng, dtype):
    return rng.uniform(0.5, 2.0, (3, 4)).astype(dtype)


@pytest.mark.parametrize(
    "op,ref,inp",
    [
        (F.exp, np.exp, (3, 4)),
        (F.log, np.log, _positive),
        (F.log2, np.log2, _positive),
        (F.log10, np.log10, _positive),
    ],
)
def test_exponential(op, ref, inp, float_dtype, device):
    check_op(op, ref, [inp], dtype=float_dtype, device=device)


def test_exp_rejects_integers():
    from kusari.utils import type_check

    with pytest.raises(type_check.InvalidType, match="exp"):
        F.exp(np.ones(2, np.int32))
