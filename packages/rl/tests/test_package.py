"""The package: ChainerRL's submodule names load lazily."""

from __future__ import annotations


def test_every_lazily_listed_submodule_imports():
    import kusari_rl

    for name in sorted(kusari_rl._SUBMODULES):
        assert getattr(kusari_rl, name).__name__ == f"kusari_rl.{name}"
    assert "agents" in dir(kusari_rl)
