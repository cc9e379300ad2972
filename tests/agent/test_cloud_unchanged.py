"""Issue 32: nothing changes for cloud models. Their configuration carries none of the local tuning
(no temperature, no text calls, no first-token wait, no server facts), no local server is asked
anything, and a session sends the full prompt: every tool with its whole description, the skills
list, the memory section and the ten principles, byte for byte as before the small profile."""

from __future__ import annotations

from pathlib import Path

from astro_cli.agent.events import EventBus
from astro_cli.agent.factory import open_session, permission_policy, resolve_model
from astro_cli.agent.provider import LLMConfig
from astro_cli.litellm_model.adapter import LLM
from astro_cli.prompt.sections import LANGUAGE_DEFAULT, PRINCIPLES
from tests.fakeprovider import FakeProvider
from tests.library_support import make_app


def test_a_cloud_models_configuration_has_no_local_tuning(tmp_path: Path):
    for model, api_base in (("anthropic/claude-sonnet-4-5", None), ("openai/gpt-4.1", "https://api.openai.com/v1")):
        app = make_app(tmp_path / model.replace("/", "-"), model=model, api_base=api_base)
        try:
            config = resolve_model(app, env={"ANTHROPIC_API_KEY": "sk-ant-x", "OPENAI_API_KEY": "sk-x"})
        finally:
            app.close()
        assert (config.temperature, config.text_tool_calls, config.first_token_timeout) == (None, False, None)
        assert (config.max_tokens, config.max_continuations) == (None, 3)
        assert (config.context_window, config.server_kind) == (None, None)
        assert not (tmp_path / model.replace("/", "-") / ".home" / "local-servers.json").exists()


def test_a_cloud_session_sends_the_full_prompt_and_no_local_options(fake: FakeProvider, tmp_path: Path):
    fake.models_listing = {"object": "list", "data": [{"id": "gpt-4.1", "object": "model", "owned_by": "llamacpp",
                                                        "meta": {"n_ctx": 4096}}]}
    fake.add({"text": "Answer."})
    app = make_app(tmp_path / "project")
    # A cloud configuration as resolve_model gives it, sent to the fake (its address alone would make it local).
    llm = LLM(LLMConfig(model="openai/gpt-4.1", api_base=fake.openai_url, api_key="sk-test", num_retries=0))
    try:
        session = open_session(app, EventBus(), permission_policy(app), llm=llm)
        state = session.run_turn("What is the Hubble tension?")
        session.stop("test")
        registered = {t.name: t for t in app.tools.ordered(app.settings.get("tool_order"))}
    finally:
        app.close()
    assert state.stop_reason == "answered"
    body = fake.bodies()[0]
    assert "temperature" not in body and "return_progress" not in body and "max_tokens" not in body
    sent = {t["function"]["name"]: t["function"]["description"] for t in body["tools"]}
    assert sent == {name: tool.description for name, tool in registered.items() if name in sent}
    assert len(sent) > 15 and {"load_skill", "save_memory", "todo_write", "run_bash"} <= set(sent)
    system = body["messages"][0]["content"]
    system = system if isinstance(system, str) else "".join(part["text"] for part in system)
    assert system.endswith(PRINCIPLES.format(language_rule=LANGUAGE_DEFAULT))
    assert "<system-reminder>" in system and "[PROJECT MEMORY]" in system and "How to work:" not in system
    assert fake.model_lists == 0
