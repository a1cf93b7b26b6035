"""Classifier: which argument is the label, and the errors when it is missing."""

import numpy as np
import pytest

import kusari
import kusari.links as L


class Sum(kusari.Link):
    """Scores = a (+ b); records what reached the predictor."""

    def forward(self, a, b=None):
        self.got = (a, b)
        return a if b is None else a + b


def _data():
    x = np.array([[2.0, 0.0], [0.0, 3.0]], np.float32)
    t = np.array([0, 1], np.int32)
    return x, t


def test_label_by_position_and_by_name():
    x, t = _data()
    model = L.Classifier(Sum(), label_key=0)
    loss = model(t, x)
    assert model.predictor.got[0] is x
    ref = -np.log(np.exp(x[[0, 1], [0, 1]]) / np.exp(x).sum(1)).mean()
    np.testing.assert_allclose(loss.array, ref, rtol=1e-6)
    model = L.Classifier(Sum(), label_key="t")
    model(x, t=t)
    assert model.predictor.got == (x, None)
    assert float(model.accuracy.array) == 1.0


def test_label_key_errors_use_chainers_words():
    x, t = _data()
    with pytest.raises(TypeError, match="label_key must be int or str, but is"):
        L.Classifier(Sum(), label_key=1.0)
    with pytest.raises(ValueError, match="Label key 2 is out of bounds"):
        L.Classifier(Sum(), label_key=2)(x, t)
    with pytest.raises(ValueError, match='Label key "t" is not found'):
        L.Classifier(Sum(), label_key="t")(x, u=t)
