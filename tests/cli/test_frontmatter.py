"""One frontmatter parser for skills, memories, agent definitions and notes (issue 16).

Before, the three parsers disagreed: skills accepted YAML's `...` as the closing fence and memory did
not; agents (a regex) accepted trailing spaces on the fences and memory did not; an empty block was
a mapping for skills and an error for memory and agents. Each case below is checked through every
file kind, so they cannot drift apart again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from astro_cli.delegation.agents import AgentDefinitionError, parse_agent
from astro_cli.frontmatter import FrontmatterError, parse_frontmatter
from astro_cli.memory.format import MemoryFileError, parse_memory
from astro_cli.research.library.notes import read_note
from astro_cli.skills.skill import SkillError, parse_skill

FIELDS = "name: demo\ndescription: A demo.\ntype: project\n"


def _skill(tmp_path: Path, text: str):
    path = tmp_path / "demo" / "SKILL.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return parse_skill(path)


def _all_kinds(tmp_path: Path, text: str) -> dict[str, str]:
    """The body each parser reads from `text`."""
    bodies = {
        "skill": _skill(tmp_path, text).body.strip(),
        "memory": parse_memory(text, tmp_path / "demo.md", 0.0).body.strip(),
        "agent": parse_agent(text, tmp_path / "demo.md").system_prompt.strip(),
    }
    note = tmp_path / "note.md"
    note.write_text(text, encoding="utf-8", newline="")
    front, bodies["note"] = read_note(note)
    assert front["name"] == "demo"
    return bodies


@pytest.mark.parametrize(
    "text",
    [
        f"---\n{FIELDS}...\nThe body.\n",  # YAML's document end closes the block (memory refused it)
        f"---  \n{FIELDS}---\t\nThe body.\n",  # trailing blanks on the fences (memory refused them)
        f"\ufeff---\r\n{FIELDS.replace(chr(10), chr(13) + chr(10))}---\r\n\r\nThe body.\r\n",  # BOM and CRLF
    ],
    ids=["dots-closer", "trailing-blanks", "bom-crlf"],
)
def test_every_kind_of_file_reads_the_same_frontmatter(tmp_path: Path, text: str) -> None:
    assert set(_all_kinds(tmp_path, text).values()) == {"The body."}


def test_an_empty_block_is_an_empty_mapping_not_a_parse_error() -> None:
    assert parse_frontmatter("---\n---\nbody\n") == ({}, "body\n")
    # ...so each kind names the field it misses, instead of blaming the YAML.
    with pytest.raises(MemoryFileError, match="its type is None"):
        parse_memory("---\n---\nbody\n", Path("x.md"), 0.0)
    with pytest.raises(AgentDefinitionError, match="'description' is needed"):
        parse_agent("---\n---\nbody\n", Path("x.md"))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no fence\n", "does not start with a '---' frontmatter block"),
        ("---\nname: demo\n", "is not closed"),
        ("---\nname: [demo\n---\n", "does not parse at line"),
        ("---\n- a\n---\n", "not a set of 'key: value' fields"),
        ("---\nwhen: 2025-13-01\n---\n", "holds a value YAML cannot read"),
    ],
)
def test_each_kind_gives_the_same_one_sentence_reason(tmp_path: Path, text: str, reason: str) -> None:
    with pytest.raises(FrontmatterError, match=reason):
        parse_frontmatter(text)
    with pytest.raises(SkillError, match=reason):
        _skill(tmp_path, text)
    with pytest.raises(MemoryFileError, match=reason):
        parse_memory(text, tmp_path / "demo.md", 0.0)
    with pytest.raises(AgentDefinitionError, match=reason):
        parse_agent(text, tmp_path / "demo.md")


def test_a_note_with_broken_frontmatter_keeps_its_whole_text(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("---\ntitle: [broken\n---\nText.\n", encoding="utf-8")
    assert read_note(note) == ({}, "---\ntitle: [broken\n---\nText.")
