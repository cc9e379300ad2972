"""Finding a local Ollama server and the models it has that can call tools (astro's agent needs them).

`GET /api/tags` lists the installed models; `POST /api/show` gives each one's `capabilities`
("completion", "tools", "vision", ...). Servers older than that field report none: such models
are offered with their tool support unknown. Short timeouts: this runs while a person waits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

TAGS_TIMEOUT = 1.5
SHOW_TIMEOUT = 3.0
MAX_MODELS = 30


@dataclass(frozen=True)
class OllamaModel:
    name: str  # "llama3.1:8b"
    tools: bool | None  # None: the server does not say
    parameters: str = ""  # "8.0B"
    quantization: str = ""  # "Q4_K_M"

    @property
    def litellm_model(self) -> str:
        """litellm's chat route for Ollama (/api/chat), the one that passes tools through."""
        return f"ollama_chat/{self.name}"

    def label(self) -> str:
        facts = ", ".join(f for f in (self.parameters, self.quantization) if f)
        note = " · tool support unknown" if self.tools is None else ""
        return f"{self.name}" + (f" ({facts})" if facts else "") + note


def find_models(url: str) -> list[OllamaModel] | None:
    """The models of the Ollama server at `url` that may call tools; None when no server answers there."""
    import httpx

    base = url.rstrip("/")
    try:
        with httpx.Client(timeout=TAGS_TIMEOUT) as client:
            response = client.get(f"{base}/api/tags")
            if response.status_code != 200:
                return None
            listed = response.json().get("models") or []
            found: list[OllamaModel] = []
            for entry in listed[:MAX_MODELS]:
                name = entry.get("name") or entry.get("model")
                if not isinstance(name, str) or not name:
                    continue
                details = entry.get("details") or {}
                tools = _supports_tools(client, base, name)
                if tools is False:
                    continue
                found.append(OllamaModel(name, tools, str(details.get("parameter_size") or ""),
                                         str(details.get("quantization_level") or "")))
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return found


def _supports_tools(client: httpx.Client, base: str, name: str) -> bool | None:
    import httpx

    try:
        response = client.post(f"{base}/api/show", json={"model": name}, timeout=SHOW_TIMEOUT)
        capabilities = response.json().get("capabilities") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    if not isinstance(capabilities, list):
        return None
    return "tools" in capabilities
