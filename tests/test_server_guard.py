"""The server guard (page_kit/runtime/server_guard.py): the headers it adds, and that it looks for the server once
per process (a page run under AppTest has no server: looking on every run walked the heap on every run)."""

import asyncio
import threading

from page_kit.runtime import server_guard


def test_the_guard_looks_for_its_server_once_per_process(monkeypatch):
    calls = []
    monkeypatch.setattr(server_guard, "_looked", [])
    monkeypatch.setattr(server_guard.gc, "get_referrers", lambda *a: calls.append(a) or [])
    assert not server_guard.apply() and not server_guard.apply()
    assert len(calls) == 1


def test_every_http_response_gets_the_headers_unless_it_sets_them():
    sent = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": [(b"referrer-policy", b"no-referrer")]})

    async def send(message):
        sent.append(message)

    # a thread of its own: a test before this one may have left an event loop running in this one
    worker = threading.Thread(target=asyncio.run, args=(server_guard.SecurityHeaders(app)({"type": "http"}, None,
                                                                                          send),))
    worker.start()
    worker.join(10)
    assert dict(sent[0]["headers"]) == {b"referrer-policy": b"no-referrer", b"x-content-type-options": b"nosniff"}
