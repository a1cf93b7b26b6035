"""One JSON error envelope for the API: ``{"error": {"type", "message"}}``."""

from __future__ import annotations

import logging

from flask import Flask, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

logger = logging.getLogger(__name__)


class ApiError(Exception):
    """An API failure that becomes a JSON error response.

    Example:
        >>> raise ApiError(404, "not_found", "project 3 not found")  # doctest: +SKIP
    """

    def __init__(self, status: int, type_: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.type = type_
        self.message = message


def not_found(message: str) -> ApiError:
    """A 404 naming the missing thing."""
    return ApiError(404, "not_found", message)


def bad_request(message: str) -> ApiError:
    """A 400 for malformed input."""
    return ApiError(400, "bad_request", message)


def _envelope(status: int, type_: str, message: str) -> ResponseReturnValue:
    return jsonify({"error": {"type": type_, "message": message}}), status


def register_error_handlers(app: Flask) -> None:
    """Install handlers so every API error uses the envelope."""

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> ResponseReturnValue:
        return _envelope(exc.status, exc.type, exc.message)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> ResponseReturnValue:
        if not request.path.startswith("/api/"):
            return exc
        type_ = (exc.name or "error").lower().replace(" ", "_")
        if exc.code == 404:
            message = f"no API route {request.method} {request.path}"
        elif exc.code == 413:
            limit = current_app.config.get("MAX_CONTENT_LENGTH")
            message = (
                f"request body is larger than this server's limit of {limit} "
                "bytes (MAX_CONTENT_LENGTH)"
            )
        else:
            message = exc.description or type_
        return _envelope(exc.code or 500, type_, message)

    @app.errorhandler(OSError)
    def _os_error(exc: OSError) -> ResponseReturnValue:
        # A file the server had to read or write in a run folder: say which
        # and why, rather than a bare 500.
        logger.warning("%s %s: %s", request.method, request.path, exc)
        where = f" ({exc.filename})" if exc.filename else ""
        if isinstance(exc, PermissionError):
            return _envelope(
                403,
                "permission_denied",
                f"permission denied{where}: the server's user may not access "
                "this file or folder",
            )
        reason = exc.strerror or str(exc)
        return _envelope(500, "file_error", f"file system error{where}: {reason}")

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> ResponseReturnValue:
        logger.exception("unhandled error on %s %s", request.method, request.path)
        return _envelope(500, "internal_error", "internal server error")
