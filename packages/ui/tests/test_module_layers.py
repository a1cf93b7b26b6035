"""The API blueprints do not import the app module that assembles them."""

import ast
from pathlib import Path

import kusari_ui
from kusari_ui.app import get_db as get_db_from_app
from kusari_ui.db import get_db


def test_api_modules_do_not_import_the_app_factory():
    api = Path(kusari_ui.__file__).parent / "api"
    offenders = []
    for path in sorted(api.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "kusari_ui.app":
                offenders.append(path.name)
            if isinstance(node, ast.Import) and any(
                a.name == "kusari_ui.app" for a in node.names
            ):
                offenders.append(path.name)
    assert offenders == []


def test_get_db_still_importable_from_app():
    assert get_db_from_app is get_db
