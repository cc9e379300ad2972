"""Ranked passages from the local library: SQLite FTS5 BM25, fused with vectors when they exist.

A question in plain words becomes an FTS5 query of quoted terms joined by OR (stop words
dropped, "quoted phrases" kept), so punctuation in a question can never be a syntax error and
BM25 ranks the passages that share the most distinctive words first. Up to four phrasings of one
question are ranked each on its own (and all together) and merged by reciprocal rank fusion, as
are the vector rankings when an embedding model is configured (retrieval.py). Reference lists and acknowledgments match every query and answer none: they are left out unless
asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.prompt.tags import escape_tags
from astro_cli.research.records import Hit, Paper, PaperRef
from astro_cli.research.search.fts import Match, SearchError, fts_query, plan_query
from astro_cli.research.search.fts import literal_runs as run_match
from astro_cli.research.search.retrieval import RRF_K, fuse, reciprocal_rank_fusion
from astro_cli.research.textblock import frame

__all__ = ["SearchError", "SearchResult", "Hit", "fts_query", "search_library", "format_hits", "sources_of", "text_ranking",
           "reciprocal_rank_fusion", "RRF_K", "MAX_PHRASINGS", "BACK_MATTER"]

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore

MAX_PHRASINGS = 4
NAME_PASSAGES = 50  # a word's best passages that tell whether it names a paper (naming.py)
BACK_MATTER = ("references", "acknowledgments")  # chunk kinds left out unless include_references


# The synonym-expanded ranking (opt-in) counts for more than one phrasing: it holds the question's
# words and the field's (measured on the issue-15 set, benchmarks/RESULTS.md issue 30).
# The candidates ranked by their best sentence window (windows.py) are one more list, at half
# weight, fused with a constant of 10, not Cormack's 60 (which flattens the first ranks): chosen on
# CosmoPaperQA's development split among the rules that keep the project's held-out literal questions
# at 27/27 and paraphrases at 19/27 and lose nothing on the tuning set (benchmarks/sweep_fusion.py,
# benchmarks/RESULTS.md "Stop 50 — retrieval ranking"). A list of the section paths' words helped the
# development split but cost tuning paraphrases, so it is not fused. The passages holding the UAT's
# other labels for a concept the question names (thesaurus.py) are a list at half weight, below the
# question's own words (benchmarks/RESULTS.md "Stop 53 — retrieval, the thesaurus").
LIST_WEIGHTS = {"bm25:synonyms": 2.0, "window": 0.5, "bm25:thesaurus": 0.5}
FUSION_K = 10


def resolve_papers(library: LibraryCore, papers: list[str] | str | None) -> list[str] | None:
    """Paper filter names (any alias) to canonical ids; an unknown name is an error, not an empty result."""
    if not papers:
        return None
    names = [papers] if isinstance(papers, str) else list(papers)
    ids: list[str] = []
    for name in names:
        paper = library.get_paper(str(name))
        if paper is None:
            raise SearchError(f"paper {name} is not in the library; download it with download_paper first.")
        ids.append(paper.id)
    return ids


def text_ranking(library: LibraryCore, match: Match, limit: int, paper_ids: list[str] | None,
                 exclude: Sequence[str] = ()) -> list[tuple[int, float]]:
    """(chunk id, full-text score, higher is better) for the best `limit` chunks not of an excluded kind.
    A query the store's engine cannot read is its SearchError (each store raises its own)."""
    return library.store.text_ranking(match, limit, paper_ids, exclude)


@dataclass
class SearchResult:
    hits: list[Hit]
    method: str  # "bm25" or "hybrid"
    warning: str | None = None
    dropped: list[str] = field(default_factory=list)  # words too common in the library to search by
    queries: list[str] = field(default_factory=list)  # the phrasings asked (ranked without naming words)
    include_references: bool = False
    reranked: bool = False  # the hits were re-ordered by a model (rag_search, `library.rerank`)
    named: list[str] = field(default_factory=list)  # papers the question named, searched alone (naming.py)

    def as_dict(self) -> dict[str, Any]:
        return {"method": self.method, "warning": self.warning, "dropped_words": self.dropped,
                "queries": self.queries, "include_references": self.include_references, "named_papers": self.named,
                "hits": [hit.as_dict() for hit in self.hits]}


def phrasings_of(query: str | Sequence[str]) -> list[str]:
    """One question or up to MAX_PHRASINGS phrasings of it, blanks and repeats dropped."""
    items = [query] if isinstance(query, str) else list(query)
    phrasings = list(dict.fromkeys(str(item).strip() for item in items if str(item or "").strip()))
    if not phrasings:
        raise SearchError("the search query is empty; give words or a question.")
    if len(phrasings) > MAX_PHRASINGS:
        raise SearchError(f"give at most {MAX_PHRASINGS} phrasings of one question, not {len(phrasings)}.")
    return phrasings


def search_library(
    library: LibraryCore, question: str | Sequence[str], k: int = 8, papers: list[str] | str | None = None, *,
    include_references: bool = False, synonyms: bool | None = None, literal_runs: bool = True,
) -> SearchResult:
    """The best k passages for a question (or several phrasings of it), from papers and notes
    (notes only when no paper filter). References and acknowledgments only when asked for.
    `literal_runs=False` leaves out the ranking of three-word runs (for the benchmark's stages)."""
    phrasings = asked = phrasings_of(question)
    k = max(1, min(int(k), 50))
    limit = max(k, 50)
    paper_ids = resolve_papers(library, papers)
    named: list[str] = []
    if paper_ids is None:  # a paper the question names (search/naming.py): searched alone, by the other words
        from astro_cli.research.search.naming import named_papers

        naming = named_papers(library.store.paper_titles(), phrasings, lambda word: _users(library, word))
        if naming.papers:
            paper_ids, named, phrasings = naming.papers, naming.papers, naming.phrasings
    if paper_ids is None:
        from astro_cli.research.library.notes import sync_notes

        sync_notes(library)  # notes edited by hand since they were last seen are searched as they are now
    exclude = () if include_references else BACK_MATTER
    store = library.store
    lists: dict[str, list[tuple[int, float]]] = {}
    dropped: list[str] = []
    # Each phrasing ranked on its own, and all of them as one question: BM25 then weighs every
    # phrasing's words together, so the technical terms of one lift the passage the other only
    # hints at; the fusion rewards the passages the rankings agree on.
    together = [" ".join(phrasings)] if len(phrasings) > 1 else []
    for n, phrasing in enumerate([*phrasings, *together], start=1):
        plan = plan_query(store, phrasing)
        ranking = text_ranking(library, plan.expression, limit, paper_ids, exclude)
        if plan.fallback and len(ranking) < k:
            ranking = text_ranking(library, plan.fallback, limit, paper_ids, exclude)
        name = "bm25:all" if n > len(phrasings) else _name("bm25", n, len(phrasings))
        lists[name] = ranking
        dropped += [w for w in plan.dropped if w not in dropped]
        runs = run_match(phrasing, plan.dropped) if literal_runs and n <= len(phrasings) else Match()
        literal = text_ranking(library, runs, limit, paper_ids, exclude) if runs else []
        if literal:  # the passages that share three words in a row with the question (fts.literal_runs)
            lists[_name("literal", n, len(phrasings))] = literal
    thesaurus = _thesaurus(library, phrasings, limit, paper_ids, exclude)
    if thesaurus:
        lists["bm25:thesaurus"] = thesaurus
    expanded = _expanded(library, phrasings, synonyms)
    if expanded:
        plan = plan_query(store, expanded)
        lists["bm25:synonyms"] = text_ranking(library, plan.expression, limit, paper_ids, exclude)
    warning = None
    if library.embedding_model:
        from astro_cli.research.search.embed import vector_ranking
        from astro_cli.research.search.vectors import EmbeddingError

        try:
            for n, phrasing in enumerate(phrasings, start=1):
                vector = vector_ranking(library, phrasing, limit, paper_ids, exclude)
                if vector:
                    lists[_name("vector", n, len(phrasings))] = vector
        except EmbeddingError as exc:
            warning = f"hybrid search was not possible, so this is full text alone: {exc}"
        if warning is None:
            warning = _vectors_to_come(library, paper_ids, hybrid=any(name.startswith("vector") for name in lists))
    if len(lists) > 1:  # the candidates ranked again by their best sentence window
        lists.update(candidate_lists(library, phrasings, lists))
    method = "hybrid" if any(name.startswith("vector") for name in lists) else "bm25"
    # The three-word runs are a list of the fusion (issue 30), not only its tie-breaker: as a tie-breaker
    # (issue 42's first try) 2 of the 27 held-out literal questions left the top 3 with vectors, 1 by
    # keywords alone, against 1 of 42 CosmoPaperQA questions gained (benchmarks/RESULTS.md).
    if len(lists) == 1:  # one ranking: its own scores (BM25)
        ranked = next(iter(lists.values()))[:k]
    else:
        ranked = _fused(library, lists, k)
    ranks: dict[int, dict[str, int]] = {}  # each chunk's rank in each list that was fused
    for name, ranking in lists.items():
        for rank, (cid, _) in enumerate(ranking, start=1):
            ranks.setdefault(cid, {})[name] = rank
    hits = _load_hits(library, ranked, ranks)
    return SearchResult(hits, method, warning, dropped, asked, include_references, named=named)


def _fused(library: LibraryCore, lists: dict[str, list[tuple[int, float]]], k: int) -> list[tuple[int, float]]:
    """The ranking lists fused (retrieval.fuse): chunks of papers whose vectors are pending fused over
    the keyword lists alone (the literal three-word runs among them), which also break ties."""
    ids = {name: [cid for cid, _ in ranking] for name, ranking in lists.items()}
    vector_lists = [name for name in ids if name.startswith("vector")]
    keyword_only: set[int] = set()
    lacking = _lacking(library) if vector_lists else set()
    if lacking:
        candidates = sorted({cid for ranking in ids.values() for cid in ranking})
        keyword_only = {row["id"] for row in library.store.hit_rows(candidates) if row["paper_id"] in lacking}
    literal = [cid for name, ranking in lists.items() if name.startswith("literal") for cid, _ in ranking]
    weights = {name: LIST_WEIGHTS.get(name, 1.0) for name in ids}
    return fuse(ids, weights, keyword_only, vector_lists, list(dict.fromkeys(literal)), k=FUSION_K)[:k]


def candidate_lists(library: LibraryCore, phrasings: list[str], lists: dict[str, list[tuple[int, float]]]
                    ) -> dict[str, list[tuple[int, float]]]:
    """The candidates the other lists found, ranked again by their best sentence window (windows.py)."""
    from astro_cli.research.search.fts import parse_question
    from astro_cli.research.search.windows import idf, window_ranking

    ids = sorted({cid for ranking in lists.values() for cid, _ in ranking})
    words = list(dict.fromkeys(w for p in phrasings for w in parse_question(p).words))
    if not ids or not words or not LIST_WEIGHTS["window"]:
        return {}
    store = library.store
    weights = idf(store.document_frequencies(words), store.index_stamp()[1])
    return {"window": window_ranking(store.chunk_texts(ids), weights)}


def _users(library: LibraryCore, word: str) -> list[str]:
    """The papers of the word's best passages by BM25 (one entry a passage; notes left out)."""
    ranking = text_ranking(library, Match(((word,),)), NAME_PASSAGES, None, BACK_MATTER)
    papers = library.store.papers_of_chunks([cid for cid, _ in ranking])  # ids only: no texts, no rows
    return [papers[cid] for cid, _ in ranking if cid in papers]


def _lacking(library: LibraryCore) -> set[str]:
    from astro_cli.research.search.reindex import pending

    return {pid for pid, _ in pending(library)}


def _thesaurus(library: LibraryCore, phrasings: list[str], limit: int, paper_ids: list[str] | None,
               exclude: Sequence[str]) -> list[tuple[int, float]]:
    """The passages holding the UAT's other labels of the concepts the question names (thesaurus.py),
    or an empty list when it names none. The labels alone: the question's own words are its BM25 lists
    already, and repeating them here weighed twice the questions that happen to name a UAT concept."""
    from astro_cli.research.search.thesaurus import uat

    added = uat().alternates(" ".join(phrasings))
    if not added or not LIST_WEIGHTS["bm25:thesaurus"]:
        return []
    return text_ranking(library, Match(tuple((label,) for label in added)), limit, paper_ids, exclude)


def _expanded(library: LibraryCore, phrasings: list[str], synonyms: bool | None) -> str | None:
    """The question with the field's terms for its everyday words (synonyms.py), or None."""
    if synonyms is None:
        synonyms = library.settings.typed["library.synonyms"]
    if not synonyms:
        return None
    from astro_cli.research.search.synonyms import expansion

    added = " ".join(filter(None, (expansion(p) for p in phrasings)))
    return f"{phrasings[0]} {added}" if added else None


def _vectors_to_come(library: LibraryCore, paper_ids: list[str] | None, hybrid: bool) -> str | None:
    """Papers searched by keywords alone until their vectors exist: said, and (for astro's default
    model) their vectors started in the background, so an old library catches up by itself. With a
    model the user named and no vector at all, the search is plainly BM25 (its method says so)."""
    from astro_cli.research.search.reindex import pending, running, start_lazily

    default = library.settings.typed["library.embedding_model"] is None
    if not default and not hybrid:
        return None
    lacking = [pid for pid, _ in pending(library) if paper_ids is None or pid in paper_ids]
    if not lacking:
        return None
    started = default and start_lazily(library)
    how = ("they are being made in the background" if started or running(library)
           else "`astro library reindex` makes them")
    return (f"{len(lacking)} paper(s) have no vectors yet and were matched by keywords alone ({how})")


def _name(kind: str, n: int, count: int) -> str:
    return kind if count == 1 else f"{kind}:{n}"


def _load_hits(library: LibraryCore, ranked: list[tuple[int, float]],
               ranks: dict[int, dict[str, int]]) -> list[Hit]:
    if not ranked:
        return []
    rows = library.store.hit_rows([cid for cid, _ in ranked])
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
            paper=None if is_note else _ref(row),
            ord=row.get("ord"), ranks=ranks.get(cid, {}),
        ))
    return hits


def _ref(row: dict[str, Any]) -> PaperRef:
    """A hit's paper, from the columns of its row that name it (the row is also the chunk's)."""
    named = {key: row.get(key) for key in ("arxiv_id", "bibcode", "doi", "url", "authors", "year")}
    return Paper.from_row({**named, "id": row["paper_id"], "title": row["p_title"]}).ref()


def format_hits(question: str | Sequence[str], result: SearchResult) -> str:
    """The text rag_search gives the model: each passage framed as <paper-text> or <note-text>."""
    hits = result.hits
    asked = " / ".join(f'"{q}"' for q in ([question] if isinstance(question, str) else question))
    note = f"\nNote: {result.warning}." if result.warning else ""
    if not hits:
        where = "" if result.include_references else " (reference lists were not searched)"
        return (
            f"No passage in the library matches {asked}{where}. Try other words, search_papers to find papers, "
            "or download_paper and parse_paper to add one." + note
        )
    if result.dropped:
        note += f"\n(Words too common in the library to search by: {', '.join(result.dropped)}.)"
    lines = [escape_tags(f"{len(hits)} passage(s) for {asked} ({describe_method(result)}); best first:{note}"), ""]
    for n, hit in enumerate(hits, start=1):
        title = f' "{hit.title}"' if hit.title else ""
        lines.append(escape_tags(f"[{n}] {' · '.join(where_of(hit))} · score {hit.score:g}{title}"))
        lines.append(frame(hit.text, hit.source, hit.section, hit.page, kind=hit.kind, handle=hit.handle))
        lines.append("")
    return "\n".join(lines).rstrip()


def describe_method(result: SearchResult) -> str:
    """How the ranking was made, in a few words (and which words were left out or added)."""
    how = "BM25 full-text" if result.method == "bm25" else "hybrid: BM25 and embeddings"
    if len(result.queries) > 1 or result.method != "bm25":
        how += ", fused by reciprocal rank"
    if result.reranked:
        how += ", re-ranked by the model"
    if result.named:
        how += f"; only {', '.join(result.named)}, named in the question"
    return how


def where_of(hit: Hit) -> list[str]:
    where = [hit.source]
    if hit.section:
        where.append(f"section {hit.section}")
    if hit.page:
        where.append(f"page {hit.page}")
    return where


def sources_of(hits: list[Hit]) -> list[dict[str, Any]]:
    """The papers (and notes) behind the hits, once each, for /sources: a paper as its `PaperRef`
    (authors and year: the reader's `(Cowan & Agol 2010, p. 1)` is the same as after get_paper_content)."""
    seen: dict[str, dict[str, Any]] = {}
    for hit in hits:
        if hit.source not in seen:
            seen[hit.source] = hit.paper.as_dict() if hit.paper else {"id": hit.source, "title": hit.title,
                                                                     "kind": "note"}
    return list(seen.values())
