"""kusari.compat.install() applies Chainer's environment and backward semantics.

Chainer scripts are run with Chainer's environment variables
(``CHAINER_DTYPE=float16 python train.py`` is how Chainer's own example
tests pick a dtype), and some backprop twice through one graph. Each test
runs in a fresh interpreter: install() changes process-wide state.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

_CLEAN = {
    "CHAINER_DTYPE",
    "CHAINER_DEBUG",
    "CHAINER_TYPE_CHECK",
    "CHAINER_KEEP_GRAPH_ON_REPORT",
    "CHAINER_LAZY_GRAD_SUM",
    "CHAINER_DATASET_ROOT",
    "KUSARI_DTYPE",
    "KUSARI_DEBUG",
    "KUSARI_TYPE_CHECK",
    "KUSARI_DATASET_ROOT",
}


def _python(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k not in _CLEAN}
    full.update(env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_chainer_variables_apply_under_the_alias_and_are_undone(tmp_path):
    code = """
        import kusari, kusari.compat as compat
        from kusari.dataset import download
        before = (kusari.get_dtype(), kusari.config.debug, download.get_dataset_root())
        compat.install()
        import chainer
        print("dtype", chainer.get_dtype())
        print("debug", chainer.config.debug, chainer.is_debug())
        print("type_check", chainer.config.type_check)
        print("keep", chainer.config.keep_graph_on_report)
        print("lazy", chainer.config.lazy_grad_sum)
        print("root", chainer.dataset.get_dataset_root())
        compat.uninstall()
        after = (kusari.get_dtype(), kusari.config.debug, download.get_dataset_root())
        print("restored", before == after)
    """
    result = _python(
        code,
        tmp_path,
        CHAINER_DTYPE="float16",
        CHAINER_DEBUG="1",
        CHAINER_TYPE_CHECK="0",
        CHAINER_KEEP_GRAPH_ON_REPORT="1",
        CHAINER_LAZY_GRAD_SUM="1",
        CHAINER_DATASET_ROOT=str(tmp_path / "chainer-data"),
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "dtype float16" in out
    assert "debug True True" in out
    assert "type_check False" in out
    assert "keep True" in out
    assert "lazy True" in out
    assert f"root {tmp_path / 'chainer-data'}" in out
    assert "restored True" in out


def test_mixed16_is_accepted(tmp_path):
    code = """
        import kusari.compat as compat; compat.install()
        import chainer
        print(chainer.config.dtype is chainer.mixed16, chainer.get_dtype())
    """
    result = _python(code, tmp_path, CHAINER_DTYPE="mixed16")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "float16"]


def test_kusari_variables_win_over_chainer_ones(tmp_path):
    code = """
        import kusari.compat as compat; compat.install()
        import chainer
        print(chainer.get_dtype(), chainer.dataset.get_dataset_root())
    """
    result = _python(
        code,
        tmp_path,
        CHAINER_DTYPE="float16",
        KUSARI_DTYPE="float64",
        CHAINER_DATASET_ROOT="/chainer/root",
        KUSARI_DATASET_ROOT=str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["float64", str(tmp_path)]


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("CHAINER_DTYPE", "int32", "CHAINER_DTYPE must be float16, float32"),
        ("CHAINER_DTYPE", "nonsense", "CHAINER_DTYPE must be float16, float32"),
        ("CHAINER_DEBUG", "yes", "CHAINER_DEBUG must be an integer"),
    ],
)
def test_bad_values_name_the_variable(tmp_path, name, value, words):
    result = _python(
        "import kusari.compat as c; c.install()", tmp_path, **{name: value}
    )
    assert result.returncode != 0
    assert "kusari.compat.install()" in result.stderr
    assert words in result.stderr and repr(value) in result.stderr


def test_alias_turns_off_graph_freeing_and_uninstall_restores_it(tmp_path):
    code = """
        import kusari, kusari.compat as compat
        had = hasattr(kusari.global_config, "free_graph_in_backward")
        old = getattr(kusari.global_config, "free_graph_in_backward", None)
        compat.install()
        print("during", kusari.config.free_graph_in_backward)
        compat.uninstall()
        now = getattr(kusari.global_config, "free_graph_in_backward", None)
        print("restored", hasattr(kusari.global_config, "free_graph_in_backward") == had
              and now == old)
    """
    result = _python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "during False" in result.stdout
    assert "restored True" in result.stdout


def test_script_run_gets_the_environment(tmp_path):
    (tmp_path / "show.py").write_text(
        "import chainer\nprint('dtype', chainer.get_dtype())\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in _CLEAN}
    env["CHAINER_DTYPE"] = "float64"
    result = subprocess.run(
        [sys.executable, "-m", "kusari.compat", "show.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "dtype float64" in result.stdout
