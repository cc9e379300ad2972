"""Memory files: format round trip, versions and marks, the MEMORY.md index, broken files, forgetting."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from astro_cli.memory.format import Memory, MemoryFileError, MemoryInputError, parse_memory, read_memory
from astro_cli.memory.index import MAX_BYTES, MAX_LINES, render_index
from astro_cli.memory.store import MemoryStore

T0 = datetime(2025, 3, 1, 12, 0, 0, tzinfo=timezone.utc)


class Clock:
    """A controlled clock: tests move time by hand."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path: Path, clock: Clock) -> MemoryStore:
    warnings: list[str] = []
    made = MemoryStore(tmp_path / "memory", clock, warnings.append)
    made.warnings = warnings  # type: ignore[attr-defined]
    return made


def test_round_trip_keeps_every_field_and_the_body(tmp_path: Path) -> None:
    memory = Memory(
        slug="planck-2018-cosmology",
        type="preference",
        description="Use Planck 2018 cosmology: H0 = 67.4 km/s/Mpc, 'Om0' = 0.315 # not a comment",
        body="Use `astropy.cosmology.Planck18`.\n\n- $H_0 = 67.4$\n- --- not a fence ---\n",
        created=T0,
        updated=T0 + timedelta(days=2),
        superseded_by="planck-2018-plus-bao",
    )
    path = tmp_path / "planck-2018-cosmology.md"
    path.write_text(memory.to_text(), encoding="utf-8")
    back = read_memory(path)
    assert (back.slug, back.type, back.description) == (memory.slug, memory.type, memory.description)
    assert (back.created, back.updated, back.superseded_by) == (memory.created, memory.updated, memory.superseded_by)
    assert back.body == memory.body.rstrip("\n")
    assert back.to_text() == memory.to_text()
    assert path.read_text().startswith("---\nslug: planck-2018-cosmology\n")


def test_hand_written_file_without_dates_uses_the_file_time(tmp_path: Path) -> None:
    path = tmp_path / "fits-headers.md"
    path.write_text("---\ndescription: Keep WCS keywords\ntype: Project\n---\nAlways keep the WCS keywords.\n")
    memory = read_memory(path)
    assert memory.type == "project" and memory.slug == "fits-headers"
    assert abs((memory.updated - datetime.now(timezone.utc)).total_seconds()) < 60
    assert memory.created == memory.updated


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no frontmatter at all\n", "does not start with a '---' frontmatter block"),
        ("---\ntype: preference\ndescription: x\n", "not closed"),
        ("---\ntype: [preference\ndescription: x\n---\nbody\n", "does not parse at line 3"),
        ("---\n- a list\n---\nbody\n", "not a set of 'key: value' fields"),
        ("---\ntype: opinion\ndescription: x\n---\nbody\n", "type is 'opinion'"),
        ("---\ntype: feedback\n---\nbody\n", "no 'description'"),
        ("---\ntype: feedback\ndescription: x\nupdated: last tuesday\n---\nbody\n", "'updated' is not a date"),
    ],
)
def test_broken_frontmatter_is_a_clear_error(tmp_path: Path, text: str, reason: str) -> None:
    with pytest.raises(MemoryFileError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        parse_memory(text, tmp_path / "x.md", 0.0)


def test_broken_files_are_skipped_with_a_warning(store: MemoryStore) -> None:
    store.save("good-one", "project", "A good memory", "Body.")
    (store.root / "broken.md").write_text("---\ntype: [oops\n---\n")
    (store.root / "binary.md").write_bytes(b"\xff\xfe\x00garbage")
    loaded = store.load_all()
    assert [m.slug for m in loaded] == ["good-one"]
    warnings = store.warnings  # type: ignore[attr-defined]
    assert any("memory/broken.md is skipped" in w and "does not parse" in w for w in warnings)
    assert any("memory/binary.md is skipped" in w for w in warnings)


def test_save_creates_then_updates_with_versions(store: MemoryStore, clock: Clock) -> None:
    first = store.save("planck-2018-cosmology", "preference", "Use Planck 2018", "H0 = 67.4")
    assert first.action == "created"
    assert first.message(store.root.parent) == "Created memory 'planck-2018-cosmology' (memory/planck-2018-cosmology.md)."
    clock.advance(days=3)
    second = store.save("planck-2018-cosmology", "preference", "Use Planck 2018", "H0 = 67.36 (TT,TE,EE+lowE+lensing)")
    assert second.action == "updated"
    assert second.archived == store.root / "planck-2018-cosmology_v1.md"
    assert "previous text is kept as memory/planck-2018-cosmology_v1.md" in second.message(store.root.parent)
    clock.advance(days=1)
    store.save("planck-2018-cosmology", "preference", "Use Planck 2018 + BAO", "H0 = 67.66")

    current = read_memory(store.root / "planck-2018-cosmology.md")
    v1 = read_memory(store.root / "planck-2018-cosmology_v1.md")
    v2 = read_memory(store.root / "planck-2018-cosmology_v2.md")
    assert current.body == "H0 = 67.66" and current.created == T0 and current.updated == T0 + timedelta(days=4)
    assert current.mark == ""
    assert (v1.body, v1.updated, v1.mark) == ("H0 = 67.4", T0, "[updated]")
    assert (v2.body, v2.mark) == ("H0 = 67.36 (TT,TE,EE+lowE+lensing)", "[updated]")


def test_saving_the_same_content_is_unchanged_and_makes_no_version(store: MemoryStore, clock: Clock) -> None:
    store.save("units", "preference", "Use SI units in tables", "SI, with cgs in brackets.")
    clock.advance(days=1)
    again = store.save("units", "preference", "Use SI units in tables", "SI, with cgs in brackets.\n")
    assert again.action == "unchanged"
    assert "unchanged" in again.message(store.root.parent)
    assert not (store.root / "units_v1.md").exists()


def test_replacing_by_another_slug_marks_the_old_one(store: MemoryStore) -> None:
    store.save("wmap9-cosmology", "preference", "Use WMAP9 cosmology", "H0 = 69.3")
    result = store.save("planck-2018-cosmology", "preference", "Use Planck 2018", "H0 = 67.4",
                        replaces="wmap9-cosmology")
    old = read_memory(store.root / "wmap9-cosmology.md")
    assert old.mark == "[updated -> planck-2018-cosmology]" and old.body == "H0 = 69.3"
    assert "'wmap9-cosmology' is now marked [updated -> planck-2018-cosmology]" in result.message(store.root.parent)
    index = (store.root / "MEMORY.md").read_text()
    assert "- [preference] wmap9-cosmology: Use WMAP9 cosmology [updated -> planck-2018-cosmology]" in index
    with pytest.raises(MemoryInputError, match="no memory 'nothing-here' to replace"):
        store.save("x", "project", "d", "b", replaces="nothing-here")


@pytest.mark.parametrize("slug", ["../escape", "Upper", "under_score", "a--b", "-lead", "", "x" * 65, "a/b", None])
def test_invalid_slugs_are_refused_and_nothing_is_written(store: MemoryStore, slug: object) -> None:
    with pytest.raises(MemoryInputError, match="is not valid"):
        store.save(slug, "project", "desc", "body")  # type: ignore[arg-type]
    assert not store.root.exists() or list(store.root.iterdir()) == []


@pytest.mark.parametrize(
    ("kind", "description", "body", "reason"),
    [
        ("opinion", "d", "b", "not one of preference, feedback, project, reference"),
        ("project", "  ", "b", "description is empty"),
        ("project", "x" * 201, "b", "at most 200"),
        ("project", "d", " \n ", "content is empty"),
    ],
)
def test_invalid_fields_are_refused(store: MemoryStore, kind: str, description: str, body: str, reason: str) -> None:
    with pytest.raises(MemoryInputError, match=reason):
        store.save("fine-slug", kind, description, body)


def test_multiline_description_becomes_one_line(store: MemoryStore) -> None:
    result = store.save("x", "project", "first line\nsecond   line", "body")
    assert read_memory(result.memory.path).description == "first line second line"


def test_updating_a_hand_broken_file_keeps_its_text_in_the_archive(store: MemoryStore) -> None:
    store.root.mkdir(parents=True)
    (store.root / "notes-style.md").write_text("I wrote this by hand without frontmatter\n")
    result = store.save("notes-style", "feedback", "Short notes", "Keep notes short.")
    assert result.action == "updated"
    kept = store.root / "archive" / "notes-style.broken.md"
    assert kept.read_text() == "I wrote this by hand without frontmatter\n"
    assert read_memory(store.root / "notes-style.md").body == "Keep notes short."


def test_forget_moves_the_memory_and_its_versions_to_the_archive(store: MemoryStore) -> None:
    store.save("old-idea", "project", "An idea", "v0")
    store.save("old-idea", "project", "An idea", "v1")
    store.save("keep-me", "project", "Stays", "body")
    moved = store.forget("old-idea")
    assert sorted(p.name for p in moved) == ["old-idea.md", "old-idea_v1.md"]
    assert all(p.parent == store.root / "archive" and p.exists() for p in moved)
    assert sorted(p.name for p in store.root.glob("*.md")) == ["MEMORY.md", "keep-me.md"]
    assert "old-idea" not in (store.root / "MEMORY.md").read_text()
    # Forgetting again after re-creating keeps both archived copies.
    store.save("old-idea", "project", "An idea", "v2")
    again = store.forget("old-idea")
    assert again[0].name.startswith("old-idea.") and again[0].read_text().endswith("v2\n")
    with pytest.raises(MemoryInputError, match="no memory 'ghost'"):
        store.forget("ghost")


def test_writes_are_atomic_and_leave_no_temporary_files(store: MemoryStore) -> None:
    for n in range(5):
        store.save("busy", "project", "Busy memory", f"revision {n}")
    leftovers = [p.name for p in store.root.iterdir() if p.name.endswith(".tmp") or p.name.startswith(".")]
    assert leftovers == [".lock"]  # the writers' lock file, empty and kept


def test_concurrent_updates_lose_no_text(store: MemoryStore) -> None:
    """Agents saving the same memory at once: every text survives, as the memory or as a version."""
    import threading

    texts = [f"H0 estimate number {n}" for n in range(12)]
    barrier = threading.Barrier(len(texts))

    def save(text: str) -> None:
        barrier.wait()
        store.save("h0-estimate", "project", "Current H0 estimate", text)

    threads = [threading.Thread(target=save, args=(text,)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    bodies = sorted(read_memory(p).body for p in store.root.glob("h0-estimate*.md"))
    assert bodies == sorted(texts)
    versions = sorted(int(p.stem.rsplit("_v", 1)[1]) for p in store.root.glob("h0-estimate_v*.md"))
    assert versions == list(range(1, len(texts)))


def test_index_lists_memories_newest_first_without_versions(store: MemoryStore, clock: Clock) -> None:
    store.save("first", "reference", "Planck 2018 VI paper (2020A&A...641A...6P)", "bibcode")
    clock.advance(hours=1)
    store.save("second", "feedback", "Say when a source is a preprint", "Mark arXiv-only papers.")
    clock.advance(hours=1)
    store.save("first", "reference", "Planck 2018 VI paper", "bibcode 2020A&A...641A...6P")
    index = (store.root / "MEMORY.md").read_text()
    entries = [line for line in index.splitlines() if line.startswith("- [")]
    assert entries == [
        "- [reference] first: Planck 2018 VI paper",
        "- [feedback] second: Say when a source is a preprint",
    ]
    assert "first_v1" not in index


def _memories(count: int, description_chars: int = 20) -> list[Memory]:
    return [
        Memory(f"memory-{n:04d}", "project", f"note {n:04d} " + "x" * description_chars, "body",
               created=T0, updated=T0 + timedelta(minutes=n))
        for n in range(count)
    ]


def test_index_is_held_to_200_lines_the_oldest_leaving_first() -> None:
    text = render_index(_memories(450))
    lines = text.splitlines()
    assert len(lines) <= MAX_LINES
    entries = [line for line in lines if line.startswith("- [")]
    assert entries[0].startswith("- [project] memory-0449:")  # newest first
    kept = {int(line.split()[2][7:11]) for line in entries}
    assert kept == set(range(450 - len(entries), 450))  # exactly the newest ones
    assert f"({450 - len(entries)} older memories are left out of this index" in text
    assert len(render_index(_memories(150)).splitlines()) < MAX_LINES
    assert "left out" not in render_index(_memories(150))


def test_index_is_held_to_25_kb() -> None:
    text = render_index(_memories(300, description_chars=190))
    assert len(text.encode()) <= MAX_BYTES
    entries = [line for line in text.splitlines() if line.startswith("- [")]
    assert len(entries) < 150
    assert f"({300 - len(entries)} older memories are left out" in text
    assert entries[0].startswith("- [project] memory-0299:")
