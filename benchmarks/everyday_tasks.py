"""Issue 48's everyday task set (benchmarks/everyday_tasks.json) as local_model_tasks.Task objects:
the tasks are data, their checks a few declared kinds, so a task is added without code and the
development / held-out split is visible in one file. Not run by any test: bench_local_model.py
runs tasks; this module only supplies them (and the files the workspace needs besides the template).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from benchmarks.local_model_tasks import Run, Task

DATA = Path(__file__).resolve().parent / "everyday_tasks.json"
SPLITS = ("development", "held_out", "held_out_51", "held_out_52", "held_out_53", "held_out_54")
CHECKS = ("answer_all", "answer_any", "answer_none", "answer_regex", "answer_none_regex", "tools_all", "tools_any",
          "tools_none", "file_contains", "task_contains")
FIELDS = {"name", "split", "kind", "prompt", "rule", *CHECKS}


def load(path: Path = DATA) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def tasks(split: str | None = None, path: Path = DATA) -> list[Task]:
    """The tasks of one half (`development`, `held_out`), or all of them."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)} (got {split!r})")
    return [Task(t["name"], t["prompt"], t["rule"], checker(t)) for t in load(path)["tasks"]
            if split is None or t["split"] == split]


def add_workspace_files(folder: Path, path: Path = DATA) -> None:
    """The files these tasks read, written into local_model_tasks.make_template's workspace."""
    for relative, text in load(path)["workspace"].items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def checker(task: dict[str, Any]) -> Callable[[Run], bool]:
    """The task's checks, all of which must hold."""
    unknown = set(task) - FIELDS
    if unknown:
        raise ValueError(f"task {task.get('name')!r} has unknown fields: {', '.join(sorted(unknown))}")

    def check(run: Run) -> bool:
        answer = run.answer.lower()
        said = [w.lower() in answer for w in task.get("answer_all", [])]
        if not all(said):
            return False
        if task.get("answer_any") and not any(w.lower() in answer for w in task["answer_any"]):
            return False
        if any(w.lower() in answer for w in task.get("answer_none", [])):
            return False
        if task.get("answer_regex") and not re.search(task["answer_regex"], run.answer):
            return False
        if task.get("answer_none_regex") and re.search(task["answer_none_regex"], run.answer):
            return False
        ran = set(run.tools_ok)
        if not set(task.get("tools_all", [])) <= ran or ran & set(task.get("tools_none", [])):
            return False
        if task.get("tools_any") and not ran & set(task["tools_any"]):
            return False
        if task.get("task_contains") and not any(w.lower() in t.lower() for t in recorded_tasks(run.workspace)
                                                 for w in task["task_contains"]):
            return False
        if "file_contains" in task:
            pattern, text = task["file_contains"]
            return any(text.lower() in p.read_text(errors="replace").lower() for p in run.workspace.glob(pattern))
        return True

    return check


def recorded_tasks(workspace: Path) -> list[str]:
    """The text of every task todo_write stored in the workspace's database (what `astro` shows as the
    plan), so a task check judges the tool's effect, not the answer's claim that a task was added."""
    database = workspace / ".astro" / "astro.db"
    if not database.is_file():
        return []
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as connection:
        if not connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'agent_tasks'").fetchone():
            return []
        return [str(row[0]) for row in connection.execute("SELECT content FROM agent_tasks")]
