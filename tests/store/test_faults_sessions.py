"""Two processes, one session (issue 13): one writer at a time, --fork for a copy, numbers that never clash."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
from pathlib import Path

from tests.fakeprovider import FakeProvider
from tests.helpers import last_json, wait_for


def _astro(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "astro_cli", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_a_second_process_on_a_busy_session_gets_one_sentence_and_fork_works(
        fake: FakeProvider, astro_env, workspace, run_astro):
    """The holder and the refused second process are cold `astro run`s of their own (two terminals);
    the first run and the fork, which only make and use the sessions, go through run_astro."""
    fake.add({"text": "First answer."})
    first = run_astro(["run", "--output-format", "json", "What is the Hubble constant?"], astro_env)
    session_id = last_json(first.stdout)["session_id"]

    fake.add({"text": "A long answer that is still being written", "hang": True})
    holder = subprocess.Popen([sys.executable, "-m", "astro_cli", "run", "--continue", "And its error bar?"],
                              env=astro_env, cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(fake.hanging.is_set, timeout=60)
        second = _astro(["run", "--continue", "Something else"], astro_env, workspace)
        assert second.returncode == 2
        assert "Traceback" not in second.stderr and "IntegrityError" not in second.stderr
        sentence = " ".join(second.stderr.split())
        assert f"Session {session_id} is in use by another astro process (pid {holder.pid}" in sentence
        assert "--fork" in sentence

        fake.add({"text": "Answer in the copy."})
        forked = run_astro(["run", "--continue", "--fork", "--output-format", "json", "Something else"], astro_env)
        assert forked.returncode == 0, forked.stderr
        fork_id = last_json(forked.stdout)["session_id"]
        assert fork_id != session_id
        # The copy starts with the original conversation, then goes its own way.
        sent = fake.bodies()[-1]["messages"]
        assert {"role": "user", "content": "What is the Hubble constant?"} in sent
        assert sent[-2] == {"role": "user", "content": "Something else"}
    finally:
        fake.release.set()
        holder.communicate(timeout=180)
    listing = json.loads(_astro(["sessions", "list", "--json"], astro_env, workspace).stdout)
    assert {row["id"] for row in listing} == {session_id, fork_id}
    original = json.loads(_astro(["sessions", "export", session_id, "--format", "json"], astro_env,
                                 workspace).stdout)["messages"]
    assert "Something else" not in json.dumps(original)  # the two conversations did not interleave


def test_fork_with_nothing_to_fork_is_one_sentence(cli, fake, astro_env):
    result = cli(["run", "--fork", "Hello"], env=astro_env)
    assert result.exit_code == 2
    assert "Nothing to fork: no earlier session" in " ".join(result.stderr.split())


def _append_many(db_path: str, session_id: str, count: int) -> None:
    from astro_cli.store.db import Database
    from astro_cli.store.sessions import SessionStore

    store = SessionStore(Database(db_path))
    for n in range(count):
        store.append(session_id, {"role": "user", "content": f"{n}"})


def test_message_numbers_never_clash_between_processes(tmp_path: Path):
    from astro_cli.store.db import Database
    from astro_cli.store.sessions import SessionStore

    db_path = str(tmp_path / "astro.db")
    store = SessionStore(Database(db_path))
    session_id = store.create(str(tmp_path), "m")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_append_many, args=(db_path, session_id, 400)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert [worker.exitcode for worker in workers] == [0, 0, 0, 0]
    assert [m.seq for m in store.messages(session_id)] == list(range(1, 1601))
