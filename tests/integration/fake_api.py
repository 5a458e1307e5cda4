"""Fake model APIs on 127.0.0.1 for the live tests: each records every request and answers with
one short text reply, in the wire format its program speaks.

- ``FakeAnthropic``: the Anthropic Messages API (Claude Code).
- ``FakeResponses``: OpenAI's Responses API (Codex CLI).
- ``FakeGemini``: the Gemini API (Gemini CLI).
- ``FakeChatCompletions``: OpenAI's Chat Completions API, streamed (the programs that speak it).

``running(fake)`` serves one from a thread until the block ends. Standard library only; loopback
only.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STOP_TIMEOUT = 10  # seconds for the server thread to end


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it is not JSON

    @property
    def route(self) -> str:
        return self.path.split("?", 1)[0]


Reply = tuple[int, bytes, str]  # status, body, content type


@dataclass
class FakeApi:
    """A model API on 127.0.0.1 that records every request; subclasses say how to answer.

    Started and stopped by ``running``; ``url`` is set once it listens.
    """

    url: str = ""
    requests: list[RecordedRequest] = field(default_factory=list)
    reply: str = "pong"

    def respond(self, request: RecordedRequest) -> Reply | None:
        """The answer to a recorded request; None answers 404."""
        return None

    def posts(self, route: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == "POST" and r.route == route]


def sse(events: list[dict[str, Any]], named: bool = True) -> bytes:
    """Server-sent events, one per JSON object (with ``event: <type>`` lines when ``named``)."""
    return "".join(
        (f"event: {e['type']}\n" if named else "") + f"data: {json.dumps(e)}\n\n" for e in events
    ).encode("utf-8")


@dataclass
class FakeAnthropic(FakeApi):
    """The Anthropic Messages API: ``POST /v1/messages`` (streaming SSE or plain JSON, as asked)
    with one text block and ``end_turn``, ``POST /v1/messages/count_tokens`` with a count."""

    def message_requests(self) -> list[RecordedRequest]:
        """POSTs to the Messages API itself (``/v1/messages``, with or without ``?beta=true``)."""
        return self.posts("/v1/messages")

    def respond(self, request: RecordedRequest) -> Reply | None:
        body = request.body
        if request.route == "/v1/messages/count_tokens":
            return 200, b'{"input_tokens": 1}', "application/json"
        if request.route == "/v1/messages" and isinstance(body, dict):
            model = str(body.get("model", "claude"))
            if body.get("stream"):
                return 200, fake_stream(model, self.reply), "text/event-stream"
            return 200, json.dumps(fake_message(model, self.reply)).encode(), "application/json"
        return None


def fake_message(model: str, text: str) -> dict[str, Any]:
    return {
        "id": "msg_hotplex_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def fake_stream(model: str, text: str) -> bytes:
    """The SSE event sequence of one complete text reply."""
    start = fake_message(model, "")
    start.update(content=[], stop_reason=None)
    return sse(
        [
            {"type": "message_start", "message": start},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 1},
            },
            {"type": "message_stop"},
        ]
    )


def _handler_for(fake: FakeApi, lock: threading.Lock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def _record(self) -> RecordedRequest:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", errors="replace")
            request = RecordedRequest(self.command, self.path, dict(self.headers), body)
            with lock:
                fake.requests.append(request)
            return request

        def _answer(self) -> None:
            reply = fake.respond(self._record())
            if reply is None:
                error = {
                    "type": "error",
                    "error": {"type": "not_found_error", "message": self.path},
                }
                reply = 404, json.dumps(error).encode(), "application/json"
            status, data, content_type = reply
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer

    return Handler


@contextmanager
def running(fake: FakeApi) -> Iterator[FakeApi]:
    """Serve ``fake`` from a thread on 127.0.0.1 until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(fake, threading.Lock()))
    server.daemon_threads = True
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    serve = {"poll_interval": 0.05}  # quick shutdown
    thread = threading.Thread(target=server.serve_forever, kwargs=serve, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=STOP_TIMEOUT)
        keep_requests(fake)


def keep_requests(fake: FakeApi) -> None:
    """With ``HOTPLEX_LIVE_CAPTURE=DIR``, every request the fake recorded goes to
    ``DIR/<test>.jsonl``, one JSON object a line: what a program really sent, for a contributor
    to read (a worker's first live test starts from it)."""
    folder = os.environ.get("HOTPLEX_LIVE_CAPTURE")
    if not folder or not fake.requests:
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "run").split(" ")[0]
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", test).strip("_")[:200] or "run"
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"{name}.jsonl"), "a", encoding="utf-8") as out:
        for r in fake.requests:
            out.write(json.dumps({"method": r.method, "path": r.path, "body": r.body}) + "\n")


@dataclass
class FakeResponses(FakeApi):
    """OpenAI's Responses API as Codex streams it: ``POST /v1/responses`` answered with one
    assistant message (``response.created`` … ``response.completed``)."""

    def respond(self, request: RecordedRequest) -> Reply | None:
        if request.route != "/v1/responses":
            return None
        item = {
            "type": "message",
            "id": "msg_hotplex_fake",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": self.reply, "annotations": []}],
        }
        usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
        events = [
            {"type": "response.created", "response": {"id": "resp_hotplex_fake"}},
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "status": "in_progress", "content": []},
            },
            {
                "type": "response.output_text.delta",
                "output_index": 0,
                "content_index": 0,
                "item_id": item["id"],
                "delta": self.reply,
            },
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": {"id": "resp_hotplex_fake", "usage": usage}},
        ]
        return 200, sse(events), "text/event-stream"


@dataclass
class FakeGemini(FakeApi):
    """The Gemini API: ``:streamGenerateContent?alt=sse`` answered with one text chunk, and the
    model-routing ``:generateContent`` Gemini CLI sends first when no ``-m`` is given answered
    with the JSON its classifier expects."""

    def model_requests(self) -> list[RecordedRequest]:
        """The conversation's requests (``:streamGenerateContent``), not the routing ones."""
        return [r for r in self.requests if r.route.endswith(":streamGenerateContent")]

    def respond(self, request: RecordedRequest) -> Reply | None:
        if request.method != "POST" or not request.route.startswith("/v1beta/models/"):
            return None
        usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}

        def answer(text: str) -> dict[str, Any]:
            content = {"role": "model", "parts": [{"text": text}]}
            candidate = {"content": content, "finishReason": "STOP", "index": 0}
            return {"candidates": [candidate], "usageMetadata": usage}

        if request.route.endswith(":streamGenerateContent"):
            return 200, sse([answer(self.reply)], named=False), "text/event-stream"
        if request.route.endswith(":generateContent"):
            routing = json.dumps({"complexity_reasoning": "a probe", "complexity_score": 1})
            return 200, json.dumps(answer(routing)).encode(), "application/json"
        return None


@dataclass
class FakeChatCompletions(FakeApi):
    """OpenAI's Chat Completions API: ``POST /v1/chat/completions`` answered with one assistant
    message, streamed (``chat.completion.chunk`` events, then ``[DONE]``) or whole, as asked."""

    def completion_requests(self) -> list[RecordedRequest]:
        return [
            r for r in self.requests if r.method == "POST" and r.route.endswith("/chat/completions")
        ]

    def respond(self, request: RecordedRequest) -> Reply | None:
        body = request.body
        if not request.route.endswith("/chat/completions") or not isinstance(body, dict):
            return None
        model = str(body.get("model", "fake"))
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        if not body.get("stream"):
            message = {"role": "assistant", "content": self.reply}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            whole = {"id": "chatcmpl-hotplex", "object": "chat.completion", "model": model}
            whole.update(choices=[choice], usage=usage)
            return 200, json.dumps(whole).encode(), "application/json"

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return {
                "id": "chatcmpl-hotplex",
                "object": "chat.completion.chunk",
                "model": model,
                "choices": [choice],
            }

        events = [
            chunk({"role": "assistant", "content": self.reply}, None),
            {**chunk({}, "stop"), "usage": usage},
        ]
        data = sse(events, named=False) + b"data: [DONE]\n\n"
        return 200, data, "text/event-stream"
