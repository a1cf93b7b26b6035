"""The parameter names and shapes of every model stay as they were recorded.

Pretrained weights are npz files keyed by parameter path, so a refactoring that
renames or reshapes a parameter would stop saved models from loading.
``param_names.json`` holds, per model, how many parameters it has and the
SHA-256 of its sorted ``"<path> <shape>"`` lines, recorded from the code
before the models' shared parts were factored out.
"""

from __future__ import annotations

import hashlib
import json
import pathlib

import pytest

import kusari.initializers.normal
import kusari.initializers.uniform
import kusari_cv.links as L
from kusari_cv.links.model.fcis import FCISResNet101
from kusari_cv.links.model.mobilenet import TFConv2DBNActiv

_RECORDED = json.loads(
    (pathlib.Path(__file__).with_name("param_names.json")).read_text()
)

_BUILDERS = {
    "ResNet50": lambda: L.ResNet50(n_class=10),
    "ResNet101": lambda: L.ResNet101(n_class=10),
    "ResNet152": lambda: L.ResNet152(n_class=10),
    "ResNet50_he": lambda: L.ResNet50(n_class=10, arch="he"),
    "SEResNet50": lambda: L.SEResNet50(n_class=10),
    "SEResNet101": lambda: L.SEResNet101(n_class=10),
    "SEResNet152": lambda: L.SEResNet152(n_class=10),
    "SEResNeXt50": lambda: L.SEResNeXt50(n_class=10),
    "SEResNeXt101": lambda: L.SEResNeXt101(n_class=10),
    "FasterRCNNVGG16": lambda: L.FasterRCNNVGG16(n_fg_class=3),
    "FasterRCNNFPNResNet50": lambda: L.FasterRCNNFPNResNet50(n_fg_class=3),
    "FasterRCNNFPNResNet101": lambda: L.FasterRCNNFPNResNet101(n_fg_class=3),
    "MaskRCNNFPNResNet50": lambda: L.MaskRCNNFPNResNet50(n_fg_class=3),
    "MaskRCNNFPNResNet101": lambda: L.MaskRCNNFPNResNet101(n_fg_class=3),
    "LightHeadRCNNResNet101": lambda: L.LightHeadRCNNResNet101(n_fg_class=3),
    "FCISResNet101": lambda: FCISResNet101(n_fg_class=3),
    "MobileNetV2": lambda: L.MobileNetV2(n_class=10),
    "Conv2DActiv": lambda: L.Conv2DActiv(3, 4, 3),
    "Conv2DBNActiv": lambda: L.Conv2DBNActiv(3, 4, 3),
    "TFConv2DBNActiv": lambda: TFConv2DBNActiv(3, 4, 3),
}


def _describe(link):
    rows = []
    for name, param in link.namedparams():
        shape = None if param.array is None else list(param.array.shape)
        rows.append(f"{name} {shape}")
    return sorted(rows)


@pytest.fixture
def _no_random_fill(monkeypatch):
    """Skip drawing the initial weights: only names and shapes are compared,
    and drawing the big models' weights takes most of their build time."""

    def fill_nothing(array, method, rng, **params):
        del array, method, rng, params

    monkeypatch.setattr(kusari.initializers.normal, "fill_random", fill_nothing)
    monkeypatch.setattr(kusari.initializers.uniform, "fill_random", fill_nothing)


def test_every_recorded_model_is_built():
    assert set(_BUILDERS) == set(_RECORDED)


@pytest.mark.usefixtures("_no_random_fill")
@pytest.mark.parametrize("name", sorted(_BUILDERS))
def test_param_names_and_shapes_unchanged(name):
    rows = _describe(_BUILDERS[name]())
    digest = hashlib.sha256("\n".join(rows).encode()).hexdigest()
    recorded = _RECORDED[name]
    assert len(rows) == recorded["count"], (
        f"{name}: {len(rows)} parameters, {recorded['count']} recorded"
    )
    assert digest == recorded["sha256"], f"{name}: parameter names or shapes changed"
