"""Project memory over a day of work: the block chosen per question travels with the question (the
system prompt stays byte-identical), versions are never shown, forgetting the last memory empties the
index, and astro's own repository carries no example memories into a researcher's sessions."""

from __future__ import annotations

import shutil
from pathlib import Path

from astro_cli.memory.format import read_memory
from astro_cli.memory.index import render_index
from astro_cli.memory.reminder import OPEN
from astro_cli.memory.service import MemoryService
from tests.compact_support import SUMMARY_TEXT, ScriptedModel, open_test_session, text
from tests.memory.test_memory_store import Clock
from tests.paths import REPO_ROOT

REPO = REPO_ROOT


def _save(workspace: Path, slug: str, kind: str, description: str, body: str) -> None:
    MemoryService(workspace / "memory").store.save(slug, kind, description, body)


def _blocks(messages: list[dict]) -> list[str]:
    return [text(m) for m in messages if m["role"] == "user" and text(m).startswith(OPEN)]


def test_the_system_prompt_stays_byte_identical_when_the_topic_changes(monkeypatch, workspace, fake):
    _save(workspace, "planck-2018-cosmology", "preference", "Use Planck 2018 cosmology for distances",
          "astropy.cosmology.Planck18 for luminosity distances.")
    _save(workspace, "sfd-dust-map", "reference", "Galactic extinction from the SFD98 dust map",
          "Schlegel, Finkbeiner & Davis 1998 reddening, recalibrated by Schlafly & Finkbeiner 2011.")
    fake.add({"text": "Planck18."}, {"text": "SFD98 with the 2011 recalibration."}, {"text": "E(B-V) from SFD."})
    app, session, _ = open_test_session(monkeypatch, workspace, fake)
    session.run_turn("Which cosmology for the luminosity distances?")
    session.run_turn("Which dust map for Galactic extinction?")
    session.run_turn("And the extinction map for the reddening correction?")
    stored = [(m.kind, m.message) for m in app.sessions.messages(session.session_id)]
    app.close()
    bodies = fake.bodies()
    assert len({body["messages"][0]["content"] for body in bodies}) == 1  # one system prompt for all turns
    assert "planck-2018-cosmology" not in bodies[0]["messages"][0]["content"]
    first, second = _blocks(bodies[1]["messages"])
    assert first.index("planck-2018-cosmology") < first.index("sfd-dust-map")
    assert second.index("sfd-dust-map") < second.index("planck-2018-cosmology")
    # Each block is stored right after the question it was chosen for, so later requests resend it as it was.
    kinds = [kind for kind, _ in stored]
    assert kinds == ["message", "memory", "message", "message", "memory", "message", "message", "message"]
    assert stored[1][1]["content"] == first and stored[4][1]["content"] == second
    # The third question selects what the second did: no new block, the history only grows by the question.
    assert _blocks(bodies[2]["messages"]) == [first, second]
    assert bodies[2]["messages"][: len(bodies[1]["messages"]) - 1] == bodies[1]["messages"][:-1]


def test_a_compaction_hands_the_latest_memory_block_back(monkeypatch, workspace, fake):
    from astro_cli.compact.engine import find_engine

    _save(workspace, "fits-headers", "preference", "Keep WCS keywords in FITS headers", "Never drop CRPIX.")
    model = ScriptedModel([{"text": f"Answer {n}."} for n in range(6)]).attach(fake)
    app, session, _ = open_test_session(monkeypatch, workspace, fake)
    for n in range(4):
        session.run_turn(f"FITS header question {n}")
    assert find_engine(session).compact_now(session).changed
    session.run_turn("one more FITS header question")
    app.close()
    last = model.seen[-1]["messages"]
    assert SUMMARY_TEXT in text(last[1])
    restore = next(m for m in last if text(m).startswith("[Context restored after compaction]"))
    assert "[preference] fits-headers: Keep WCS keywords in FITS headers" in text(restore)


def test_an_archived_version_is_never_selected_instead_of_the_memory(tmp_path):
    clock = Clock()
    service = MemoryService(tmp_path / "memory", clock=clock)
    service.store.save("dust-map", "reference", "Galactic dust map", "SFD98 reddening (Schlegel et al. 1998).")
    clock.advance(days=2)
    service.store.save("dust-map", "reference", "Galactic dust map", "Planck GNILC dust, 2016.")
    assert (tmp_path / "memory" / "dust-map_v1.md").exists()
    chosen = [s.memory.slug for s in service.select("SFD98 reddening Schlegel")]
    assert chosen[0] == "dust-map" and "dust-map_v1" not in chosen
    block = service.context_block("SFD98 reddening Schlegel")
    assert "Planck GNILC dust" in block and "SFD98" not in block


def test_forgetting_the_last_memory_empties_the_index(cli, workspace):
    assert cli(["memory", "add", "only-one", "--type", "project", "--description", "The only memory", "text"]) \
        .exit_code == 0
    index = workspace / "memory" / "MEMORY.md"
    assert "only-one" in index.read_text()
    result = cli(["memory", "forget", "only-one"])
    assert result.exit_code == 0, result.stderr
    assert "only-one" not in index.read_text() and "(No memories yet.)" in index.read_text()


def test_astros_own_repository_carries_no_memories_and_documents_the_format(cli, workspace, tmp_path):
    shutil.copytree(REPO / "memory", workspace / "memory")  # what `make run` in the checkout would load
    listed = cli(["memory", "list", "--json"])
    assert listed.exit_code == 0 and listed.stdout.strip() == "[]"
    assert listed.stderr == ""  # the README is not a (broken) memory
    service = MemoryService(workspace / "memory")
    assert service.context_block("Planck 2018 cosmology for the DES Y3 lensing masses") is None
    assert (REPO / "memory" / "MEMORY.md").read_text() == render_index([])
    assert sorted(p.name for p in (REPO / "memory").iterdir()) == ["MEMORY.md", "README.md"]
    examples = sorted((REPO / "docs" / "examples" / "memory").glob("*.md"))
    memories = [read_memory(path) for path in examples if path.name != "MEMORY.md"]
    assert sorted(m.type for m in memories) == ["feedback", "preference", "project", "reference"]
    assert (REPO / "docs" / "examples" / "memory" / "MEMORY.md").read_text() == render_index(memories)
