"""The README's example must keep working: run it as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[3] / "README.md"


@pytest.mark.skipif(not README.exists(), reason="not run from a repository checkout")
def test_readme_example_trains(capsys):
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    assert len(code.strip().splitlines()) <= 20
    exec(compile(code, str(README), "exec"), {})
    out = capsys.readouterr().out
    accuracy = float(out.split("accuracy")[-1])
    assert accuracy > 0.9, out
