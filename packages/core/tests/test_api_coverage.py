"""Every public name of Chainer v7 in scope exists in kusari.

Uses the project's API spec (`../shared/spec/api-v7.md`), present on project
machines only; elsewhere the test skips.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[3] / "tools" / "api_coverage.py"


def _tool():
    spec = importlib.util.spec_from_file_location("api_coverage", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SPEC = TOOL.parents[1].parent / "shared" / "spec" / "api-v7.md"


@pytest.mark.skipif(
    not SPEC.exists(), reason="the API spec (../shared/spec) is not present"
)
def test_no_public_name_is_missing():
    tool = _tool()
    report = tool.coverage(tool.parse_spec(tool.SPEC.read_text()))
    missing = {module: names for module, (_, names) in report.items() if names}
    assert not missing, f"names missing from kusari: {missing}"
