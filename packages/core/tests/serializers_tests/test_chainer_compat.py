"""npz files written by real Chainer 7.8.1 load into kusari models.

The fixtures in ``chainer_fixtures/`` were made by
``tools/make_chainer_fixtures.py`` under Chainer (see the README there); the
models are defined once, in ``_chainer_compat_models.py``, and built here
with ``kusari`` in place of ``chainer``. For each one the test checks that

* kusari's model has exactly Chainer's npz keys, shapes and dtypes;
* ``kusari.serializers.load_npz`` puts every array where Chainer had it;
* the loaded model maps Chainer's saved input to Chainer's saved output.

Optimizer states (``save_npz(optimizer)``) load into kusari's optimizers
with the same names, and one more update gives Chainer's parameters.
"""

from __future__ import annotations

import json
from pathlib import Path

import _chainer_compat_models as models
import numpy as np
import pytest

import kusari
from kusari import serializers

FIXTURES = Path(__file__).parent / "chainer_fixtures"


def _npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def _io(stem: str) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    d = _npz(FIXTURES / f"{stem}_io.npz")
    inp = {k[3:]: v for k, v in d.items() if k.startswith("in/")}
    out = {k[4:]: v for k, v in d.items() if k.startswith("out/")}
    return inp, out


def _saved(target) -> dict[str, np.ndarray]:
    s = serializers.DictionarySerializer()
    s.save(target)
    return {k: np.asarray(v) for k, v in s.target.items()}


def _layout(d: dict[str, np.ndarray]) -> dict[str, tuple]:
    # Float arrays must match in dtype; integer counters (N, t, epoch) only
    # in being integers.
    return {
        k: (v.shape, v.dtype.str if v.dtype.kind == "f" else v.dtype.kind)
        for k, v in d.items()
    }


def test_fixtures_exist() -> None:
    versions = json.loads((FIXTURES / "VERSIONS.json").read_text())
    assert versions["chainer"] == "7.8.1"
    for sp in models.SPECS:
        assert (FIXTURES / f"{sp.name}.npz").is_file(), sp.name
        assert (FIXTURES / f"{sp.name}_io.npz").is_file(), sp.name


@pytest.mark.parametrize("name", [sp.name for sp in models.SPECS])
def test_load_chainer_npz(name: str) -> None:
    sp = models.SPEC_BY_NAME[name]
    theirs = _npz(FIXTURES / f"{name}.npz")
    model = sp.build(kusari)
    if not sp.lazy:
        assert _layout(_saved(model)) == _layout(theirs)

    serializers.load_npz(str(FIXTURES / f"{name}.npz"), model)
    loaded = _saved(model)
    assert _layout(loaded) == _layout(theirs)
    for key, value in theirs.items():
        np.testing.assert_array_equal(loaded[key], value, err_msg=key)

    inp, expected = _io(name)
    with kusari.using_config("train", False):
        out = sp.run(kusari, model, inp)
    assert sorted(out) == sorted(expected)
    for key, value in expected.items():
        got = np.asarray(out[key])
        assert got.shape == value.shape, key
        if value.dtype.kind == "f":
            assert got.dtype == value.dtype, key
            np.testing.assert_allclose(got, value, rtol=1e-4, atol=1e-5, err_msg=key)
        else:
            np.testing.assert_array_equal(got, value, err_msg=key)


def _zoo_table() -> dict[str, dict[str, list]]:
    return json.loads((FIXTURES / "zoo_keys.json").read_text())


# VGG-16 has 138M parameters: building it takes seconds.
_ZOO_PARAMS = [
    pytest.param(name, marks=pytest.mark.slow) if name == "VGG16Layers" else name
    for name in sorted(models.ZOO)
]


@pytest.mark.parametrize("name", _ZOO_PARAMS)
def test_zoo_names_and_shapes(name: str) -> None:
    expected = {k: (tuple(s), d) for k, (s, d) in _zoo_table()[name].items()}
    model = models.ZOO[name](kusari)
    ours = {k: (v.shape, v.dtype.str) for k, v in _saved(model).items()}
    assert sorted(set(ours) - set(expected)) == []
    assert sorted(set(expected) - set(ours)) == []
    for key in expected:
        exp_shape, exp_dtype = expected[key]
        assert ours[key][0] == exp_shape, key
        if np.dtype(exp_dtype).kind == "f":
            assert ours[key][1] == exp_dtype, key
        else:
            assert np.dtype(ours[key][1]).kind == np.dtype(exp_dtype).kind, key


@pytest.mark.parametrize("name", sorted(models.OPTIMIZERS))
def test_load_chainer_optimizer_state(name: str) -> None:
    stem = FIXTURES / f"opt_{name}"
    model = models.optimizer_model(kusari)
    serializers.load_npz(f"{stem}_model.npz", model)
    optimizer = models.OPTIMIZERS[name](kusari)
    optimizer.setup(model)
    theirs = _npz(Path(f"{stem}.npz"))

    serializers.load_npz(f"{stem}.npz", optimizer)
    loaded = _saved(optimizer)
    assert _layout(loaded) == _layout(theirs)
    for key, value in theirs.items():
        np.testing.assert_array_equal(loaded[key], value, err_msg=key)
    assert optimizer.t == int(theirs["t"])
    assert optimizer.epoch == int(theirs["epoch"])

    inp, expected = _io(f"opt_{name}")
    models.optimizer_step(kusari, model, optimizer, inp["x"], inp["t"])
    params = {k.lstrip("/"): p.array for k, p in model.namedparams()}
    assert sorted(params) == sorted(expected)
    for key, value in expected.items():
        np.testing.assert_allclose(params[key], value, rtol=1e-5, atol=1e-6)


def test_load_classifier_npz_into_bare_predictor() -> None:
    # A model saved inside L.Classifier loads into the bare predictor with
    # path="predictor/", as in Chainer.
    mlp = models.SPEC_BY_NAME["classifier"].build(kusari).predictor
    serializers.load_npz(str(FIXTURES / "classifier.npz"), mlp, path="predictor/")
    inp, expected = _io("classifier")
    with kusari.using_config("train", False):
        y = mlp(inp["x"])
    np.testing.assert_allclose(y.array, expected["y"], rtol=1e-4, atol=1e-5)
