"""`/status` in the real REPL (issue 32): the model, its profile and why, the local server and its
context window, the last turn's steps, the session's tokens and the last prompt as llama.cpp's
server reported processing it (the fake provider sends llama.cpp's `prompt_progress` chunk)."""

from __future__ import annotations

import json
import re

import pytest

from astro_cli.agent import events as ev
from astro_cli.agent.model_activity import ModelActivity
from tests.conftest import CTRL_D
from tests.fakeprovider import FakeProvider
from tests.paths import FIXTURES_DIR

LLAMA_MODELS = FIXTURES_DIR / "local_model" / "llamacpp_v1_models.json"


@pytest.fixture
def llama(fake: FakeProvider) -> FakeProvider:
    """The fake provider answering /v1/models as llama.cpp's server does (16,384-token context);
    asked for before `repl`, so the REPL's session meets it when it opens."""
    fake.models_listing = json.loads(LLAMA_MODELS.read_text())
    return fake


def test_status_shows_the_profile_the_server_and_the_last_prompt_it_processed(llama, repl):
    llama.add({"text": "P = 4.885489 d.", "progress": {"total": 5548, "cache": 1200, "processed": 0, "time_ms": 0},
               "usage": {"input_tokens": 5548, "output_tokens": 9, "cache_read_input_tokens": 1200,
                         "cache_creation_input_tokens": 0}})
    output = repl.type_and_run(f"/status\rWhat period did I note?\r/status\r{CTRL_D}")
    before, after = output.split("P = 4.885489 d.", 1)
    assert "no model requests in this session yet" in before and "last prompt" not in before
    assert re.search(r"model\s+openai/fake-model \(", after)
    assert re.search(r"profile\s+small \(auto: the server reports a context window of 16,384 tokens, under "
                     r"32,768\)", after)
    assert re.search(r"server\s+llama\.cpp at http://127\.0\.0\.1:\d+/v1 · context window 16,384 tokens", after)
    assert re.search(r"steps\s+1 of \d+ in the last turn", after)
    assert re.search(r"tokens\s+1 request · 5,548 in \(cache 1,200 read, 0 written\) · 9 out", after)
    assert re.search(r"last prompt\s+5,548 tokens, 1,200 cached, processed in [\d.,]+ s", after), after


def test_status_of_a_profile_set_by_hand_says_so(fake: FakeProvider, repl):
    repl.app.settings.set("profile", "small", "command line")
    output = repl.type_and_run(f"/status\r{CTRL_D}")
    assert re.search(r"profile\s+small \(profile small set by command line\)", output), output
    assert "/status" in repl.type_and_run(f"/help\r{CTRL_D}")


def test_the_prompt_figures_come_from_the_events_in_order():
    """Thinking starts the clock, the first streamed text stops it; without llama.cpp's progress
    the usage gives the size, and a reply that streamed no text says how long it took in all."""
    now = [100.0]
    activity = ModelActivity(clock=lambda: now[0])
    usage = ev.UsageReport(input_tokens=2000, output_tokens=10, cache_read_input_tokens=500,
                           cache_creation_input_tokens=0, cost_usd=None)
    for event in (ev.StepStarted(step=2, max_steps=25), ev.Thinking(step=2),
                  ev.PromptProgress(total=5548, cached=1200, processed=0)):
        activity.handle(event)
    now[0] = 265.0
    activity.handle(ev.TextDelta(text="P"))
    now[0] = 270.0
    activity.handle(ev.TextDelta(text=" = 4.9 d"))
    activity.handle(usage)
    assert activity.last_prompt is not None
    assert activity.last_prompt.line() == "5,548 tokens, 1,200 cached, processed in 165 s (26 tokens/s)"
    assert (activity.step, activity.max_steps) == (2, 25)
    activity.handle(ev.Thinking(step=3))
    now[0] = 278.5
    activity.handle(usage)  # a native tool call: no text streamed
    assert activity.last_prompt.line() == "2,000 tokens, 500 cached; the reply took 8.5 s in all"
    activity.handle(usage)  # usage of no request of this loop (a subagent's): the figures stay
    assert activity.last_prompt.reply_seconds == 8.5
