"""Chainer code run through kusari.compat (a package: its conftest must not
shadow tests/conftest.py, which --doctest-modules imports after it)."""
