"""Fixtures for the tests of Chainer code run through ``kusari.compat``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The helpers next to this file (chainer_offline_data, alias_runner).
sys.path.append(str(Path(__file__).resolve().parent))

import chainer_offline_data

# The scripts import ``chainer``, which exists only under the alias they are
# run with (in a subprocess); --doctest-modules must not import them.
collect_ignore = ["scripts"]


@pytest.fixture(scope="session")
def offline_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dataset root with every stand-in written once per session."""
    return chainer_offline_data.build(tmp_path_factory.mktemp("chainer-data"))
