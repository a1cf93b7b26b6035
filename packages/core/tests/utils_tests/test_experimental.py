"""``kusari.utils.experimental`` and the flag that silences it."""

from __future__ import annotations

import warnings

import pytest

import kusari
from kusari import utils


@pytest.fixture
def flag():
    saved = kusari.disable_experimental_feature_warning
    yield
    kusari.disable_experimental_feature_warning = saved


def test_warns_with_the_api_name(flag):
    kusari.disable_experimental_feature_warning = False
    with pytest.warns(FutureWarning, match="my_api is experimental"):
        utils.experimental("my_api")


def test_flag_silences_it(flag):
    kusari.disable_experimental_feature_warning = True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        utils.experimental("my_api")  # would raise if it warned


def test_flag_is_a_plain_false_bool_by_default():
    # Chainer v7 code sets the attribute rather than calling a function.
    assert kusari.disable_experimental_feature_warning is False
