"""Puts the shared helpers of the training tests on the import path.

The test folders carry no ``__init__.py``: under pytest's default import mode
each test file's own folder goes on ``sys.path``, which for the tests in
``extensions_tests/``, ``triggers_tests/`` and ``updaters_tests/`` is not the
folder of ``_training_helpers.py``. This conftest, loaded before any test below
it, adds its own folder, so ``from _training_helpers import ...`` works from
every subfolder, whether pytest starts at the repository root or in
``packages/core``, and under ``--import-mode=importlib`` too.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
