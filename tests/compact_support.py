"""Helpers for the compaction tests: a scripted model behind the fake provider, and a real session.

The scripted model answers each request the fake provider receives: a summarizing request (its
last message is the compaction instruction) gets a structured summary, every other request gets
the next step of the plan. Sessions are real: build_app, open_session, the real litellm.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import base_env, clear_astro_environment
from tests.fakeprovider import FakeProvider

SUMMARY_TEXT = (
    "## Request\nCompare the distances to SN 2011fe.\n"
    "## Key findings\nCepheid distance 6.4 Mpc (2011Natur.480..344N); TRGB 6.8 Mpc (arXiv:1305.4201).\n"
    "## Papers consulted\n2011Natur.480..344N Nugent 2011; arXiv:1305.4201 Lee 2013.\n"
    "## Decisions\nUse only peer-reviewed distances.\n"
    "## Open tasks\nCheck the SBF distance.\n"
    "## Next step\nSearch ADS for SBF distances to M101."
)
INSTRUCTION_START = "[Compaction request]"


def text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def is_summary_request(body: dict[str, Any]) -> bool:
    return INSTRUCTION_START in text(body["messages"][-1])


def read(path: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "read_file", "arguments": {"path": path}}]}


@dataclass
class ScriptedModel:
    plan: list[dict[str, Any]]
    summary: str = SUMMARY_TEXT
    usage: dict[str, Any] | None = None  # usage reported for every non-summary request
    summaries: int = 0
    final: str = "All done."
    seen: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        self.seen.append(body)
        if is_summary_request(body):
            self.summaries += 1
            return {"text": self.summary, "usage": {"input_tokens": 500, "output_tokens": 120}}
        turn = dict(self.plan.pop(0)) if self.plan else {"text": self.final}
        if self.usage and "usage" not in turn:
            turn["usage"] = self.usage
        return turn

    def attach(self, fake: FakeProvider, requests: int = 1000) -> ScriptedModel:
        fake.add(*[self] * requests)
        return self


def write_files(workspace: Path, sizes: dict[str, int]) -> None:
    """Files of roughly `words` words each (about one token per word)."""
    for name, words in sizes.items():
        body = " ".join(f"w{n % 97}" for n in range(words))
        (workspace / name).write_text(f"{name}\n{body}\n", encoding="utf-8")


def open_test_session(
    monkeypatch: pytest.MonkeyPatch, workspace: Path, fake: FakeProvider, anthropic: bool = False, **settings: Any
):
    """A real session in `workspace` talking to the fake provider; settings are ASTRO_* variables."""
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.bootstrap import build_app

    monkeypatch.chdir(workspace)
    clear_astro_environment(monkeypatch)
    env = base_env(workspace.parent)
    if anthropic:
        env.update(ASTRO_MODEL="anthropic/claude-sonnet-4-5", ASTRO_API_BASE=fake.url, ASTRO_API_KEY="sk-ant-test-456")
    else:
        env.update(ASTRO_MODEL="openai/fake-model", ASTRO_API_BASE=fake.openai_url, ASTRO_API_KEY="sk-test-secret-1")
    env.update({f"ASTRO_{k.upper()}": str(v) for k, v in settings.items()})
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    app = build_app()
    bus = EventBus()
    events: list[Any] = []
    bus.subscribe(events.append)
    session = open_session(app, bus, permission_policy(app, yes=True))
    return app, session, events


def baseline_tokens(session: Any) -> int:
    """What system prompt, tools and the environment reserve cost before any message."""
    from astro_cli.agent.tokens import TokenCounter

    assembled = session.assemble()
    return TokenCounter(session.llm.config.model, load=True).request(assembled.system, [], assembled.tools)


def measured(body: dict[str, Any]) -> int:
    """The request as the provider received it, measured with litellm's counter."""
    from astro_cli.litellm_model.loader import load_litellm

    return load_litellm().token_counter(
        model="openai/fake-model", messages=body["messages"], tools=body.get("tools")
    )


def compaction_events(events: list[Any]) -> list[tuple[str, str]]:
    return [(e.type, e.layer) for e in events if e.type in ("compaction_started", "compacted")]


def dumps(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)
