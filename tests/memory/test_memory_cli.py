"""End to end: `astro memory ...` commands, and save_memory through the real loop and the fake provider."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from astro_cli.memory.format import read_memory
from astro_cli.slash import slash_commands
from tests.conftest import base_env

PLANCK = "Use H0 = 67.4 km/s/Mpc and Om0 = 0.315 (Planck 2018 VI).\nIn code: astropy.cosmology.Planck18."


def _env(workspace: Path, **extra: str) -> dict[str, str]:
    env = base_env(workspace.parent)
    env.update(VISUAL="", EDITOR="")  # the developer's own editor must never open in a test
    env.update(extra)
    return env


def _editor(tmp_path: Path, body: str) -> str:
    """An $EDITOR that rewrites the file it is given with a Python snippet (`text` in, `text` out)."""
    script = tmp_path / "fake_editor.py"
    script.write_text(
        "import sys, pathlib\n"
        "path = pathlib.Path(sys.argv[1])\n"
        "text = path.read_text()\n"
        f"{body}\n"
        "path.write_text(text)\n"
    )
    return f"{sys.executable} {script}"


def test_add_list_show_and_forget(cli, workspace: Path) -> None:
    env = _env(workspace)
    added = cli(["memory", "add", "planck-2018-cosmology", "--type", "preference",
                 "--description", "Use Planck 2018 cosmology", PLANCK], env)
    assert added.exit_code == 0, added.output
    assert "Created memory 'planck-2018-cosmology' (memory/planck-2018-cosmology.md)." in added.stdout
    piped = cli(["memory", "add", "preprint-citations", "-t", "feedback", "-d", "Say when a source is a preprint"],
                env, input="Mark arXiv-only papers as preprints when citing them.\n")
    assert piped.exit_code == 0, piped.output
    assert read_memory(workspace / "memory" / "preprint-citations.md").body.startswith("Mark arXiv-only")

    listed = cli(["memory", "list", "--json"], env)
    rows = json.loads(listed.stdout)
    assert [(r["slug"], r["type"]) for r in rows] == [  # newest first
        ("preprint-citations", "feedback"), ("planck-2018-cosmology", "preference")
    ]
    table = cli(["memory", "list"], env).stdout
    assert "planck-2018-cosmology" in table and "Use Planck 2018 cosmology" in table

    shown = cli(["memory", "show", "planck-2018-cosmology"], env)
    assert shown.stdout == (workspace / "memory" / "planck-2018-cosmology.md").read_text()

    forgotten = cli(["memory", "forget", "preprint-citations"], env)
    assert "moved preprint-citations.md to memory/archive/" in forgotten.stdout
    assert (workspace / "memory" / "archive" / "preprint-citations.md").exists()
    assert "preprint-citations" not in (workspace / "memory" / "MEMORY.md").read_text()


def test_user_errors_are_one_sentence(cli, workspace: Path) -> None:
    env = _env(workspace)
    bad_slug = cli(["memory", "add", "Planck_2018", "-t", "preference", "-d", "x", "body"], env)
    assert bad_slug.exit_code == 2
    assert "Slug 'Planck_2018' is not valid" in bad_slug.stderr and "Traceback" not in bad_slug.output
    bad_type = cli(["memory", "add", "ok-slug", "-t", "opinion", "-d", "x", "body"], env)
    assert bad_type.exit_code == 2 and "Type 'opinion' is not one of" in bad_type.stderr
    empty = cli(["memory", "add", "ok-slug", "-t", "project", "-d", "x"], env, input="")
    assert empty.exit_code == 2 and "The content is empty" in empty.stderr
    missing = cli(["memory", "show", "nope"], env)
    assert missing.exit_code == 2 and "No memory 'nope'" in missing.stderr
    assert cli(["memory", "forget", "nope"], env).exit_code == 2
    assert not (workspace / "memory" / "ok-slug.md").exists()
    negative = cli(["memory", "list"], _env(workspace, ASTRO_MEMORY_INJECT="-1"))
    assert negative.exit_code == 2 and "'memory.inject' cannot be negative" in negative.stderr
    no_half_life = cli(["memory", "list"], _env(workspace, ASTRO_MEMORY_HALF_LIFE_DAYS="0"))
    assert no_half_life.exit_code == 2
    assert "'memory.half_life_days' must be a positive number (got 0.0)." in no_half_life.stderr


def test_add_from_editor(cli, workspace: Path, tmp_path: Path) -> None:
    editor = _editor(tmp_path, "text = text + 'Written in the editor: use AB magnitudes.\\n'")
    result = cli(["memory", "add", "ab-magnitudes", "-t", "preference", "-d", "AB magnitudes", "--editor"],
                 _env(workspace, EDITOR=editor))
    assert result.exit_code == 0, result.output
    memory = read_memory(workspace / "memory" / "ab-magnitudes.md")
    assert memory.body == "Written in the editor: use AB magnitudes."


def test_edit_versions_the_old_text(cli, workspace: Path, tmp_path: Path) -> None:
    env = _env(workspace)
    cli(["memory", "add", "planck-2018-cosmology", "-t", "preference", "-d", "Use Planck 2018 cosmology", PLANCK], env)
    editor = _editor(tmp_path, "text = text.replace('67.4', '67.66').replace('Planck 2018 VI', 'Planck 2018 + BAO')")
    result = cli(["memory", "edit", "planck-2018-cosmology"], _env(workspace, EDITOR=editor))
    assert result.exit_code == 0, result.output
    assert "previous text is kept as memory/planck-2018-cosmology_v1.md" in result.stdout
    assert "67.66" in read_memory(workspace / "memory" / "planck-2018-cosmology.md").body
    old = read_memory(workspace / "memory" / "planck-2018-cosmology_v1.md")
    assert "67.4 " in old.body and old.mark == "[updated]"


def test_edit_that_breaks_the_frontmatter_changes_nothing(cli, workspace: Path, tmp_path: Path) -> None:
    env = _env(workspace)
    cli(["memory", "add", "dust-map", "-t", "preference", "-d", "Use SFD dust map", "E(B-V) from SFD98."], env)
    before = (workspace / "memory" / "dust-map.md").read_text()
    editor = _editor(tmp_path, "text = text.replace('type: preference', 'type: whim')")
    result = cli(["memory", "edit", "dust-map"], _env(workspace, EDITOR=editor))
    assert result.exit_code == 2
    assert "The edit was not saved: its type is 'whim'" in result.stderr and "Your text is kept in" in result.stderr
    kept = Path(result.stderr.split("Your text is kept in")[1].split()[0].rstrip("."))
    assert "type: whim" in kept.read_text()
    kept.unlink()
    assert (workspace / "memory" / "dust-map.md").read_text() == before
    assert not (workspace / "memory" / "dust-map_v1.md").exists()
    no_editor = cli(["memory", "edit", "dust-map"], env)
    assert no_editor.exit_code == 2 and "Set $EDITOR" in no_editor.stderr


def test_list_warns_about_a_broken_file_and_keeps_going(cli, workspace: Path) -> None:
    env = _env(workspace)
    cli(["memory", "add", "good", "-t", "project", "-d", "Fine", "body"], env)
    (workspace / "memory" / "broken.md").write_text("---\ntype: preference\n")
    result = cli(["memory", "list", "--json"], env)
    assert result.exit_code == 0
    assert [r["slug"] for r in json.loads(result.stdout)] == ["good"]
    assert "memory file memory/broken.md is skipped: its frontmatter block is not closed" in result.stderr


def _memory_blocks(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"]
            if m["role"] == "user" and str(m["content"]).startswith("<project-memory-context>")]


def test_save_memory_through_the_model_reaches_the_next_turn(cli, fake, astro_env, workspace: Path) -> None:
    fake.add(
        {"tool_calls": [{"name": "save_memory", "arguments": {
            "slug": "planck-2018-cosmology", "type": "preference",
            "description": "Use Planck 2018 cosmology for all distances", "content": PLANCK}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "memory/MEMORY.md"}}]},
        {"text": "Noted: Planck 2018 from now on."},
    )
    result = cli(["run", "Please always use Planck 2018 cosmology for distances."], astro_env)
    assert result.exit_code == 0, result.output
    saved = read_memory(workspace / "memory" / "planck-2018-cosmology.md")
    assert saved.type == "preference" and saved.body == PLANCK

    bodies = fake.bodies()
    assert len(bodies) == 3
    assert len({body["messages"][0]["content"] for body in bodies}) == 1  # the system prompt never changes
    assert not any(_memory_blocks(body) for body in bodies)  # nothing was saved when the turn began
    tool_reply = next(m for m in bodies[1]["messages"] if m["role"] == "tool")
    assert "Created memory 'planck-2018-cosmology' (memory/planck-2018-cosmology.md)." in tool_reply["content"]

    # A later `astro run` (a new session) gets it with its question; an update is versioned and reported.
    fake.add(
        {"tool_calls": [{"name": "save_memory", "arguments": {
            "slug": "planck-2018-cosmology", "type": "preference",
            "description": "Use Planck 2018 cosmology for all distances", "content": "Use Planck18 + BAO."}}]},
        {"text": "Updated."},
    )
    second = cli(["run", "Which cosmology do we use? Add BAO to it."], astro_env)
    assert second.exit_code == 0, second.output
    messages = fake.bodies()[3]["messages"]
    entry = "[preference] planck-2018-cosmology: Use Planck 2018 cosmology for all distances"
    (block,) = _memory_blocks(fake.bodies()[3])
    assert entry in block and "  Use H0 = 67.4 km/s/Mpc and Om0 = 0.315 (Planck 2018 VI)." in block
    question = next(i for i, m in enumerate(messages) if m["content"] == "Which cosmology do we use? Add BAO to it.")
    assert messages[question + 1]["content"] == block  # stored right after the message it was chosen for
    assert messages[0]["content"] == bodies[0]["messages"][0]["content"]
    reply = [m for m in fake.bodies()[4]["messages"] if m["role"] == "tool"][-1]
    assert "previous text is kept as memory/planck-2018-cosmology_v1.md" in reply["content"]
    fake.add({"text": "Planck18 + BAO."})
    third = cli(["run", "And the cosmology again?"], astro_env)
    assert third.exit_code == 0, third.output
    (block,) = _memory_blocks(fake.bodies()[5])
    assert "  Use Planck18 + BAO." in block and "_v1" not in block


def test_save_memory_with_a_bad_slug_is_an_error_the_model_reads(cli, fake, astro_env, workspace: Path) -> None:
    fake.add(
        {"tool_calls": [{"name": "save_memory", "arguments": {
            "slug": "../../etc/passwd", "type": "preference", "description": "x", "content": "y"}}]},
        {"text": "Sorry."},
    )
    result = cli(["run", "remember this"], astro_env)
    assert result.exit_code == 0
    tool_reply = next(m for m in fake.bodies()[1]["messages"] if m["role"] == "tool")
    assert "save_memory: slug '../../etc/passwd' is not valid" in tool_reply["content"]
    assert not (workspace / "memory").exists() or not any((workspace / "memory").glob("*.md"))


def test_a_broken_memory_file_does_not_stop_a_turn(cli, fake, astro_env, workspace: Path) -> None:
    (workspace / "memory").mkdir()
    (workspace / "memory" / "broken.md").write_text("---\n: : :\n---\n")
    (workspace / "memory" / "ok.md").write_text("---\ntype: project\ndescription: Pipeline in ~/lens\n---\nmake all\n")
    fake.add({"text": "Fine."})
    result = cli(["run", "where is the lensing pipeline?"], astro_env)
    assert result.exit_code == 0, result.output
    assert "[project] ok: Pipeline in ~/lens" in _memory_blocks(fake.bodies()[0])[0]
    assert "memory file memory/broken.md is skipped" in result.stderr
    assert "Traceback" not in result.output


def test_memory_slash_command_lists_shows_and_forgets(tmp_path: Path, monkeypatch) -> None:
    import io

    from rich.console import Console

    from astro_cli.bootstrap import build_app
    from astro_cli.slash import SlashContext

    monkeypatch.setenv("ASTRO_HOME", str(tmp_path / "home"))
    app = build_app(workspace=tmp_path)
    app.install_features()
    command = slash_commands(app)["memory"]
    out = io.StringIO()
    ctx = SlashContext(app=app, console=Console(file=out, width=200, no_color=True), session=None)
    command.handler(ctx, "")
    assert "No memories yet" in out.getvalue()
    from astro_cli.memory.feature import memory_service

    memory_service(app).store.save("gaia-dr3", "reference", "Gaia DR3 summary paper", "2023A&A...674A...1G")
    command.handler(ctx, "list")
    assert "[reference] gaia-dr3: Gaia DR3 summary paper" in out.getvalue()
    command.handler(ctx, "show gaia-dr3")
    assert "2023A&A...674A...1G" in out.getvalue()
    command.handler(ctx, "show ghost")
    assert "memory: there is no memory 'ghost'" in out.getvalue()
    command.handler(ctx, "forget gaia-dr3")
    assert "Forgot 'gaia-dr3'" in out.getvalue() and (tmp_path / "memory" / "archive" / "gaia-dr3.md").exists()
    command.handler(ctx, "frobnicate")
    assert "Usage: /memory [list | show SLUG | forget SLUG]" in out.getvalue()
    app.close()


def test_an_editor_that_cannot_run_leaves_no_scratch_file_and_one_that_fails_keeps_the_text(
        run_astro, workspace: Path, tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**_env(workspace), "TMPDIR": str(scratch)}
    added = run_astro(["memory", "add", "dust-map", "-t", "preference", "-d", "Use SFD dust map", "E(B-V)."], env)
    assert added.returncode == 0, added.stderr
    no_editor = run_astro(["memory", "edit", "dust-map"], env)
    assert no_editor.returncode == 2 and "Set $EDITOR" in no_editor.stderr
    assert list(scratch.iterdir()) == []  # the memory's text is not copied into /tmp for nothing
    broken = _editor(tmp_path, "text = text + 'half a thought'\npath.write_text(text)\nsys.exit(3)")
    failed = run_astro(["memory", "edit", "dust-map"], {**env, "EDITOR": broken})
    assert failed.returncode == 2 and "The editor exited with status 3" in failed.stderr
    [kept] = list(scratch.iterdir())
    assert f"Your text is kept in {kept}" in " ".join(failed.stderr.split()) and "half a thought" in kept.read_text()
