"""Issue 32: how small local models name paths, read as they mean them and never outside the
workspace: "/" or "workspace" for its root, "/README.md" for a file in it, a folder globbed
without a wildcard, and a near miss ("README") answered with the names that exist."""

from __future__ import annotations

from tests.fakeprovider import FakeProvider
from tests.helpers import tool_results


def test_the_workspace_root_and_leading_slashes_mean_the_workspace(cli, fake: FakeProvider, astro_env, workspace):
    (workspace / "README.md").write_text("# transit-fits\n")
    (workspace / "scripts").mkdir()
    (workspace / "scripts" / "fit.py").write_text("import batman\n")
    fake.add({"tool_calls": [
        {"name": "glob_files", "arguments": {"pattern": "*", "path": "workspace"}},
        {"name": "glob_files", "arguments": {"pattern": "*", "path": "/"}},
        {"name": "read_file", "arguments": {"path": "/README.md"}},
        {"name": "glob_files", "arguments": {"pattern": "/*.md"}},
        {"name": "glob_files", "arguments": {"pattern": "scripts"}},
        {"name": "glob_files", "arguments": {"pattern": "README"}},
        {"name": "read_file", "arguments": {"path": "/etc/hostname"}},
    ]}, {"text": "done"})
    result = cli(["run", "look"], env=astro_env)
    assert result.exit_code == 0, result.stdout
    named_root, slash_root, readme, slash_glob, folder, near, outside = tool_results(fake.bodies()[1])
    assert named_root.splitlines() == slash_root.splitlines() == ["README.md", "scripts/"]
    assert "# transit-fits" in readme
    assert slash_glob == "README.md"
    assert folder == "scripts/fit.py"
    assert near == "No path matches 'README'. Did you mean: README.md?"
    assert "outside the workspace" in outside  # a real absolute path elsewhere stays refused


def test_the_workspace_folders_own_name_means_the_workspace(cli, fake: FakeProvider, astro_env, workspace):
    """Recorded in the task set (glob_files path 'project', the workspace's own folder name, which
    the environment message shows): read as the workspace when no such subfolder exists."""
    (workspace / "README.md").write_text("# transit-fits\n")
    name = workspace.name
    fake.add({"tool_calls": [
        {"name": "glob_files", "arguments": {"pattern": "*", "path": name}},
        {"name": "read_file", "arguments": {"path": f"{name}/README.md"}},
        {"name": "read_file", "arguments": {"path": f"{name}/../../etc/hostname"}},
    ]}, {"text": "done"})
    assert cli(["run", "look"], env=astro_env).exit_code == 0
    listing, readme, outside = tool_results(fake.bodies()[1])
    assert listing.splitlines() == ["README.md"] and "# transit-fits" in readme
    assert "does not exist" in outside or "outside the workspace" in outside


def test_a_pattern_that_repeats_its_own_path_is_read_from_the_workspace(cli, fake: FakeProvider, astro_env,
                                                                         workspace):
    """Recorded in the task set: glob_files {"pattern": "scripts/*.py", "path": "scripts"} answered
    `No path matches`, which the model then gave as its answer. A folder that really holds a folder
    of its own name (data/data/) is still searched as asked."""
    (workspace / "scripts").mkdir()
    (workspace / "scripts" / "fit.py").write_text("import batman\n")
    (workspace / "scripts" / "plot.py").write_text("import matplotlib\n")
    (workspace / "data" / "data").mkdir(parents=True)
    (workspace / "data" / "data" / "inner.csv").write_text("a,b\n")
    (workspace / "data" / "outer.csv").write_text("a,b\n")
    fake.add({"tool_calls": [
        {"name": "glob_files", "arguments": {"pattern": "scripts/*.py", "path": "scripts"}},
        {"name": "glob_files", "arguments": {"pattern": "data/*.csv", "path": "data"}},
    ]}, {"text": "done"})
    assert cli(["run", "list the scripts"], env=astro_env).exit_code == 0
    scripts, nested = tool_results(fake.bodies()[1])
    assert scripts.splitlines() == ["scripts/fit.py", "scripts/plot.py"]
    assert nested.splitlines() == ["data/data/inner.csv"]
