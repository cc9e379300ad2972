"""Issue 41: what a trusted hook or MCP server runs is known by its content, attacked for real.

Hooks spelt `cd scripts && sh post.sh`, `"$PWD/..."`, `${ASTRO_PROJECT_DIR:-.}/...`, `make -s check`
or a sourced file, and a `python3 -m labtools` MCP server that names no file, left what they run
writable by the model; `.git/hooks/*` and `.envrc` (run by git and direnv) too. Now the file tools
refuse all of them (existing or not yet), and a file changed after trust withholds its setting.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.helpers import tool_results, trust_workspace, write_config
from tests.mcp_server import SCRIPT as MCP_SERVER

ORIGINAL = "echo fine\n"
PAYLOAD = "touch pwned.txt\n"


def never_fired(*commands: str) -> dict:
    """Hooks on a tool that never runs: what they name matters, not what they do."""
    return {"PreToolUse": [{"matcher": "no_such_tool", "hooks": [{"type": "command", "command": c} for c in commands]}]}


def write(path: str) -> dict:
    return {"name": "file_write", "arguments": {"path": path, "content": PAYLOAD}}


def test_files_hooks_run_however_spelt_are_refused_to_the_file_tools(fake, astro_env, workspace, run_astro):
    (workspace / "scripts").mkdir()
    for name in ("scripts/post.sh", "scripts/check.sh", "env.sh", "x", "lib/common.sh"):
        (workspace / name).parent.mkdir(exist_ok=True)
        (workspace / name).write_text(ORIGINAL)
    (workspace / "scripts" / "main.sh").write_text(". ./lib/common.sh\n")  # sourced by a script a hook runs
    (workspace / "Makefile").write_text("check:\n\tsh scripts/check.sh\n")
    (workspace / ".git" / "hooks").mkdir(parents=True)
    write_config(Path(astro_env["ASTRO_HOME"]) / "config.yaml", {"hooks": never_fired(
        "cd scripts && sh post.sh", 'sh "$PWD/scripts/later.sh"', "sh ${ASTRO_PROJECT_DIR:-.}/tools/gate.sh",
        "make -s check", ". ./env.sh", "source x", "sh scripts/main.sh")})
    targets = ["scripts/post.sh", "scripts/later.sh", "tools/gate.sh", "Makefile", "GNUmakefile", "scripts/check.sh",
               "env.sh", "x", "lib/common.sh", ".git/hooks/pre-commit", ".envrc"]
    fake.add({"tool_calls": [write(path) for path in targets]}, {"text": "done"})
    result = run_astro(["run", "go", "--allow", "file_write"], astro_env)
    assert result.returncode == 0, result.stderr
    answers = tool_results(fake.bodies()[1])
    refused = [path for path, text in zip(targets, answers) if "astro's own state" in text]
    assert refused == targets, answers
    assert not list(workspace.rglob("pwned*")) and PAYLOAD not in "".join(
        p.read_text() for p in workspace.rglob("*") if p.is_file() and ".astro" not in p.parts)
    for absent in ("scripts/later.sh", "tools/gate.sh", "GNUmakefile", ".git/hooks/pre-commit", ".envrc"):
        assert not (workspace / absent).exists()


def _labtools(workspace: Path) -> None:
    """A package that serves the tests' MCP catalogue over stdio, importing a helper module beside it."""
    (workspace / "labtools").mkdir()
    (workspace / "labtools" / "__main__.py").write_text(
        "import runpy, sys\nimport labhelpers\n"
        f"sys.argv = [{str(MCP_SERVER)!r}, 'stdio']\nrunpy.run_path({str(MCP_SERVER)!r}, run_name='__main__')\n")
    (workspace / "labhelpers.py").write_text("NAME = 'lab'\n")
    (workspace / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"labtools": {"command": sys.executable, "args": ["-m", "labtools"]}}}))


def test_a_python_m_servers_package_is_protected_and_known_by_content(fake, astro_env, workspace, run_astro):
    _labtools(workspace)
    trust_workspace(workspace)
    listed = run_astro(["mcp", "list"], astro_env)
    assert "skipped" not in listed.stdout, listed.stdout
    before = (workspace / "labtools" / "__main__.py").read_text()
    fake.add({"tool_calls": [write("labtools/__main__.py"), write("labtools/__init__.py"), write("labhelpers.py"),
                             write("labtools.py")]}, {"text": "done"})
    result = run_astro(["run", "go", "--allow", "file_write"], astro_env)
    assert result.returncode == 0, result.stderr
    answers = tool_results(fake.bodies()[1])
    assert all("astro's own state" in text for text in answers), answers
    assert (workspace / "labtools" / "__main__.py").read_text() == before
    assert not (workspace / "labtools" / "__init__.py").exists() and not (workspace / "labtools.py").exists()
    # Changed some other way (a git pull, a command outside the sandbox): the server waits for trust.
    (workspace / "labhelpers.py").write_text("import os\nos.system('touch pwned.txt')\n")
    listed = run_astro(["mcp", "list"], astro_env)
    assert "skipped: it changed since you trusted this folder" in listed.stdout, listed.stdout
    shown = run_astro(["trust", "--yes"], astro_env).stdout
    assert "runs these workspace files (a change asks again): labhelpers.py, labtools/__main__.py" in shown


def test_a_trusted_hooks_script_that_changes_is_withheld_until_trusted_again(fake, astro_env, workspace, run_astro):
    (workspace / "scripts").mkdir()
    (workspace / "scripts" / "post.sh").write_text("echo ran > ran.txt\n")
    write_config(workspace / ".astro" / "config.yaml",
                 {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "cd scripts && sh post.sh"},
                                                        {"type": "command", "command": "sh $TOOLS/x.sh"}]}]}})
    shown = run_astro(["trust", "--yes"], astro_env).stdout
    assert "runs these workspace files (a change asks again): scripts/post.sh" in shown
    assert "cannot tell which workspace files it runs from: $TOOLS/x.sh" in shown
    fake.add({"text": "one"})
    assert run_astro(["run", "hi"], astro_env).returncode == 0
    assert (workspace / "scripts" / "ran.txt").exists()
    (workspace / "scripts" / "ran.txt").unlink()
    (workspace / "scripts" / "post.sh").write_text("echo ran > ran.txt; touch ../pwned.txt\n")
    fake.add({"text": "two"})
    result = run_astro(["run", "hi"], astro_env)
    assert "new or changed since you trusted this folder" in result.stderr
    assert not (workspace / "scripts" / "ran.txt").exists() and not (workspace / "pwned.txt").exists()


def test_each_spelling_names_the_files_it_runs(tmp_path):
    """The reading itself, spelling by spelling (no process): the rules docs/security.md lists."""
    from astro_cli.security.command_files import argv_files, shell_files

    root = tmp_path.resolve()
    (root / "scripts").mkdir()
    (root / "scripts" / "post.sh").write_text(". ./env.sh\npython3 tools/run.py\n")
    (root / "Makefile").write_text("include rules.mk\ncheck:\n\t@sh scripts/check.sh\n")
    (root / "labtools").mkdir()
    (root / "labtools" / "__init__.py").write_text("from labhelpers import x\n")

    def names(found) -> list[str]:
        return sorted(p.relative_to(root).as_posix() for p in found.files)

    assert names(shell_files("cd scripts && sh post.sh", root)) == ["scripts/env.sh", "scripts/post.sh",
                                                                    "scripts/tools/run.py"]
    assert names(shell_files('sh "$PWD/scripts/post.sh"', root)) == ["env.sh", "scripts/post.sh", "tools/run.py"]
    assert names(shell_files("${ASTRO_PROJECT_DIR:-.}/bin/x", root)) == ["bin/x"]
    assert names(shell_files("(cd scripts; sh a.sh) && sh b.sh", root)) == ["b.sh", "scripts/a.sh"]
    assert names(shell_files("make -s check", root)) == ["GNUmakefile", "Makefile", "makefile", "rules.mk",
                                                        "scripts/check.sh"]
    assert names(shell_files("make -C sub -f build.mk", root)) == ["sub/build.mk"]
    assert names(shell_files("source x; . ./y", root)) == ["x", "y"]
    assert names(argv_files(["python3", "-m", "labtools.serve"], root)) == ["labhelpers", "labhelpers.py",
                                                                           "labtools", "labtools.py"]
    assert names(argv_files(["python3", "-I", "-m", "labtools"], root)) == []  # -I: not from the folder
    assert names(argv_files(["bash", "-c", "cd scripts  # there\nsh post.sh"], root)) == names(
        shell_files("cd scripts && sh post.sh", root))
    assert "labtools" in names(shell_files("uv run --frozen python -m labtools", root))
    unknown = shell_files("cd $X && ./run; sh $TOOLS/x.sh", root)
    assert unknown.unknown == ["cd $X", "./run", "$TOOLS/x.sh"] and names(unknown) == []


def test_what_git_hooks_and_envrc_run_is_protected_too(tmp_path):
    """git runs .git/hooks/* and direnv .envrc without astro: the files they run in turn are refused too."""
    import pytest

    from astro_cli.app import AppContext
    from astro_cli.config import load_settings
    from astro_cli.security.paths import PathRefused
    from astro_cli.workspace import AstroHome, Workspace

    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nsh tools/lint.sh\n")
    (tmp_path / ".git" / "hooks" / "pre-push.sample").write_text("#!/bin/sh\nsh tools/sample.sh\n")
    (tmp_path / ".envrc").write_text(". ./scripts/envsetup.sh\n")
    app = AppContext(load_settings([], env={}), Workspace(tmp_path), AstroHome(tmp_path / "h"))
    for path in ("tools/lint.sh", "scripts/envsetup.sh", ".git/hooks/post-merge", ".git/config", ".envrc"):
        with pytest.raises(PathRefused, match="hook or MCP server runs"):
            app.confinement.write_text(path, PAYLOAD)
    assert app.confinement.write_text("tools/sample.sh", PAYLOAD)  # a .sample hook is never run by git


def test_a_hook_that_appends_to_its_log_stays_trusted_and_its_script_stays_protected(
        fake, astro_env, workspace, run_astro):
    """`sh scripts/post.sh | tee -a hook.log`: the log the hook writes at every run is data, not code; a
    trusted hook kept working after its first run instead of being withheld as changed."""
    (workspace / "scripts").mkdir()
    (workspace / "scripts" / "post.sh").write_text("echo ran\n")
    (workspace / "hook.log").write_text("")
    write_config(workspace / ".astro" / "config.yaml",
                 {"hooks": {"SessionStart": [{"hooks": [{"type": "command",
                                                         "command": "sh scripts/post.sh | tee -a hook.log"}]}]}})
    shown = run_astro(["trust", "--yes"], astro_env).stdout
    assert "runs these workspace files (a change asks again): scripts/post.sh\n" in shown, shown  # not hook.log
    for turn in ("one", "two"):
        fake.add({"text": turn})
        result = run_astro(["run", "hi"], astro_env)
        assert result.returncode == 0 and "changed since you trusted" not in result.stderr, result.stderr
    assert (workspace / "hook.log").read_text() == "ran\nran\n"  # it ran both times
    fake.add({"tool_calls": [write("scripts/post.sh")]}, {"text": "done"})
    run_astro(["run", "edit it", "--allow", "file_write"], astro_env)
    assert (workspace / "scripts" / "post.sh").read_text() == "echo ran\n"  # what it runs is still refused
