"""What the fake services' HTTP servers share (the fake Prolific, the fake Hub): a JSON answer sent."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: Any, headers: dict[str, str]) -> None:
    """``payload`` as the JSON body of a ``status`` answer (None: no body) with ``headers``; a client
    that gave up (a time-out) loses the answer, as on a real network."""
    data = b"" if payload is None else json.dumps(payload).encode()
    try:
        handler.send_response(status)
        if data:
            handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass
