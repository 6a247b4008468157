"""A tiny OpenAI-compatible chat server on 127.0.0.1 for tests that run whole processes.

It answers router calls (requests with ``response_format``) with a scripted route and
every other call with a reply that echoes the last user message, streamed or not, and
records what it was sent. ``token_delay_s`` makes replies slow (each streamed word waits
that long), so tests can overlap turns or interrupt one. Shared by the CLI, service and
Studio tests.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from memagent.prompts.prompt_assembly import WITH_BRIEFING

MESSAGE_MARKER = WITH_BRIEFING.split("{briefing}", 1)[1].split("{message}", 1)[0]
"""What separates the recalled briefing from the user's words in the prompt's copy."""


class FakeOpenAI:
    """A tiny /v1/chat/completions + /v1/models server."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.route: dict[str, Any] = {"tool": "none", "args": {}}
        self.token_delay_s = 0.0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, body: bytes, ctype: str = "application/json") -> None:
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                self._send(json.dumps({"object": "list", "data": [{"id": "fake"}]}).encode())

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                if body.get("response_format"):
                    text = json.dumps(fake.route)
                else:
                    last = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
                    words = str(last).rsplit(MESSAGE_MARKER, 1)[-1]  # after any briefing
                    text = f"FAKE reply to: {words[:40]}"
                if not body.get("stream"):
                    time.sleep(fake.token_delay_s * len(text.split(" ")))
                    self._send(
                        json.dumps(
                            {
                                "id": "c1",
                                "object": "chat.completion",
                                "created": 0,
                                "model": "fake",
                                "choices": [
                                    {
                                        "index": 0,
                                        "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": text},
                                    }
                                ],
                                "usage": {
                                    "prompt_tokens": 5,
                                    "completion_tokens": 5,
                                    "total_tokens": 10,
                                },
                            }
                        ).encode()
                    )
                    return
                chunks = [{"role": "assistant", "content": w + " "} for w in text.split(" ")]
                events = [
                    {
                        "id": "c1",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": "fake",
                        "choices": [{"index": 0, "delta": d, "finish_reason": None}],
                    }
                    for d in chunks
                ]
                events.append(
                    {
                        "id": "c1",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": "fake",
                        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                    }
                )
                lines = [f"data: {json.dumps(e)}\n\n" for e in events] + ["data: [DONE]\n\n"]
                if not fake.token_delay_s:
                    self._send("".join(lines).encode(), "text/event-stream")
                    return
                self.send_response(200)  # HTTP/1.0: no length, the body ends with the connection
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for line in lines:
                    time.sleep(fake.token_delay_s)
                    try:
                        self.wfile.write(line.encode())
                        self.wfile.flush()
                    except (BrokenPipeError, ConnectionResetError):
                        return  # the client cancelled the reply

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def replies(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if not r.get("response_format")]


@contextlib.contextmanager
def serve_fake_openai() -> Iterator[FakeOpenAI]:
    """Run a FakeOpenAI server for the duration of the block."""
    fake = FakeOpenAI()
    fake.thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()
