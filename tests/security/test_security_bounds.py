"""Bounded work, attacked for real: a YAML alias bomb and a hook's detached child cannot hold `astro run`.

The real `astro` process runs against the scripted model on 127.0.0.1 in a temporary workspace; the
tests assert the outcome (the run ended with one sentence, the child process is gone), not a time.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from astro_cli.safe_yaml import AliasBomb, load_yaml
from tests.helpers import trust_workspace, wait_for, write_config


def alias_bomb(levels: int = 9) -> str:
    """9 lists of 9 aliases of the list before: 9^9 values once expanded, in about 370 bytes."""
    names = "abcdefghi"[:levels]
    lines = [f"{names[0]}: &{names[0]} [x,x,x,x,x,x,x,x,x]"]
    lines += [f"{name}: &{name} [{','.join(['*' + prev] * 9)}]" for prev, name in zip(names, names[1:])]
    return "hooks:\n" + "\n".join("  " + line for line in lines) + "\n"


def test_yaml_alias_bomb_under_hooks_is_refused_with_one_sentence(fake, astro_env, workspace, run_astro):
    text = alias_bomb()
    assert len(text.encode()) < 420
    (workspace / ".astro").mkdir()
    (workspace / ".astro" / "config.yaml").write_text(text)
    fake.add({"text": "never asked"})
    result = run_astro(["run", "hello"], astro_env, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "alias" in result.stderr and "Traceback" not in result.stderr
    assert fake.bodies() == []  # refused before any model call


def test_alias_bomb_in_skill_frontmatter_skips_the_skill(fake, astro_env, workspace, run_astro):
    folder = workspace / "skills" / "boom"
    folder.mkdir(parents=True)
    bomb = alias_bomb().replace("hooks:\n", "name: boom\ndescription: d\nx:\n")
    (folder / "SKILL.md").write_text(f"---\n{bomb}---\nbody\n")
    result = run_astro(["skills", "list", "--all"], astro_env, timeout=120)
    assert "boom" in result.stdout + result.stderr and "alias" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_loader_keeps_ordinary_aliases_and_refuses_recursive_ones():
    assert load_yaml("base: &b {timeout: 3}\nother: *b\n") == {"base": {"timeout": 3}, "other": {"timeout": 3}}
    with pytest.raises(AliasBomb):
        load_yaml("a: &x [1, *x]\n")


def processes_running(marker: str) -> list[int]:
    """Pids whose command line holds `marker` (any pid namespace's process is seen from here)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("sandbox", ["1", "0"])
def test_a_hooks_setsid_child_ends_at_the_hook_timeout(fake, astro_env, workspace, run_astro, sandbox):
    marker = f"9{os.getpid() % 1000:03d}{sandbox}17"  # `sleep <marker>`: unique on this machine
    command = f"setsid sh -c 'exec sleep {marker}' & sleep {marker}"
    write_config(workspace / ".astro" / "config.yaml",
                 {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": command, "timeout": 2}]}]}})
    trust_workspace(workspace)
    fake.add({"text": "the answer"})
    env = dict(astro_env, ASTRO_SANDBOX_ENABLED=sandbox)
    try:
        result = run_astro(["run", "hello"], env, timeout=120)
        assert result.returncode == 0, result.stderr
        assert "the answer" in result.stdout
        assert "did not finish within 2 s" in result.stderr
        assert wait_for(lambda: not processes_running(f"sleep {marker}"), timeout=30)
    finally:
        for pid in processes_running(f"sleep {marker}"):
            os.kill(pid, 9)
