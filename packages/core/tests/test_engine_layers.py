"""The engine's place in the layer order: it does not import kusari.functions.

The engine (kusari.variable, kusari.function_node, kusari._backprop) is
loaded in a fresh interpreter with kusari's package body skipped, which is
what an import cycle through the functions layer would need.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import kusari

_SRC = pathlib.Path(kusari.__file__).resolve().parent.parent

_PROBE = """
import importlib, json, sys, types
pkg = types.ModuleType("kusari")
pkg.__path__ = [sys.argv[1] + "/kusari"]
sys.modules["kusari"] = pkg
for name in ("kusari.variable", "kusari.function_node", "kusari._backprop"):
    importlib.import_module(name)
v = sys.modules["kusari.variable"].Variable
print(json.dumps({
    "loaded": sorted(m for m in sys.modules if m.startswith("kusari")),
    "operators": [hasattr(v, n) for n in ("__add__", "reshape", "T")],
}))
"""


def _probe() -> dict[str, list]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(_SRC)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def test_engine_imports_no_higher_layer() -> None:
    loaded = _probe()["loaded"]
    assert "kusari.function_node" in loaded
    higher = ("functions", "links", "optimizers", "training", "initializers")
    leaked = [m for m in loaded if m.split(".")[1:2] and m.split(".")[1] in higher]
    assert leaked == []


def test_variable_gets_its_operators_from_basic_math() -> None:
    from kusari.functions.math import basic_math

    for name, impl in basic_math.VARIABLE_METHODS.items():
        assert kusari.Variable.__dict__[name] is impl, name


def test_operators_are_absent_without_binding() -> None:
    # The engine alone defines no arithmetic: `import kusari` binds it.
    assert _probe()["operators"] == [False, False, False]
