"""The standard tools as the model meets them in the system prompt."""

from __future__ import annotations

from astro_cli.bootstrap import build_app
from astro_cli.tools.base import first_sentence

STANDARD = {
    "search_papers", "download_paper", "parse_paper", "get_paper_content", "rag_search", "query_target",
    "save_note", "read_file", "grep_files", "glob_files", "run_bash", "file_write", "file_edit", "todo_write",
    "compress_context", "load_skill", "subagent", "save_memory", "bg_task_run",
}


def test_the_nineteen_tools_of_003_are_registered(workspace, monkeypatch):
    monkeypatch.setenv("ASTRO_HOME", str(workspace.parent / "home"))
    app = build_app(workspace=workspace).install_features()
    assert STANDARD <= set(app.tools.names())
    app.close()


def test_every_summary_is_a_whole_sentence_within_80_characters(workspace, monkeypatch):
    monkeypatch.setenv("ASTRO_HOME", str(workspace.parent / "home"))
    app = build_app(workspace=workspace).install_features()
    for tool in app.tools.ordered(None):
        whole = first_sentence(tool.description, limit=10_000)
        assert len(whole) <= 80, f"{tool.name}: the prompt would cut '{whole}'"
        assert tool.summary == whole
    app.close()


def test_write_tools_need_permission_and_readers_do_not(workspace, monkeypatch):
    monkeypatch.setenv("ASTRO_HOME", str(workspace.parent / "home"))
    app = build_app(workspace=workspace).install_features()
    needs = {t.name for t in app.tools.ordered(None) if t.needs_permission}
    assert {"file_write", "file_edit", "run_bash"} <= needs
    assert not needs & {"read_file", "grep_files", "glob_files", "search_papers", "rag_search", "query_target"}
    app.close()
