"""The fan-scaled initializers hand their distribution the documented spread."""

import math

import numpy as np
import pytest

from kusari import initializers as I


class RecordingRng:
    """Answers ``normal``/``uniform`` with zeros and remembers the parameters."""

    def __init__(self):
        self.calls = []

    def normal(self, size, loc, scale):
        self.calls.append(("normal", scale))
        return np.zeros(size)

    def uniform(self, size, low, high):
        self.calls.append(("uniform", high))
        return np.zeros(size)


FAN_IN, FAN_OUT = 3 * 5 * 5, 7 * 5 * 5  # a (7, 3, 5, 5) convolution kernel


@pytest.mark.parametrize(
    "cls, kwargs, method, spread",
    [
        (I.LeCunNormal, {}, "normal", math.sqrt(1 / FAN_IN)),
        (I.GlorotNormal, {}, "normal", math.sqrt(2 / (FAN_IN + FAN_OUT))),
        (I.HeNormal, {}, "normal", math.sqrt(2 / FAN_IN)),
        (I.HeNormal, {"fan_option": "fan_out"}, "normal", math.sqrt(2 / FAN_OUT)),
        (I.LeCunUniform, {}, "uniform", math.sqrt(3 / FAN_IN)),
        (I.GlorotUniform, {}, "uniform", math.sqrt(6 / (FAN_IN + FAN_OUT))),
        (I.HeUniform, {}, "uniform", math.sqrt(6 / FAN_IN)),
        (I.HeUniform, {"fan_option": "fan_out"}, "uniform", math.sqrt(6 / FAN_OUT)),
    ],
)
def test_spread_follows_the_fan(cls, kwargs, method, spread):
    rng = RecordingRng()
    init = cls(scale=1.5, rng=rng, **kwargs)
    init(np.empty((7, 3, 5, 5), np.float32))
    assert rng.calls == [(method, pytest.approx(1.5 * spread, rel=1e-12))]
    assert init.scale == 1.5 and init.rng is rng
    if "fan_option" in kwargs:
        assert init.fan_option == kwargs["fan_option"]
