"""kusari.compat: Chainer-family import names resolve to kusari's modules.

Each test runs in a fresh interpreter, since the aliases change the import
system of the process that installs them.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def _run(args: list[str], cwd: Path, extra_path: Path | None = None):
    env = None
    if extra_path is not None:
        import os

        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(extra_path), env.get("PYTHONPATH", "")) if p
        )
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_unmodified_chainer_script_runs(tmp_path):
    (tmp_path / "net.py").write_text(
        textwrap.dedent(
            """
            import chainer
            import chainer.links as L


            class MLP(chainer.Chain):
                def __init__(self):
                    super().__init__()
                    with self.init_scope():
                        self.l1 = L.Linear(None, 3)

                def forward(self, x):
                    return self.l1(x)
            """
        )
    )
    (tmp_path / "train.py").write_text(
        textwrap.dedent(
            """
            import argparse
            import numpy as np
            import chainer
            import chainer.functions as F
            import chainer.links as L
            import chainerx
            from chainer import training
            from chainer.training import extensions
            import net  # a sibling module, found as `python train.py` finds it

            parser = argparse.ArgumentParser()
            parser.add_argument('--device', '-d', type=str, default='-1')
            args = parser.parse_args()
            device = chainer.get_device(args.device)
            assert not chainerx.is_available()
            import kusari, kusari.functions
            assert chainer is kusari and F is kusari.functions
            assert training.Trainer is kusari.training.Trainer
            assert extensions.LogReport is kusari.training.extensions.LogReport
            model = L.Classifier(net.MLP())
            model.to_device(device)
            x = np.ones((4, 2), np.float32)
            t = np.array([0, 1, 2, 0], np.int32)
            loss = model(x, t)
            loss.backward()
            print("device", device, "loss", round(float(loss.array), 3) > 0)
            """
        )
    )
    result = _run(["-m", "kusari.compat", "train.py", "--device", "-1"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "device @numpy loss True" in result.stdout


def test_module_form_and_install_function(tmp_path):
    (tmp_path / "mod.py").write_text(
        "import sys\n"
        "import chainer.optimizers as O\n"
        "print(O.Adam.__module__, sys.argv[1:])\n"
    )
    result = _run(["-m", "kusari.compat", "-m", "mod", "a", "b"], tmp_path, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "kusari.optimizers" in result.stdout and "['a', 'b']" in result.stdout

    code = (
        "import kusari.compat as c; c.install(); import chainer.serializers as S; "
        "import kusari.serializers; assert S is kusari.serializers; "
        "c.uninstall(); import importlib.util as u; "
        "assert u.find_spec('chainer') is None; print('ok')"
    )
    result = _run(["-c", code], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_missing_submodule_and_missing_sibling_are_clear(tmp_path):
    code = (
        "import kusari.compat as c; c.install()\n"
        "try:\n    import chainer.no_such_module\n"
        "except ModuleNotFoundError as e:\n    print('E1', e.name)\n"
        "import sys; sys.modules['kusari_mn'] = None\n"  # as if not installed
        "try:\n    import chainermn\n"
        "except ModuleNotFoundError as e:\n    print('E2', e)\n"
    )
    result = _run(["-c", code], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "E1 chainer.no_such_module" in result.stdout
    assert "kusari_mn" in result.stdout and "pip install ./packages/mn" in result.stdout


def test_refuses_to_hide_a_real_chainer(tmp_path):
    fake = tmp_path / "site"
    (fake / "chainer").mkdir(parents=True)
    (fake / "chainer" / "__init__.py").write_text("REAL = True\n")
    result = _run(
        ["-c", "import kusari.compat as c; c.install()"], tmp_path, extra_path=fake
    )
    assert result.returncode != 0
    assert "a real 'chainer' package is installed" in result.stderr


@pytest.mark.parametrize("argv", [[], ["-h"]])
def test_usage(tmp_path, argv):
    result = _run(["-m", "kusari.compat", *argv], tmp_path)
    assert "usage: python -m kusari.compat" in result.stdout
    assert result.returncode == (2 if not argv else 0)
