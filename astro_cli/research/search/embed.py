"""Vectors for hybrid search: chunk embeddings through litellm (or made locally, local_embed.py),
stored as float32 blobs.

Only used when an embedding model is in use (embedding_choice.py: the local MiniLM by default), and litellm is imported only then (it costs
seconds); a `local:` model never imports it. Vectors are tagged with the model that made them: changing the model never mixes
incomparable vectors; chunks without a vector of the current model simply rank by BM25 alone.
Where vectors are kept and how they are ranked is the store's business (storage/): a numpy matrix
over the SQLite rows, rebuilt when they change, or pgvector on a PostgreSQL server.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from astro_cli.research.library.section_paths import outline_headings, section_paths
from astro_cli.research.search.vectors import EmbeddingError

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore
    from astro_cli.research.records import Chunk

BATCH = 64
# Chunks embedded from all their words, not the local model's first 256 tokens (measured in
# benchmarks/RESULTS.md, issue 30). A module constant the stages benchmark switches.
WHOLE_PASSAGES = True


def embed_texts(library: LibraryCore, texts: list[str], whole: bool = False) -> list[list[float]]:
    """Embeddings of texts with the configured model, in batches (litellm imported only for a remote model).

    `whole`: passages longer than the local model's 256 tokens are embedded from all their words
    (local_embed.MiniLM.encode_whole); a question is short and encoded as it is."""
    model = library.embedding_model
    if not model:
        raise EmbeddingError("no embedding model is configured (config 'library.embedding_model')")
    from astro_cli.research.search.local_embed import LocalModelError, is_local

    if is_local(model):  # made here, in numpy: no API, no download, no litellm
        try:
            local = library.encoders.get(model)
            made: list[list[float]] = (local.encode_whole(texts) if whole else local.encode(texts)).tolist()
            return made
        except LocalModelError as exc:
            raise EmbeddingError(str(exc)) from None
    from astro_cli.litellm_model.embedding import embed_batch

    base = library.settings.typed["library.embedding_api_base"]
    vectors: list[list[float]] = []
    for start in range(0, len(texts), BATCH):
        batch = texts[start : start + BATCH]
        try:
            vectors.extend(embed_batch(model, batch, base, library.settings.typed["http.timeout"]))
        except Exception as exc:  # noqa: BLE001 - litellm raises provider-specific types
            first = str(exc).strip().split("\n")[0][:160]
            raise EmbeddingError(f"the embedding model {model} failed ({type(exc).__name__}: {first})") from None
        if len(vectors) != start + len(batch):
            raise EmbeddingError(f"the embedding model {model} returned {len(vectors) - start} vectors for {len(batch)} texts")
    return vectors


def embed_paper(library: LibraryCore, paper_id: str | None = None, note_id: int | None = None) -> int:
    """Make and store vectors for a paper's (or note's) chunks; returns how many were stored.

    A library that keeps no vectors (a server without pgvector) is said so before the model is asked.
    """
    _checked(library)
    rows = library.store.chunks_to_embed(paper_id=paper_id, note_id=note_id)
    if not rows:
        return 0
    paper = library.store.paper(paper_id) if paper_id is not None else None
    headings = outline_headings(paper.outline if paper else None) + [r["section"] for r in rows if r["section"]]
    paths = section_paths(headings) if paper_id is not None else {}
    return embed_chunks(library, [int(r["id"]) for r in rows],
                        [(paths.get(r["section"], r["section"]), r["text"]) for r in rows])


def embed_written(library: LibraryCore, chunk_ids: list[int], chunks: list[Chunk]) -> int:
    """Vectors for chunks just written (their ids as the store gave them back): nothing is read again."""
    _checked(library)
    paths = section_paths(c.section for c in chunks if c.section)
    return embed_chunks(library, chunk_ids, [(paths.get(c.section or "", c.section), c.text) for c in chunks])


def _checked(library: LibraryCore) -> str:
    """The model in use; EmbeddingError when vectors are off or this library keeps none."""
    note = library.store.vectors_note()
    if note:
        raise EmbeddingError(note)
    model = library.embedding_model
    if not model:
        raise EmbeddingError("vectors are off (config 'library.embedding_model')")
    return model


def embed_chunks(library: LibraryCore, chunk_ids: list[int], texts: list[tuple[str | None, str]]) -> int:
    """Embed (section, text) pairs and store them as the vectors of `chunk_ids`."""
    if not chunk_ids:
        return 0
    # The section's path travels with the text (section_paths.py): it is often the best summary of
    # what a chunk is about, and a question often names the parent section's subject.
    # The brackets around a guessed formula (pdfscript.py) are for the reader; a model's tokenizer
    # knows no such symbol, and an unknown token moves the vector more than the formula does.
    from astro_cli.research.text.pdfscript import APPROXIMATE, APPROXIMATE_END

    model = _checked(library)
    plain = [f"{section or ''}\n{text}".replace(APPROXIMATE, "").replace(APPROXIMATE_END, "")
             for section, text in texts]
    vectors = embed_texts(library, plain, whole=WHOLE_PASSAGES)
    library.store.store_vectors(chunk_ids, vectors, model)
    return len(chunk_ids)


def vector_ranking(library: LibraryCore, question: str, limit: int, paper_ids: list[str] | None,
                   exclude: Sequence[str] = ()) -> list[tuple[int, float]]:
    """The vector side of hybrid search; empty when no vectors of the configured model exist.
    A library that keeps no vectors raises EmbeddingError with the reason (search says it)."""
    store = library.store
    note = store.vectors_note()
    if note:
        raise EmbeddingError(note)
    model = library.embedding_model
    if not model or not store.has_any_vectors(model):
        return []
    (query,) = embed_texts(library, [question])
    return store.without_kinds(store.vector_ranking(model, query, limit, paper_ids), exclude)
