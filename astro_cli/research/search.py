"""Ranked passages from the local library: SQLite FTS5 BM25, fused with vectors when they exist.

A question in plain words becomes an FTS5 query of quoted terms joined by OR (stop words
dropped, "quoted phrases" kept), so punctuation in a question can never be a syntax error and
BM25 ranks the passages that share the most distinctive words first. When an embedding model is
configured and the library holds vectors made by it, the BM25 ranking and the cosine ranking are
merged by reciprocal rank fusion, which needs no score calibration between the two.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.prompt.tags import escape_tags
from astro_cli.research.fts import fts_query, plan_query
from astro_cli.research.textblock import frame

__all__ = ["SearchError", "SearchResult", "Hit", "fts_query", "search_library", "format_hits", "sources_of"]

if TYPE_CHECKING:
    from astro_cli.app import AppContext

RRF_K = 60  # the constant of Cormack et al. (2009); damps the weight of the very first ranks
class SearchError(Exception):
    """A search that cannot run (empty query, unknown paper); one sentence for the model or user."""


@dataclass
class Hit:
    chunk_id: int
    kind: str  # "paper" or "note"
    source: str  # the paper id, or the note's path relative to the workspace
    section: str | None
    page: int | None
    text: str
    score: float
    title: str | None = None
    bibcode: str | None = None
    arxiv_id: str | None = None
    url: str | None = None
    ranks: dict[str, int] = field(default_factory=dict)  # this chunk's rank in each list that was fused

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def resolve_papers(app: AppContext, papers: list[str] | str | None) -> list[str] | None:
    """Paper filter names (any alias) to canonical ids; an unknown name is an error, not an empty result."""
    if not papers:
        return None
    from astro_cli.research.library import Library

    names = [papers] if isinstance(papers, str) else list(papers)
    library = Library(app)
    ids: list[str] = []
    for name in names:
        row = library.get_paper(str(name))
        if row is None:
            raise SearchError(f"paper {name} is not in the library; download it with download_paper first.")
        ids.append(row["id"])
    return ids


def bm25_ranking(app: AppContext, query: str, limit: int, paper_ids: list[str] | None) -> list[tuple[int, float]]:
    """(chunk id, BM25 score, higher is better) for the best `limit` chunks.

    A paper's chunks are written in one transaction, so their ids form one range: the paper filter
    is a rowid range FTS5 can seek to, instead of a join that would score every match first.
    """
    import sqlite3

    if not query:
        return []
    sql = "SELECT rowid, -rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?"
    try:
        if paper_ids is None:
            rows = app.db.execute(sql, (query, limit)).fetchall()
        else:
            rows = []
            ranged = sql.replace("MATCH ?", "MATCH ? AND rowid BETWEEN ? AND ?")
            for paper_id in paper_ids:
                low, high = app.db.execute("SELECT min(id), max(id) FROM chunks WHERE paper_id = ?", (paper_id,)).fetchone()
                if low is not None:
                    rows += app.db.execute(ranged, (query, low, high, limit)).fetchall()
            owned = _owned(app, [int(r[0]) for r in rows], paper_ids)
            rows = sorted((r for r in rows if int(r[0]) in owned), key=lambda r: -r[1])[:limit]
    except sqlite3.OperationalError as exc:
        raise SearchError(f"the full-text index could not read the query ({exc}).") from None
    return [(int(r[0]), float(r[1])) for r in rows]


def _owned(app: AppContext, chunk_ids: list[int], paper_ids: list[str]) -> set[int]:
    if not chunk_ids:
        return set()
    marks, papers = ",".join("?" * len(chunk_ids)), ",".join("?" * len(paper_ids))
    rows = app.db.execute(f"SELECT id FROM chunks WHERE id IN ({marks}) AND paper_id IN ({papers})",
                          [*chunk_ids, *paper_ids]).fetchall()
    return {int(r[0]) for r in rows}


def reciprocal_rank_fusion(rankings: list[list[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Merge ranked id lists: score(id) = sum over lists of 1 / (k + rank), rank starting at 1."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))


@dataclass
class SearchResult:
    hits: list[Hit]
    method: str  # "bm25" or "hybrid"
    warning: str | None = None
    dropped: list[str] = field(default_factory=list)  # words too common in the library to search by

    def as_dict(self) -> dict[str, Any]:
        return {"method": self.method, "warning": self.warning, "dropped_words": self.dropped,
                "hits": [hit.as_dict() for hit in self.hits]}


def search_library(
    app: AppContext, question: str, k: int = 8, papers: list[str] | str | None = None
) -> SearchResult:
    """The best k passages for a question, from papers and notes (notes only when no paper filter)."""
    if not question or not question.strip():
        raise SearchError("the search query is empty; give words or a question.")
    k = max(1, min(int(k), 50))
    paper_ids = resolve_papers(app, papers)
    if paper_ids is None:
        from astro_cli.research.notes import sync_notes

        sync_notes(app)  # notes edited by hand since they were saved are searched as they are now
    plan = plan_query(app, question)
    bm25 = bm25_ranking(app, plan.expression, max(k, 50), paper_ids)
    if plan.fallback and len(bm25) < k:
        bm25 = bm25_ranking(app, plan.fallback, max(k, 50), paper_ids)
    vector: list[tuple[int, float]] = []
    warning = None
    if app.settings.get("library.embedding_model"):
        from astro_cli.research.embed import EmbeddingError, vector_ranking

        try:
            vector = vector_ranking(app, question, max(k, 50), paper_ids)
        except EmbeddingError as exc:
            warning = f"hybrid search was not possible, so this is BM25 alone: {exc}"
    if vector:
        ranked = reciprocal_rank_fusion([[cid for cid, _ in bm25], [cid for cid, _ in vector]])[:k]
        method = "hybrid"
    else:
        ranked, method = bm25[:k], "bm25"
    ranks = {
        "bm25": {cid: i for i, (cid, _) in enumerate(bm25, start=1)},
        "vector": {cid: i for i, (cid, _) in enumerate(vector, start=1)},
    }
    hits = _load_hits(app, ranked)
    for hit in hits:
        hit.ranks = {name: table[hit.chunk_id] for name, table in ranks.items() if hit.chunk_id in table}
    return SearchResult(hits, method, warning, plan.dropped)


def _load_hits(app: AppContext, ranked: list[tuple[int, float]]) -> list[Hit]:
    if not ranked:
        return []
    marks = ",".join("?" * len(ranked))
    rows = app.db.query(
        "SELECT c.id, c.paper_id, c.note_id, c.section, c.page, c.text, p.title AS p_title, p.bibcode, "
        "p.arxiv_id, p.url, n.path AS n_path, n.title AS n_title FROM chunks c "
        "LEFT JOIN papers p ON p.id = c.paper_id LEFT JOIN notes n ON n.id = c.note_id "
        f"WHERE c.id IN ({marks})",
        [cid for cid, _ in ranked],
    )
    by_id = {row["id"]: row for row in rows}
    hits: list[Hit] = []
    for cid, score in ranked:
        row = by_id.get(cid)
        if row is None:
            continue
        is_note = row["paper_id"] is None
        hits.append(Hit(
            chunk_id=cid, kind="note" if is_note else "paper",
            source=row["n_path"] if is_note else row["paper_id"], section=row["section"], page=row["page"],
            text=row["text"], score=round(score, 4), title=row["n_title"] if is_note else row["p_title"],
            bibcode=row["bibcode"], arxiv_id=row["arxiv_id"], url=row["url"],
        ))
    return hits


def format_hits(question: str, result: SearchResult) -> str:
    """The text rag_search gives the model (and `astro library search` prints)."""
    hits = result.hits
    note = f"\nNote: {result.warning}." if result.warning else ""
    if not hits:
        return (
            f'No passage in the library matches "{question}". Try other words, search_papers to find papers, '
            "or download_paper and parse_paper to add one." + note
        )
    how = "BM25 full-text" if result.method == "bm25" else "hybrid: BM25 and embeddings by reciprocal rank fusion"
    if result.dropped:
        note += f"\n(Words too common in the library to search by: {', '.join(result.dropped)}.)"
    lines = [escape_tags(f'{len(hits)} passage(s) for "{question}" ({how}); best first:{note}'), ""]
    for n, hit in enumerate(hits, start=1):
        where = [hit.source]
        if hit.section:
            where.append(f"section {hit.section}")
        if hit.page:
            where.append(f"page {hit.page}")
        title = f' "{hit.title}"' if hit.title else ""
        lines.append(escape_tags(f"[{n}] {' · '.join(where)} · score {hit.score:g}{title}"))
        lines.append(frame(hit.text, hit.source, hit.section, hit.page, kind=hit.kind))
        lines.append("")
    return "\n".join(lines).rstrip()


def sources_of(hits: list[Hit]) -> list[dict[str, Any]]:
    """The papers (and notes) behind the hits, once each, for /sources."""
    seen: dict[str, dict[str, Any]] = {}
    for hit in hits:
        if hit.source not in seen:
            seen[hit.source] = {
                "id": hit.source, "title": hit.title, "bibcode": hit.bibcode, "arxiv_id": hit.arxiv_id,
                "url": hit.url, **({"kind": "note"} if hit.kind == "note" else {}),
            }
    return list(seen.values())
