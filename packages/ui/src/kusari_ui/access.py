"""Who may talk to the server, and about which folders.

The model is Jupyter's and MLflow's:

* **Host check** (``ALLOWED_HOSTS``): a request must name one of the host
  names the server answers to (loopback names by default), so a page on
  another site that points its own DNS name at this machine (DNS
  rebinding) is refused. Names may be IPv6 literals (``::1``, sent as
  ``[::1]:5000``); a leading dot accepts every subdomain.
* **Token** (``AUTH_TOKEN``): when set, every API call and the page need it,
  as ``Authorization: Bearer <token>``, ``X-Kusari-Token: <token>`` or
  ``?token=<token>``. Opening the page once with ``?token=`` sets an
  HttpOnly, SameSite=Strict cookie and redirects to the bare URL, so the
  page's own requests carry it without the token staying in the address bar.
* **Cross-origin writes**: a POST, PATCH or DELETE whose ``Origin`` names a
  host outside ``ALLOWED_HOSTS`` is refused (on top of the JSON-only bodies
  that keep cross-site forms out).
* **Project roots** (``PROJECT_ROOTS``): the API registers only folders
  inside these; ``ALLOW_API_REGISTRATION`` turns registration through the
  API off entirely. Folders registered from the command line are trusted.
* **Body size** (``MAX_CONTENT_LENGTH``): larger bodies get 413 before a
  byte is parsed.

Example:
    >>> normalize_host("[::1]:5000"), normalize_host("LocalHost.:80")
    ('::1', 'localhost')
    >>> host_allowed("ui.example.org", [".example.org"])
    True
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, redirect, render_template, request
from flask.typing import ResponseReturnValue

from kusari_ui.errors import ApiError

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
TOKEN_HEADER = "X-Kusari-Token"
_PORT = re.compile(r":[0-9]{1,5}")
_NAME = re.compile(r"[a-z0-9._-]+")


def normalize_host(value: str) -> str | None:
    """The host name of a ``Host`` header (lower case, no port, no brackets).

    Returns None for a malformed value (an unbracketed IPv6 address with a
    port, characters no host name has, a port that is not a number).
    """
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0 or (value[end + 1 :] and not _PORT.fullmatch(value[end + 1 :])):
            return None
        host = value[1:end]
        return host if host and re.fullmatch(r"[0-9a-f:.]+", host) else None
    if value.count(":") == 1:
        value, _, port = value.partition(":")
        if not port.isdigit() or len(port) > 5:
            return None
    host = value.rstrip(".")
    return host if host and _NAME.fullmatch(host) else None


def _entry(name: str) -> str:
    """A configured host name in the form :func:`normalize_host` returns."""
    name = name.strip().lower()
    suffix = name.startswith(".")
    if suffix:
        name = name[1:]
    if name.startswith("[") or name.count(":") == 1:
        name = normalize_host(name) or name
    name = name.rstrip(".")
    return "." + name if suffix else name


def host_allowed(host: str, allowed: Iterable[str]) -> bool:
    """True if the normalised ``host`` is one of ``allowed`` (or a subdomain
    of an entry starting with a dot)."""
    for entry in allowed:
        e = _entry(entry)
        if e.startswith("."):
            if host == e[1:] or host.endswith(e):
                return True
        elif host == e:
            return True
    return False


def cookie_name(token: str) -> str:
    """The page cookie's name: tied to the token, so two servers on one host
    (cookies ignore ports) do not overwrite each other's cookie."""
    return "kusari_ui_" + hashlib.sha256(token.encode()).hexdigest()[:12]


def cookie_value(token: str) -> str:
    """What the cookie holds: derived from the token, not the token itself."""
    return hmac.new(token.encode(), b"kusari-ui page cookie", "sha256").hexdigest()


def _token_ok(token: str) -> bool:
    """The request carries the token; a wrong token offered explicitly
    fails even beside a good cookie."""
    offered = []
    auth = request.headers.get("Authorization", "")
    if auth[:7].lower() == "bearer ":
        offered.append(auth[7:].strip())
    offered.append(request.headers.get(TOKEN_HEADER, ""))
    offered.append(request.args.get("token", ""))
    offered = [o for o in offered if o]
    if offered:
        return all(hmac.compare_digest(o.encode(), token.encode()) for o in offered)
    cookie = request.cookies.get(cookie_name(token), "")
    return bool(cookie) and hmac.compare_digest(
        cookie.encode(), cookie_value(token).encode()
    )


def within_roots(path: str, roots: Sequence[str]) -> bool:
    """True if the resolved ``path`` is one of ``roots`` or inside one."""
    for root in roots:
        r = os.path.realpath(os.path.expanduser(root))
        if path == r or path.startswith(r.rstrip(os.sep) + os.sep):
            return True
    return False


def check_registration(path: str, real: str) -> None:
    """Refuse an API registration of ``path`` (resolved: ``real``) with 403
    when registration is off or the folder lies outside ``PROJECT_ROOTS``."""
    cfg = current_app.config
    if not cfg.get("ALLOW_API_REGISTRATION", True):
        raise ApiError(
            403,
            "forbidden",
            "registering projects through the API is switched off on this server "
            "(--no-api-registration); register folders with "
            "`kusari-ui project create -d DIR`",
        )
    roots = cfg.get("PROJECT_ROOTS")
    if roots is not None and not within_roots(real, roots):
        allowed = ", ".join(str(r) for r in roots) or "(none)"
        raise ApiError(
            403,
            "forbidden",
            f"directory {path} is outside the folders this server may register "
            f"({allowed}); start the server with --root DIR to allow another",
        )


def _too_large(length: int, limit: int) -> ApiError:
    return ApiError(
        413,
        "payload_too_large",
        f"request body of {length} bytes is larger than this server's limit of "
        f"{limit} bytes (MAX_CONTENT_LENGTH)",
    )


def _unauthorized() -> ResponseReturnValue:
    msg = (
        "this server needs its access token: send 'Authorization: Bearer <token>' "
        f"or '{TOKEN_HEADER}: <token>', or open the page once with ?token=<token> "
        "(the server printed it when it started)"
    )
    if request.path.startswith("/api/"):
        raise ApiError(401, "unauthorized", msg)
    resp = Response(render_template("token.html", message=msg), 401)
    resp.headers["WWW-Authenticate"] = "Bearer"
    return resp


def _check_request() -> ResponseReturnValue | None:
    cfg = current_app.config
    allowed = cfg.get("ALLOWED_HOSTS")
    if allowed is not None:
        raw = request.headers.get("Host", "")
        host = normalize_host(raw)
        if host is None or not host_allowed(host, allowed):
            raise ApiError(
                400,
                "bad_host",
                f"host name {raw!r} is not one this server answers to; "
                "start it with --trusted-host NAME to add one",
            )
    token = cfg.get("AUTH_TOKEN")
    if token and request.endpoint not in ("static", "pages.static"):
        if not _token_ok(token):
            return _unauthorized()
        if "token" in request.args and not request.path.startswith("/api/"):
            # The page was opened with ?token=: keep it in a cookie and drop
            # it from the address bar (and from the history and referrers).
            resp = redirect(request.path, code=303)
            resp.set_cookie(
                cookie_name(token),
                cookie_value(token),
                max_age=30 * 24 * 3600,
                httponly=True,
                samesite="Strict",
                secure=request.is_secure,
            )
            return resp
    if request.method in UNSAFE_METHODS and allowed is not None:
        origin = request.headers.get("Origin")
        if origin is not None:
            o_host = (
                normalize_host(urlsplit(origin).netloc) if origin != "null" else None
            )
            if o_host is None or not host_allowed(o_host, allowed):
                raise ApiError(
                    403,
                    "forbidden",
                    f"cross-origin {request.method} from {origin!r} refused",
                )
    limit = cfg.get("MAX_CONTENT_LENGTH")
    length = request.content_length
    if limit is not None and length is not None and length > limit:
        raise _too_large(length, int(limit))
    return None


def install_access(app: Flask) -> None:
    """Run the host, token, origin and size checks before every request."""
    app.before_request(_check_request)


def apply_defaults(config: Any) -> None:
    """Settle the access settings of a fresh app config.

    Flask's own ``TRUSTED_HOSTS`` (documented for WSGI setups) is taken over
    as ``ALLOWED_HOSTS``: Flask's check does not understand bracketed IPv6
    hosts and answers with a bare 400.
    """
    trusted = config.get("TRUSTED_HOSTS")
    if trusted is not None:
        if config.get("ALLOWED_HOSTS") is LOOPBACK_HOSTS:
            config["ALLOWED_HOSTS"] = list(trusted)
        config["TRUSTED_HOSTS"] = None
    roots = config.get("PROJECT_ROOTS")
    if roots is not None:
        if isinstance(roots, str | os.PathLike):
            roots = [roots]
        config["PROJECT_ROOTS"] = [os.path.realpath(os.fspath(r)) for r in roots]
