"""kusari.utils.cache.cached_property."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
from kusari.utils.cache import cached_property


class _Squares:
    def __init__(self, x):
        self.x = kusari.Variable(np.asarray(x, np.float64))
        self.calls = 0

    @cached_property
    def sq(self):
        """x squared."""
        self.calls += 1
        return self.x * self.x


def test_value_is_computed_once_per_backprop_mode():
    s = _Squares([3.0])
    a = s.sq
    assert s.sq is a and s.calls == 1
    with kusari.no_backprop_mode():
        b = s.sq
        assert s.sq is b
    assert b is not a and s.calls == 2
    assert s.sq is a  # the graph-recording value is still kept
    # The value kept for backprop mode has a graph to differentiate.
    a.backward()
    np.testing.assert_allclose(s.x.grad, [6.0])
    assert b.creator is None


def test_objects_keep_their_own_values_and_the_getter_metadata():
    s, t = _Squares([1.0]), _Squares([2.0])
    np.testing.assert_allclose(s.sq.array, [1.0])
    np.testing.assert_allclose(t.sq.array, [4.0])
    assert _Squares.sq.__name__ == "sq" and _Squares.sq.__doc__ == "x squared."


def test_property_is_read_only():
    with pytest.raises(
        AttributeError, match="cached_property: attribute 'sq'.*read-only"
    ):
        _Squares([1.0]).sq = 3
