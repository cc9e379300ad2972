"""A fake model provider on 127.0.0.1 speaking the OpenAI Chat Completions and Anthropic Messages
wire formats, streaming and not, with tool calls. It replies from a scripted list of turns and
records every request, so tests drive the real litellm (and the real `astro`) against it.

A turn is a dict:
    {"text": "...", "tool_calls": [{"name": "read_file", "arguments": {...} or "raw json", "id": "..."}],
     "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
     "status": 500,           # answer with this HTTP error instead
     "error": "message",      # the error's message
     "headers": {...},        # extra response headers of the error (retry-after, retry-after-ms)
     "finish": "length",      # the reply stops at the token limit (OpenAI length, Anthropic max_tokens)
     "arg_chunk": 20,         # stream tool-call arguments in pieces of this many characters
     "delay": 0.5,            # seconds to wait before answering
     "hang": True,            # send the first text chunk, then wait until released (crash tests)
     "prefill": 2.0,          # OpenAI stream: send the role chunk at once, the text this many seconds later
                              # (llama.cpp's server, whose first chunk comes before its prompt processing)
     "progress": {...},       # OpenAI stream: llama.cpp's prompt_progress object on that first chunk
     "match": "substring"}    # optional: only answer a request whose last message contains this
A callable turn receives the request body and returns a turn dict.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.quick_server import QuickHTTPServer

EXHAUSTED = "[fake provider: no scripted turn left]"


class FakeProvider:
    def __init__(self, turns: list[Any] | None = None) -> None:
        self.turns: list[Any] = list(turns or [])
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.release = threading.Event()
        self.hanging = threading.Event()
        self._call_counter = 0
        # GET /v1/models answers with this (as a local server lists its models), else 501 as before.
        self.models_listing: dict[str, Any] | None = None
        self.model_lists = 0  # how many GET /v1/models came
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {}
                provider._handle(self, body)

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                if provider.models_listing is None or self.path.rstrip("/") != "/v1/models":
                    self.send_error(501)
                    return
                with provider.lock:
                    provider.model_lists += 1
                provider._json(self, 200, provider.models_listing)

        self.server = QuickHTTPServer(Handler)  # serves in its own thread; closes at once
        self.thread = self.server.thread

    # --- public ------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self.server.server_address[1]

    @property
    def url(self) -> str:
        """Base URL for Anthropic (litellm appends /v1/messages)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def add(self, *turns: Any) -> None:
        with self.lock:
            self.turns.extend(turns)

    def close(self) -> None:
        self.release.set()
        self.server.server_close()

    def bodies(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if kind is None or r["kind"] == kind]

    # --- serving -----------------------------------------------------------------------------
    def _next_turn(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            if not self.turns:
                return {"text": EXHAUSTED}
            turn = self.turns.pop(0)
        if callable(turn):
            turn = turn(body)
        turn = dict(turn)
        with self.lock:
            named = []
            for call in turn.get("tool_calls") or []:
                self._call_counter += 1
                named.append({"id": call.get("id") or f"call_{self._call_counter:04d}", **call})
            turn["tool_calls"] = named
        return turn

    def _handle(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        path = handler.path
        kind = "anthropic" if path.rstrip("/").endswith("/messages") else "openai"
        with self.lock:
            self.requests.append({"path": path, "kind": kind, "body": body, "headers": dict(handler.headers),
                                  "at": time.monotonic()})
        turn = self._next_turn(body)
        if turn.get("delay"):
            time.sleep(turn["delay"])
        if turn.get("status"):
            self._error(handler, kind, turn["status"], turn.get("error", "scripted failure"), turn.get("headers"))
            return
        stream = bool(body.get("stream"))
        if kind == "anthropic":
            if stream:
                self._anthropic_stream(handler, turn)
            else:
                self._json(handler, 200, anthropic_message(turn, body.get("model", "claude")))
        else:
            if stream:
                self._openai_stream(handler, turn, body)
            else:
                self._json(handler, 200, openai_completion(turn, body.get("model", "gpt")))

    def _json(self, handler: BaseHTTPRequestHandler, status: int, obj: Any,
              headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def _error(self, handler: BaseHTTPRequestHandler, kind: str, status: int, message: str,
               headers: dict[str, str] | None = None) -> None:
        if kind == "anthropic":
            obj = {"type": "error", "error": {"type": "rate_limit_error" if status == 429 else "api_error",
                                              "message": message}}
        else:
            obj = {"error": {"message": message, "type": "server_error", "code": status}}
        self._json(handler, status, obj, headers)

    def _sse_start(self, handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        handler.send_header("connection", "close")
        handler.end_headers()
        handler.close_connection = True

    def _send(self, handler: BaseHTTPRequestHandler, data: str) -> None:
        handler.wfile.write(data.encode())
        handler.wfile.flush()

    def _hang(self, turn: dict[str, Any]) -> None:
        if turn.get("hang"):
            self.hanging.set()
            self.release.wait(turn.get("hang_seconds", 60))

    def _openai_stream(self, handler: BaseHTTPRequestHandler, turn: dict[str, Any], body: dict[str, Any]) -> None:
        self._sse_start(handler)
        model = body.get("model", "gpt")

        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            obj = {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(obj)}\n\n"

        first = chunk({"role": "assistant", "content": ""})
        if turn.get("progress"):
            obj = json.loads(first[len("data: "):])
            obj["prompt_progress"] = turn["progress"]
            first = f"data: {json.dumps(obj)}\n\n"
        self._send(handler, first)
        if turn.get("prefill"):
            time.sleep(turn["prefill"])
        for piece in _pieces(turn.get("text", "")):
            self._send(handler, chunk({"content": piece}))
            self._hang(turn)
        for index, call in enumerate(_calls(turn)):
            self._send(
                handler,
                chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                       "function": {"name": call["name"], "arguments": ""}}]}),
            )
            for part in _arg_pieces(call["arguments"], turn.get("arg_chunk")):
                self._send(handler, chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]}))
        self._send(handler, chunk({}, turn.get("finish") or ("tool_calls" if _calls(turn) else "stop")))
        usage = _usage(turn)
        obj = {
            "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
            "choices": [],
            "usage": {
                "prompt_tokens": usage["input_tokens"], "completion_tokens": usage["output_tokens"],
                "total_tokens": usage["input_tokens"] + usage["output_tokens"],
                "prompt_tokens_details": {"cached_tokens": usage["cache_read_input_tokens"]},
            },
        }
        self._send(handler, f"data: {json.dumps(obj)}\n\n")
        self._send(handler, "data: [DONE]\n\n")

    def _anthropic_stream(self, handler: BaseHTTPRequestHandler, turn: dict[str, Any]) -> None:
        self._sse_start(handler)
        usage = _usage(turn)

        def event(name: str, data: dict[str, Any]) -> str:
            return f"event: {name}\ndata: {json.dumps(data)}\n\n"

        self._send(handler, event("message_start", {"type": "message_start", "message": {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-fake", "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1,
                      "cache_read_input_tokens": usage["cache_read_input_tokens"],
                      "cache_creation_input_tokens": usage["cache_creation_input_tokens"]}}}))
        index = 0
        if turn.get("text"):
            self._send(handler, event("content_block_start", {"type": "content_block_start", "index": 0,
                                                              "content_block": {"type": "text", "text": ""}}))
            for piece in _pieces(turn["text"]):
                self._send(handler, event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                                  "delta": {"type": "text_delta", "text": piece}}))
                self._hang(turn)
            self._send(handler, event("content_block_stop", {"type": "content_block_stop", "index": 0}))
            index = 1
        for call in _calls(turn):
            self._send(handler, event("content_block_start", {"type": "content_block_start", "index": index,
                                                              "content_block": {"type": "tool_use", "id": call["id"],
                                                                                "name": call["name"], "input": {}}}))
            for part in _arg_pieces(call["arguments"], turn.get("arg_chunk")):
                self._send(handler, event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                                  "delta": {"type": "input_json_delta",
                                                                            "partial_json": part}}))
            self._send(handler, event("content_block_stop", {"type": "content_block_stop", "index": index}))
            index += 1
        stop = _anthropic_stop(turn)
        self._send(handler, event("message_delta", {"type": "message_delta",
                                                    "delta": {"stop_reason": stop, "stop_sequence": None},
                                                    "usage": {"output_tokens": usage["output_tokens"]}}))
        self._send(handler, event("message_stop", {"type": "message_stop"}))


def _arg_pieces(args: str, size: int | None) -> list[str]:
    """Tool-call arguments as streamed: in `size`-character pieces, or in two halves."""
    if size:
        return [args[i : i + size] for i in range(0, len(args), size)]
    return [part for part in (args[: len(args) // 2], args[len(args) // 2 :]) if part]


def _anthropic_stop(turn: dict[str, Any]) -> str:
    if turn.get("finish") == "length":
        return "max_tokens"
    return "tool_use" if _calls(turn) else "end_turn"


def _pieces(text: str) -> list[str]:
    if not text:
        return []
    size = max(1, len(text) // 3)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _calls(turn: dict[str, Any]) -> list[dict[str, str]]:
    calls = []
    for n, call in enumerate(turn.get("tool_calls") or []):
        args = call.get("arguments", {})
        calls.append({
            "id": call.get("id") or f"call_x{n}",
            "name": call["name"],
            "arguments": args if isinstance(args, str) else json.dumps(args),
        })
    return calls


def _usage(turn: dict[str, Any]) -> dict[str, int]:
    usage = {"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    usage.update(turn.get("usage") or {})
    return usage


def openai_completion(turn: dict[str, Any], model: str) -> dict[str, Any]:
    calls = _calls(turn)
    usage = _usage(turn)
    message: dict[str, Any] = {"role": "assistant", "content": turn.get("text") or None}
    if calls:
        message["tool_calls"] = [{"id": c["id"], "type": "function",
                                  "function": {"name": c["name"], "arguments": c["arguments"]}} for c in calls]
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": turn.get("finish") or ("tool_calls" if calls else "stop")}],
        "usage": {"prompt_tokens": usage["input_tokens"], "completion_tokens": usage["output_tokens"],
                  "total_tokens": usage["input_tokens"] + usage["output_tokens"]},
    }


def anthropic_message(turn: dict[str, Any], model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if turn.get("text"):
        content.append({"type": "text", "text": turn["text"]})
    for call in _calls(turn):
        content.append({"type": "tool_use", "id": call["id"], "name": call["name"], "input": json.loads(call["arguments"] or "{}")})
    usage = _usage(turn)
    return {
        "id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": content,
        "stop_reason": _anthropic_stop(turn), "stop_sequence": None,
        "usage": usage,
    }
