"""The examples of docs/architecture.md run as written: a reader who copies them gets a working tool,
prompt section, per-session state, service, slash command and transcript section.

The blocks are run in order in one namespace (later blocks use names of earlier ones, as the page
reads), each block's `install` on a real app. A block fenced ```python outline``` shows a protocol's
members with `...` bodies (adding a reader, a source) and is not run.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rich.console import Console

from astro_cli.by_kind import SessionStates
from astro_cli.slash import SlashContext, slash_commands
from astro_cli.tools.context import ToolContext
from astro_cli.transcript_sections import transcript_sections
from tests.library_support import make_app
from tests.paths import REPO_ROOT

PAGE = REPO_ROOT / "docs" / "architecture.md"


def blocks() -> list[str]:
    """The page's runnable examples (```python); fragments shown for their shape are fenced ```py."""
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)


def test_the_architecture_examples_install_and_work(tmp_path: Path) -> None:
    found = blocks()
    assert len(found) == 4, "the page's examples changed: update this test with them"
    app = make_app(tmp_path / "ws")
    namespace: dict[str, Any] = {"__name__": "docs_example", "Any": Any}
    for code in found:
        namespace.pop("install", None)
        exec(compile(code, str(PAGE), "exec", dont_inherit=True), namespace)  # our own documentation, run as a reader would
        namespace["AppContext"] = type(app)  # the later blocks annotate with it, as a feature imports it
        namespace["install"](app)

    # Block 1: a tool with per-session state, and a prompt section that shows it.
    states = SessionStates()
    ctx = ToolContext(app=app, session_id="s1", states=states)
    assert app.tools.get("watch_target").run(ctx, {"name": "M31"}) == "Watching M31."
    prompt = app.prompt.assemble(app.tools.ordered(), states=states).system
    assert "Targets watched: M31" in prompt
    assert "Targets watched" not in app.prompt.assemble(app.tools.ordered(), states=SessionStates()).system

    # Block 2: a service registered at install, read by a tool through ctx.service.
    (app.workspace.root / "targets.txt").write_text("M31 NGC1275\n")
    assert app.tools.get("list_targets").run(ctx, {}) == "M31, NGC1275"

    # Block 3: a slash command, registered as data, prints the same targets.
    console = Console(record=True, width=80)
    slash_commands(app)["targets"].handler(SlashContext(app=app, console=console, session=None), "")
    assert "M31, NGC1275" in console.export_text()

    # Block 4: a transcript section, registered as data for `sessions show`.
    assert [section.title for section in transcript_sections(app)][-1] == "Targets"
