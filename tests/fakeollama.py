"""A fake Ollama server on 127.0.0.1 with the real shapes of its API (docs.ollama.com/api):

- GET /api/tags: {"models": [{"name", "model", "modified_at", "size", "digest", "details": {...}}]}
- POST /api/show {"model"}: {"parameters", "license", "modified_at", "details", "template",
  "capabilities": ["completion", "tools", ...], "model_info": {...}}
- POST /api/chat (stream): one JSON object per line, `message.content` pieces, then a final
  object with "done": true, "done_reason", "prompt_eval_count" and "eval_count".

Each model is (name, capabilities or None for a server too old to report them); replies to
/api/chat come from a scripted list of texts. Every request is recorded.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.quick_server import QuickHTTPServer

MODIFIED = "2025-10-03T23:34:03.409490317-07:00"


def _details(name: str) -> dict[str, Any]:
    family = name.split(":")[0].rstrip("0123456789.")
    return {"parent_model": "", "format": "gguf", "family": family, "families": [family],
            "parameter_size": "8.0B", "quantization_level": "Q4_K_M"}


class FakeOllama:
    def __init__(self, models: list[tuple[str, list[str] | None]], replies: list[str] | None = None) -> None:
        self.models = models
        self.replies = list(replies or [])
        self.requests: list[tuple[str, str, dict[str, Any]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                server.requests.append(("GET", self.path, {}))
                if self.path == "/api/tags":
                    server._json(self, 200, {"models": [server._summary(name) for name, _ in server.models]})
                else:
                    server._json(self, 404, {"error": "not found"})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                server.requests.append(("POST", self.path, body))
                if self.path == "/api/show":
                    server._show(self, body.get("model") or body.get("name"))
                elif self.path == "/api/chat":
                    server._chat(self, body)
                else:
                    server._json(self, 404, {"error": "not found"})

        self.server = QuickHTTPServer(Handler)  # serves in its own thread; closes at once

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.server_close()

    def chat_bodies(self) -> list[dict[str, Any]]:
        return [body for method, path, body in self.requests if path == "/api/chat"]

    # --- replies -------------------------------------------------------------------------------
    def _summary(self, name: str) -> dict[str, Any]:
        return {"name": name, "model": name, "modified_at": MODIFIED, "size": 4920753328,
                "digest": "46e0c10c039e019119339687c3c1757cc81b9da49709a3b3924863ba87ca666e",
                "details": _details(name)}

    def _show(self, handler: BaseHTTPRequestHandler, name: str | None) -> None:
        capabilities = dict(self.models).get(name or "", "missing")
        if capabilities == "missing":
            self._json(handler, 404, {"error": f"model '{name}' not found"})
            return
        body: dict[str, Any] = {
            "parameters": "temperature 0.7\nnum_ctx 2048", "license": "LLAMA 3.1 COMMUNITY LICENSE AGREEMENT",
            "modified_at": MODIFIED, "details": _details(name or ""), "template": "{{ .Prompt }}",
            "model_info": {"general.architecture": "llama", "llama.context_length": 131072},
        }
        if capabilities is not None:
            body["capabilities"] = capabilities
        self._json(handler, 200, body)

    def _chat(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        text = self.replies.pop(0) if self.replies else "[fake ollama: no scripted reply left]"
        model = body.get("model", "")
        lines = [{"model": model, "created_at": MODIFIED, "message": {"role": "assistant", "content": piece},
                  "done": False} for piece in (text[: len(text) // 2], text[len(text) // 2 :])]
        lines.append({"model": model, "created_at": MODIFIED, "message": {"role": "assistant", "content": ""},
                      "done": True, "done_reason": "stop", "total_duration": 1200000000,
                      "prompt_eval_count": 120, "eval_count": 12})
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        handler.send_response(200)
        handler.send_header("content-type", "application/x-ndjson")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _json(self, handler: BaseHTTPRequestHandler, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        handler.send_response(status)
        handler.send_header("content-type", "application/json; charset=utf-8")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
