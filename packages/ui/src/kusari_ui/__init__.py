"""kusari-ui: a web UI to browse, compare and steer kusari training runs.

The server only reads the files that kusari's Trainer writes (``log``,
``args``, snapshots) and talks to running jobs through files in their result
folders, so it never imports kusari itself.

Example:
    >>> from kusari_ui import create_app
    >>> app = create_app({"DATABASE_URL": "sqlite://"})  # doctest: +SKIP
"""

from kusari_ui.app import create_app

__version__ = "0.1.0"
__all__ = ["__version__", "create_app"]
