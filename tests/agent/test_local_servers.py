"""Issue 32: OpenAI-compatible local servers (llama.cpp, vLLM, LM Studio) found by `GET /v1/models`,
and the small profile chosen for a server whose context window is under 32k tokens. The server is
the fake provider on 127.0.0.1 answering /v1/models with a real llama.cpp listing
(tests/fixtures/local_model/, PROVENANCE.md) and chat requests through the real litellm."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from astro_cli.config_schema import SCHEMA
from astro_cli.local_servers import find_servers, probe
from tests.fakeprovider import FakeProvider
from tests.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "local_model"
SMALL_TOOLS = set(SCHEMA["small_profile.tools"].default)


def listing(name: str, context: int | None = None) -> dict:
    """A recorded /v1/models answer, its context window changed when a test needs another one."""
    value = json.loads((FIXTURES / name).read_text())
    if context is not None:
        for entry in value["data"]:
            if "meta" in entry:
                entry["meta"]["n_ctx"] = context
            else:
                entry["max_model_len"] = context
    return value


def closed_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"  # closed again when the block ends


def offered(body: dict) -> set[str]:
    return {tool["function"]["name"] for tool in body.get("tools") or []}


def test_a_llama_cpp_server_is_recognised_with_its_model_and_context_window(fake: FakeProvider):
    fake.models_listing = listing("llamacpp_v1_models.json")
    server = probe(fake.openai_url)
    assert server is not None and server.kind == "llama.cpp" and server.url == fake.url
    assert [(m.id, m.context) for m in server.models] == [("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", 16384)]
    assert server.models[0].litellm_model == "openai/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    assert server.api_base == fake.openai_url


def test_a_vllm_server_reports_max_model_len(fake: FakeProvider):
    fake.models_listing = listing("vllm_v1_models.json")
    server = probe(fake.url)
    assert server is not None and server.kind == "vLLM"
    assert [(m.id, m.context) for m in server.models] == [("Qwen/Qwen2.5-7B-Instruct", 8192)]


def test_servers_are_found_among_the_configured_urls_and_silent_ports_are_skipped(fake: FakeProvider):
    fake.models_listing = {"object": "list", "data": [{"id": "local-model", "object": "model", "owned_by": "me"}]}
    nothing = closed_port()
    found = find_servers([nothing, fake.openai_url, fake.url])  # the same server twice: listed once
    assert [(s.url, s.kind, [m.id for m in s.models]) for s in found] == [
        (fake.url, "OpenAI-compatible server", ["local-model"])]
    assert found[0].models[0].context is None
    assert probe(nothing) is None


def test_doctor_lists_a_local_server_and_the_profile_its_context_gives(run_astro, fake: FakeProvider, astro_env):
    fake.models_listing = listing("llamacpp_v1_models.json")
    nothing = closed_port()
    result = run_astro(["doctor"], {**astro_env, "ASTRO_LOCAL_SERVERS": f"{fake.url},{nothing}"})
    line = next(line for line in result.stdout.splitlines() if "local model servers" in line)
    assert line == (f"✓ local model servers: llama.cpp at {fake.url} serves qwen2.5-coder-1.5b-instruct-q4_k_m.gguf "
                    f"(context 16,384, small profile); nothing at {nothing}")


def test_doctor_says_when_no_local_server_answers(run_astro, astro_env):
    nothing = closed_port()
    result = run_astro(["doctor"], {**astro_env, "ASTRO_LOCAL_SERVERS": nothing})
    assert f"✓ local model servers: none (looked at {nothing}, " in result.stdout


def test_a_server_under_32k_tokens_of_context_gets_the_small_profile(cli, fake: FakeProvider, astro_env, workspace):
    (workspace / "README.md").write_text("# fits\n")
    fake.models_listing = listing("llamacpp_v1_models.json")  # n_ctx 16384
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "README.md"}}]}, {"text": "It fits."})
    result = cli(["run", "--output-format", "json", "What is in the README?"], env=astro_env)
    assert result.exit_code == 0, result.stdout
    first, second = fake.bodies()
    assert offered(first) <= SMALL_TOOLS and "read_file" in offered(first) and offered(second) == offered(first)
    assert fake.model_lists == 1  # asked once for the session, not per request


def test_a_large_context_keeps_the_default_profile_and_flags_still_win(cli, fake: FakeProvider, astro_env):
    fake.models_listing = listing("llamacpp_v1_models.json", context=65536)
    fake.add({"text": "a"}, {"text": "b"}, {"text": "c"})
    assert cli(["run", "Hi"], env=astro_env).exit_code == 0
    fake.models_listing = listing("llamacpp_v1_models.json", context=4096)
    assert cli(["run", "--profile", "default", "Hi"], env=astro_env).exit_code == 0
    assert cli(["run", "Hi"], env={**astro_env, "ASTRO_PROFILE": "default"}).exit_code == 0
    full = [offered(body) for body in fake.bodies()]
    assert all(len(tools) > len(SMALL_TOOLS) + 5 for tools in full)
    assert fake.model_lists == 3  # once per session, whatever the profile (its kind matters too)


def test_the_reported_context_is_remembered_when_the_server_is_busy_or_gone(cli, fake: FakeProvider, astro_env):
    fake.models_listing = listing("vllm_v1_models.json")  # max_model_len 8192
    fake.add({"text": "a"}, {"text": "b"})
    assert cli(["run", "Hi"], env=astro_env).exit_code == 0
    fake.models_listing = None  # /v1/models stops answering
    assert cli(["run", "Hi"], env=astro_env).exit_code == 0
    first, second = fake.bodies()
    assert offered(first) == offered(second) and offered(first) <= SMALL_TOOLS
    cache = json.loads((Path(astro_env["ASTRO_HOME"]) / "local-servers.json").read_text())
    assert cache[fake.url]["context"] == 8192 and cache[fake.url]["kind"] == "vLLM"


def test_only_a_local_server_is_asked(fake: FakeProvider, tmp_path):
    """Cloud APIs and Ollama (small by name) are never asked what they serve."""
    from astro_cli.agent.local_models import server_facts

    fake.models_listing = listing("llamacpp_v1_models.json")
    cache = tmp_path / "local-servers.json"
    facts = server_facts("openai/qwen", fake.openai_url, cache)
    assert (facts.context, facts.kind) == (16384, "llama.cpp") and fake.model_lists == 1
    assert server_facts("openai/gpt-4.1", "https://api.openai.com/v1", cache).kind is None
    assert server_facts("ollama_chat/qwen2.5-coder:1.5b", fake.url, cache).kind is None
    assert server_facts("openai/qwen", None, cache).kind is None
    assert fake.model_lists == 1


def test_llama_cpp_is_asked_for_prompt_progress_and_astro_reports_it(cli, fake: FakeProvider, astro_env):
    """llama.cpp's server sends `prompt_progress` on its first chunk when asked (return_progress);
    astro passes it on as an event the spinners show. Other servers are not sent the option."""
    fake.models_listing = listing("llamacpp_v1_models.json")
    fake.add({"text": "Done.", "progress": {"total": 5548, "cache": 2340, "processed": 0, "time_ms": 0}})
    result = cli(["run", "--output-format", "astro-events", "Hi"], env=astro_env)
    assert result.exit_code == 0, result.stdout
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    progress = [e for e in events if e["type"] == "prompt_progress"]
    assert progress == [{"type": "prompt_progress", "total": 5548, "cached": 2340, "processed": 0}]
    assert fake.bodies()[0]["return_progress"] is True
    fake.models_listing = listing("vllm_v1_models.json")
    fake.add({"text": "Done."})
    assert cli(["run", "Hi"], env={**astro_env, "ASTRO_HOME": astro_env["ASTRO_HOME"] + "-2"}).exit_code == 0
    assert "return_progress" not in fake.bodies()[1]


def test_the_progress_label_reads_as_a_person_would_say_it():
    from astro_cli.agent.events import PromptProgress

    assert PromptProgress(total=5548, cached=0, processed=2340).label() == "processing prompt 2,340/5,548 tokens…"
    assert PromptProgress(total=5548, cached=5000, processed=0).label() == "processing prompt 5,548 tokens (5,000 cached)…"
