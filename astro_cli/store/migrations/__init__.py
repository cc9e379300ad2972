"""Numbered schema migrations, applied in order, each exactly once per database.

Add a module `mNNN_name.py` with an `apply(db)` function and list it here; never edit a
migration that has shipped, add a new one instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils

from astro_cli.store.migrations import (
    m001_core,
    m002_skills,
    m003_tasks,
    m004_library,
    m005_compaction,
    m006_citations,
    m007_text_kinds,
    m008_library_members,
    m009_biblio,
    m010_citation_statuses,
    m011_paper_hash,
)

Migration = tuple[int, str, Callable[["sqlite_utils.Database"], None]]

MIGRATIONS: list[Migration] = [
    (1, "core: sessions, agent_messages, usage", m001_core.apply),
    (2, "skills: skill_usage (uses behind the listing's usage score)", m002_skills.apply),
    (3, "tasks: agent_tasks (todo_write plans), bg_tasks (background tool runs)", m003_tasks.apply),
    (4, "library: papers, chunks, notes, chunks_fts, chunk_vectors", m004_library.apply),
    (5, "compaction: compactions (layer, counts and tokens before/after, summary)", m005_compaction.apply),
    (6, "citations: published-version columns of papers, citations (each answer's checked ids)",
     m006_citations.apply),
    (7, "text kinds: chunks.kind (body, references, acknowledgments), papers.outline", m007_text_kinds.apply),
    (8, "library members: papers.added_by, notes.added_by and notes.workspace", m008_library_members.apply),
    (9, "biblio: papers.biblio (doctype, month, issue, pages... for BibTeX like ADS's)", m009_biblio.apply),
    (10, "citation statuses: citations.kind and .status accept 'malformed' (issue 28)", m010_citation_statuses.apply),
    (11, "paper hash: papers.content_sha256 (a local file added again updates its row)", m011_paper_hash.apply),
]
