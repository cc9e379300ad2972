"""Read and write tools stay inside the workspace, links included; regex searches are bounded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import tool_results


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("TOP-SECRET-CONTENT\n")
    return folder


def test_listing_and_searching_never_leave_the_workspace(fake, astro_env, workspace, run_astro, outside):
    (workspace / "linkdir").symlink_to(outside)
    (workspace / "linkfile.txt").symlink_to(outside / "secret.txt")
    (workspace / "inside.txt").write_text("TOP-SECRET-CONTENT is quoted here too\n")
    (workspace / "inner").mkdir()
    (workspace / "alias.txt").symlink_to(workspace / "inside.txt")  # a link that stays inside is fine
    depth = "../" * (len(workspace.parts) + 2)
    fake.add(
        {"tool_calls": [
            {"name": "glob_files", "arguments": {"pattern": f"{depth}etc/pass*"}},
            {"name": "glob_files", "arguments": {"pattern": "linkdir/*"}},
            {"name": "glob_files", "arguments": {"pattern": "**/*.txt"}},
            {"name": "grep_files", "arguments": {"pattern": "TOP-SECRET"}},
            {"name": "grep_files", "arguments": {"pattern": "TOP", "path": "linkdir"}},
            {"name": "read_file", "arguments": {"path": "linkfile.txt"}},
        ]},
        {"text": "done"},
    )
    result = run_astro(["run", "look around"], astro_env)
    assert result.returncode == 0, result.stderr
    etc, linked, txt, grep, grep_link, read = tool_results(fake.bodies()[1])
    assert "passwd" not in etc and "outside the workspace" in etc
    assert "secret.txt" not in linked
    assert txt.splitlines() == ["alias.txt", "inside.txt"]
    assert grep.splitlines() == ["alias.txt:1: TOP-SECRET-CONTENT is quoted here too",
                                 "inside.txt:1: TOP-SECRET-CONTENT is quoted here too"]
    assert "outside the workspace" in grep_link
    assert "outside the workspace" in read


def test_notes_and_memory_are_not_written_through_links(fake, astro_env, workspace, run_astro, outside):
    (workspace / "notes").symlink_to(outside)
    (workspace / "memory").symlink_to(outside)
    (outside / "old-plan.md").write_text(  # a memory there is read, but MEMORY.md is not written beside it
        "---\nslug: old-plan\ndescription: an older plan\ntype: project\n---\nObserve M33.\n")
    fake.add(
        {"tool_calls": [
            {"name": "save_note", "arguments": {"title": "Plan", "content": "observe M31"}},
            {"name": "save_memory", "arguments": {"slug": "plan", "type": "project", "description": "plan",
                                                  "content": "observe M31"}},
            {"name": "file_write", "arguments": {"path": "notes/x.md", "content": "x"}},
        ]},
        {"text": "done"},
    )
    run_astro(["run", "save the plan", "--allow", "file_write"], astro_env)
    note, memory, write = tool_results(fake.bodies()[1])
    assert "leads outside the workspace" in note or "outside the workspace" in note
    assert "leads outside the workspace" in memory
    assert "outside the workspace" in write
    added = run_astro(["memory", "add", "plan", "--type", "project", "--description", "plan", "observe M31"],
                      astro_env)
    assert added.returncode != 0 and "leads outside the workspace" in added.stderr + added.stdout
    assert sorted(p.name for p in outside.iterdir()) == ["old-plan.md", "secret.txt"]


def test_writing_through_a_final_link_is_refused(fake, astro_env, workspace, run_astro, outside):
    (workspace / "report.md").symlink_to(outside / "secret.txt")
    fake.add({"tool_calls": [{"name": "file_write", "arguments": {"path": "report.md", "content": "gotcha"}}]},
             {"text": "done"})
    run_astro(["run", "write", "--allow", "file_write"], astro_env)
    assert "outside the workspace" in tool_results(fake.bodies()[1])[0]
    assert (outside / "secret.txt").read_text() == "TOP-SECRET-CONTENT\n"


def test_a_folder_swapped_for_a_link_after_the_check_fails_the_write(tmp_path, outside):
    """The race: the path was judged with a real folder, which then became a link before the write."""
    from astro_cli.security.writer import LinkRefused, open_folder_chain, open_in_folder

    root = tmp_path / "ws"
    (root / "data").mkdir(parents=True)
    (root / "data").rmdir()
    (root / "data").symlink_to(outside)  # swapped
    with pytest.raises(LinkRefused):
        fd = open_folder_chain(root, ["data"], create=True)
        try:
            with open_in_folder(fd, "x.txt") as handle:
                handle.write(b"x")
        finally:
            os.close(fd)
    assert not (outside / "x.txt").exists()


def test_confined_write_keeps_the_mode_and_replaces_atomically(tmp_path):
    from astro_cli.security.paths import Confinement
    from astro_cli.workspace import AstroHome, Workspace

    root = tmp_path / "ws"
    root.mkdir()
    target = root / "deep" / "er" / "run.sh"
    confinement = Confinement.for_workspace(Workspace(root), AstroHome(tmp_path / "home"))
    confinement.write_text(target, "echo 1\n")
    target.chmod(0o750)
    confinement.write_text(target, "echo 2\n")
    assert target.read_text() == "echo 2\n" and (target.stat().st_mode & 0o777) == 0o750
    assert [p.name for p in target.parent.iterdir()] == ["run.sh"]  # no temporary file left behind


def test_catastrophic_regex_answers_instead_of_hanging(fake, astro_env, workspace, run_astro):
    (workspace / "long.txt").write_text("a" * 5000 + "b\n")
    fake.add({"tool_calls": [{"name": "grep_files", "arguments": {"pattern": "(a+)+$"}}]}, {"text": "done"})
    env = dict(astro_env, ASTRO_GREP_TIMEOUT="2")
    result = run_astro(["run", "search"], env, timeout=120)  # the old grep ran for more than 90 s; the answer below says it stopped at 2 s
    assert result.returncode == 0, result.stderr
    [answer] = tool_results(fake.bodies()[1])
    assert "The pattern took too long" in answer and "2 s" in answer
