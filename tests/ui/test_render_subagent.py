"""The REPL renderer shows a subagent as a nested block that stays in the scrollback, in order (issue 31)."""

from __future__ import annotations

import io

from rich.console import Console

from astro_cli.agent import events as ev
from astro_cli.delegation.events import SubagentFinished, SubagentStarted
from astro_cli.ui.render import TurnRenderer
from astro_cli.ui.turnlog import TurnLog


def test_subagent_block_stays_in_order_and_ends_with_its_summary_line():
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=False, color_system=None)
    log = TurnLog()
    renderer = TurnRenderer(console, log, lambda: "s1")
    events = [
        ev.TurnStarted(session_id="s1", turn=1, prompt="Survey"),
        ev.ToolStarted(call_id="c1", name="subagent", arguments={"task": "Read two papers"}, key_argument="Read"),
        SubagentStarted(call_id="c1", agent="reader", task="Read two papers", session_id="s2", max_steps=5,
                           tools=["read_file"]),
        ev.ToolStarted(call_id="k1", name="read_file", arguments={"path": "a.txt"}, key_argument="a.txt",
                       agent="reader"),
        ev.ToolFinished(call_id="k1", name="read_file", ok=True, duration=0.01, content="A", agent="reader"),
        ev.ToolStarted(call_id="k2", name="read_file", arguments={"path": "b.txt"}, key_argument="b.txt",
                       agent="reader"),
        ev.ToolFinished(call_id="k2", name="read_file", ok=True, duration=0.01, content="B", agent="reader"),
        SubagentFinished(call_id="c1", agent="reader", session_id="s2", ok=True, stop_reason="answered", steps=3,
                            duration=1.2, input_tokens=300, output_tokens=40, tool_calls={"read_file": 2},
                            summary="Both papers agree."),
        ev.ToolFinished(call_id="c1", name="subagent", ok=True, duration=1.3, content="Both papers agree."),
    ]
    for event in events:
        renderer.handle(event)
    renderer.settle()
    text = out.getvalue()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    assert lines[0] == "1 subagent Read"  # the caller's call line opens the block, its number first
    assert lines[1] == "⤷ reader: Read two papers (up to 5 steps)"
    assert lines[2].startswith("2 [reader] read_file a.txt") and lines[3].startswith("3 [reader] read_file b.txt")
    assert lines[4].startswith("⤷ reader done · 3 steps") and "Both papers agree." in lines[4]
    assert len(lines) == 5  # the caller's line is not printed a second time after the summary
    # The inner calls are still there to expand with /tool N.
    assert [c.name for c in log.calls] == ["subagent", "read_file", "read_file"]


def test_download_progress_shows_in_the_spinner():
    from astro_cli.research.library.download import DownloadProgress

    console = Console(file=io.StringIO(), width=100, force_terminal=False, color_system=None)
    renderer = TurnRenderer(console, TurnLog(), lambda: "s1")
    renderer.handle(DownloadProgress(label="1001.0012.pdf", done=1_500_000, total=3_000_000))
    label = renderer._showing.text.plain
    renderer.settle()
    assert label == "downloading 1001.0012.pdf: 1.5 MB of 3.0 MB (50%)"
