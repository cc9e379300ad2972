"""A long session through the real `astro run`: 200+ scripted steps in a small window.

Every request the fake provider received is measured with litellm's counter (the one the engine
uses); none may exceed the configured window, summaries included.
"""

from __future__ import annotations

import json

import pytest

from astro_cli.litellm_model.loader import load_litellm
from tests.compact_support import (
    ScriptedModel,
    baseline_tokens,
    is_summary_request,
    open_test_session,
    read,
    write_files,
)

STEPS = 210


@pytest.mark.heavy  # 200 model steps
def test_a_200_step_session_never_exceeds_the_window(monkeypatch, workspace, fake, cli, astro_env) -> None:
    sizes = {"notes.txt": 40, "table.txt": 250, "paper.txt": 700, "catalog.txt": 1500, "huge.txt": 9000}
    write_files(workspace, sizes)
    app, session, _ = open_test_session(monkeypatch, workspace, fake)
    base = baseline_tokens(session)
    app.close()
    window = base + 12000

    names = list(sizes)
    plan = []
    for step in range(STEPS):
        if step % 40 == 20:
            todos = {
                "todos": [{"id": "t1", "content": f"survey batch {step // 40}", "status": "in_progress"}]
            }
            plan.append({"tool_calls": [{"name": "todo_write", "arguments": todos}]})
        elif step == 150:
            plan.append({"tool_calls": [{"name": "read_file", "arguments": {"path": "huge.txt"}}]})
        else:
            plan.append(read(names[step % 4]))
    model = ScriptedModel(plan, final="Survey complete.").attach(fake, requests=STEPS + 200)
    env = {**astro_env, "ASTRO_CONTEXT_WINDOW": str(window), "ASTRO_MAX_STEPS": str(STEPS + 20)}

    result = cli(["run", "Survey every file, again and again.", "--output-format", "json"], env)
    assert result.exit_code == 0, result.stderr[-2000:]
    assert '"answer": "Survey complete."' in result.stdout
    counter = load_litellm().token_counter
    sizes_sent = [
        counter(model="openai/fake-model", messages=b["messages"], tools=b.get("tools")) for b in model.seen
    ]
    steps = [b for b in model.seen if not is_summary_request(b)]
    assert len(steps) >= STEPS
    over = [
        (i, s, is_summary_request(model.seen[i]), len(model.seen[i]["messages"]))
        for i, s in enumerate(sizes_sent)
        if s > window
    ]
    assert not over, (over, window, result.stderr[-3000:])
    assert model.summaries >= 3  # the window was really outgrown, more than once
    assert "Automatic compaction is off" not in result.stderr
    # the biggest request came close to the window: compaction let the session use it, not hide from it
    assert max(sizes_sent) > 0.6 * window
    from astro_cli.bootstrap import build_app
    from astro_cli.compact.records import CompactionStore

    app = build_app()
    session_id = json.loads(result.stdout.strip().splitlines()[-1])["session_id"]
    rows = CompactionStore(app.db).list(session_id)
    layers = [r["layer"] for r in rows]
    # the huge result needed layer 3 (cut to fit); the rest was summaries and placeholders
    assert {"micro", "summary", "aggressive"} <= set(layers)
    assert layers.count("summary") < STEPS // 4
    stored = [m for m in app.sessions.messages(session_id) if m.role == "tool"]
    assert len(stored) >= STEPS and not any("cut by compaction" in m.message["content"] for m in stored)
    app.close()
