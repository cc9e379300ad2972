"""End to end in the Anthropic wire format: over a 10-step tool-using turn the system prompt and the
tools are byte-identical in every request, each request's history extends the previous one, the
environment message comes last, and cache breakpoints sit where the provider cache needs them."""

from __future__ import annotations

import copy
import json

from tests.fakeprovider import FakeProvider


def _strip_cache(obj):
    obj = copy.deepcopy(obj)
    if isinstance(obj, dict):
        obj.pop("cache_control", None)
        return {k: _strip_cache(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_strip_cache(v) for v in obj]
    return obj


def _without_environment(messages):
    """Messages with the trailing environment text block removed (litellm merges it into the last user turn)."""
    messages = copy.deepcopy(messages)
    last = messages[-1]
    assert last["role"] == "user"
    blocks = last["content"]
    assert blocks[-1]["type"] == "text" and blocks[-1]["text"].startswith("<environment>")
    if len(blocks) == 1:
        messages.pop()
    else:
        last["content"] = blocks[:-1]
    return messages


def _cache_marked(obj) -> list[str]:
    found = []

    def walk(node, path):
        if isinstance(node, dict):
            if "cache_control" in node:
                found.append(path)
            for key, value in node.items():
                walk(value, f"{path}.{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{path}[{index}]")

    walk(obj, "")
    return found


def test_ten_step_turn_keeps_prompt_and_tools_identical(cli, fake: FakeProvider, anthropic_env, workspace):
    for n in range(5):
        (workspace / f"obs{n}.txt").write_text(f"observation {n}: flux {n * 1.5} mJy\n")
    turns = [{"text": f"Step {n}.", "tool_calls": [{"name": "read_file", "arguments": {"path": f"obs{n % 5}.txt"}}]}
             for n in range(9)]
    turns.append({"text": "All five observations read; fluxes range from 0 to 6 mJy."})
    fake.add(*turns)

    result = cli(["run", "Read my observation files and summarise the fluxes."], env=anthropic_env)

    assert result.exit_code == 0, result.stderr
    assert "fluxes range" in result.stdout
    bodies = fake.bodies("anthropic")
    assert len(bodies) == 10
    systems = [json.dumps(_strip_cache(b["system"])) for b in bodies]
    tools = [json.dumps(_strip_cache(b["tools"])) for b in bodies]
    assert len(set(systems)) == 1, "the system prompt changed between steps"
    assert len(set(tools)) == 1, "the tool list changed between steps"

    histories = [_strip_cache(_without_environment(b["messages"])) for b in bodies]
    for previous, current in zip(histories, histories[1:]):
        assert len(current) > len(previous)
        # The previous history is a prefix of the current one (the last previous message may have
        # been merged with the new tool results by the provider format, so compare all but it).
        assert current[: len(previous) - 1] == previous[:-1]
        assert json.dumps(current).startswith(json.dumps(previous)[:-2])

    for body in bodies:
        # Breakpoints: the system prompt, the last tool, and the last stored message (before the environment).
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        assert all("cache_control" not in t for t in body["tools"][:-1])
        marks = _cache_marked(body["messages"])
        assert len(marks) == 1, marks
        last_blocks = body["messages"][-1]["content"]
        environment_block = last_blocks[-1]
        assert "cache_control" not in environment_block
        marked_index = int(marks[0].split("]")[0].lstrip("["))
        assert marked_index >= len(body["messages"]) - 2


def test_openai_requests_carry_no_cache_marks(cli, fake: FakeProvider, astro_env, workspace):
    (workspace / "a.txt").write_text("alpha\n")
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}, {"text": "It says alpha."})
    result = cli(["run", "What does a.txt say?"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    for body in fake.bodies("openai"):
        assert _cache_marked(body) == []
        assert body["messages"][0]["role"] == "system"
        assert body["messages"][-1]["content"].startswith("<environment>")


def test_environment_message_is_not_stored(cli, fake: FakeProvider, astro_env, workspace):
    fake.add({"text": "Hello."})
    result = cli(["run", "--output-format", "json", "Say hello."], env=astro_env)
    session_id = json.loads(result.stdout)["session_id"]
    exported = cli(["sessions", "export", session_id, "--format", "json"], env=astro_env)
    messages = json.loads(exported.stdout)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert all("<environment>" not in (m.get("content") or "") for m in messages)
    request = fake.bodies()[0]["messages"]
    assert "steps: 1 of 25 used" in request[-1]["content"]
    assert "<environment>" not in request[0]["content"]
