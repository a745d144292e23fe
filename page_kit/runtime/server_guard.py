"""Whom the HTTP server believes about a client's address, and the headers every response carries.

Streamlit serves through uvicorn, which by default believes ``X-Forwarded-For`` from any loopback peer: a client
on the same host (or behind a proxy there that passes the header through) then names any address it likes, and
the live class's per-address limits count nothing. The operator names the proxies to believe in
``POSENC_TRUSTED_PROXY`` (addresses or networks, comma-separated, as uvicorn's ``forwarded_allow_ips``); unset,
no forwarded header is believed and a client is the address of its own connection.

The server is made before any page runs, so the guard reaches it once the first page runs: it finds uvicorn's
configuration, sets the proxy middleware's trusted hosts and wraps the loaded app so every HTTP response sends
``Referrer-Policy: same-origin`` (a class link's seat never leaves in a Referer to another site) and
``X-Content-Type-Options: nosniff``. Connections made from then on use both; the first page's own connection
was already accepted. Applied to the uvicorn version read (requirements.txt pins it); another runs as it is.
"""

from __future__ import annotations

import gc
import os

import uvicorn
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware, _TrustedHosts

UVICORN_VERSION = "0.55.0"
TRUSTED_PROXY_ENV = "POSENC_TRUSTED_PROXY"
HEADERS = ((b"referrer-policy", b"same-origin"), (b"x-content-type-options", b"nosniff"))
_looked: list[bool] = []  # whether this process looked for its server, and found it


class SecurityHeaders:
    """ASGI middleware: HEADERS on every HTTP response that does not set them itself."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def sending(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                named = {name.lower() for name, _ in headers}
                message["headers"] = headers + [h for h in HEADERS if h[0] not in named]
            await send(message)

        return await self.app(scope, receive, sending)


def trusted_proxies() -> str:
    return os.environ.get(TRUSTED_PROXY_ENV, "").strip()


def guard(config: uvicorn.Config) -> None:
    """Trust only the named proxies and add the headers, for the connections ``config`` makes from now on."""
    app = config.loaded_app
    if isinstance(app, SecurityHeaders):
        return
    layer = app
    while layer is not None and not isinstance(layer, ProxyHeadersMiddleware):
        layer = getattr(layer, "app", None)
    if layer is not None:
        layer.trusted_hosts = _TrustedHosts(trusted_proxies())
    config.loaded_app = SecurityHeaders(app)


def apply() -> bool:
    """Guard the running server; returns whether a server was found. Looked for once per process (a walk of the
    heap, about 50 ms): the server runs before any page does, so the first page finds it or there is none (AppTest)."""
    if _looked or uvicorn.__version__ != UVICORN_VERSION:
        return bool(_looked and _looked[0])
    configs = [o for o in gc.get_referrers(uvicorn.Config) if isinstance(o, uvicorn.Config) and o.loaded]
    for config in configs:
        guard(config)
    _looked.append(bool(configs))
    return bool(configs)
