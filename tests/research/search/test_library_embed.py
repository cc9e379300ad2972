"""Hybrid search: vectors made through the real litellm.embedding, fused with BM25 by reciprocal rank.

No real embedding model can run offline here, so a small OpenAI-compatible /v1/embeddings server on
127.0.0.1 computes deterministic vectors: hashed bags of stemmed words, with one "synonym" folded in
('decorrelation' lands where 'autocorrelation' does) to stand in for what a real model knows and BM25
cannot. Everything between astro and that server is real: litellm, HTTP, blobs in SQLite, numpy.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from http.server import BaseHTTPRequestHandler

import pytest

from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from astro_cli.research.search.fts import literal_runs
from astro_cli.research.search.passages import (
    FUSION_K,
    LIST_WEIGHTS,
    candidate_lists,
    fts_query,
    search_library,
    text_ranking,
)
from astro_cli.research.search.retrieval import fuse
from astro_cli.research.search.vectors import rank_by_vector
from tests.library_support import add_paper, make_app
from tests.quick_server import QuickHTTPServer

DIM = 256
SYNONYMS = {"decorrelation": "autocorrelation"}


def fake_vector(text: str) -> list[float]:
    vector = [0.0] * DIM
    for word in re.findall(r"[a-z]+", text.lower()):
        word = SYNONYMS.get(word, word)
        if len(word) > 3:
            vector[zlib.crc32(word.rstrip("s").encode()) % DIM] += 1.0
    return vector


class EmbeddingServer:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # noqa: ANN002
                pass

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                server.requests.append(body)
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = []
                for index, text in enumerate(inputs):
                    vector = fake_vector(text)
                    if body.get("encoding_format") == "base64":
                        import array

                        vector = base64.b64encode(array.array("f", vector).tobytes()).decode()
                    data.append({"object": "embedding", "index": index, "embedding": vector})
                payload = json.dumps({"object": "list", "data": data, "model": body.get("model"),
                                      "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = QuickHTTPServer(Handler)  # serves in its own thread; closes at once
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.server_close()


@pytest.fixture(scope="module")
def embedder():
    server = EmbeddingServer()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def embedding_key(monkeypatch):
    """litellm's OpenAI client wants a key; the server ignores it. Set for each test, since the suite
    clears provider keys from every test's environment (conftest.isolated_astro)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-embeddings")


@pytest.fixture(scope="module")
def hybrid_app(tmp_path_factory, embedder):
    patch = pytest.MonkeyPatch()
    patch.setenv("OPENAI_API_KEY", "sk-test-embeddings")  # for parsing, in this module-wide fixture
    app = make_app(tmp_path_factory.mktemp("hybrid") / "ws", **{
        "library.embedding_model": "openai/fake-embed", "library.embedding_api_base": embedder.url,
    })
    add_paper(app, "1001.0012")
    add_paper(app, "1202.3665")
    for paper_id in ("1001.0012", "1202.3665"):
        assert parse_paper(Library.of(app), paper_id).warning is None
    yield app
    app.close()
    patch.undo()


def test_parsing_stores_one_vector_per_chunk(hybrid_app, embedder):
    counts = hybrid_app.db.query(
        "SELECT (SELECT count(*) FROM chunks) AS chunks, count(*) AS vectors, min(dim) AS dim, max(dim) AS maxdim "
        "FROM chunk_vectors WHERE model = 'openai/fake-embed'"
    )[0]
    assert counts["vectors"] == counts["chunks"] > 50 and counts["dim"] == counts["maxdim"] == DIM
    assert embedder.requests and all(r["model"] == "fake-embed" for r in embedder.requests)


def test_hybrid_order_is_the_fusion_of_both_rankings(hybrid_app):
    question = "How does the radiative time scale with temperature compared to the advective time?"
    result = search_library(Library.of(hybrid_app), question, k=5)
    assert result.method == "hybrid" and result.warning is None
    bm25 = [cid for cid, _ in text_ranking(Library.of(hybrid_app), fts_query(question), 50, None)]
    # and the passages sharing three of its words in a row ("radiative time scale"; issue 30)
    literal = [cid for cid, _ in text_ranking(Library.of(hybrid_app), literal_runs(question), 50, None)]
    index = Library.of(hybrid_app).store.vector_index("openai/fake-embed")
    vector = [cid for cid, _ in rank_by_vector(index, fake_vector(question), 50)]
    assert literal
    # the runs are a list of the fusion and also break its ties (retrieval.fuse; literal questions stay at 100%);
    # the candidates of all three, ranked again by their best sentence window, are one more list
    scored = {"bm25": [(c, 0.0) for c in bm25], "literal": [(c, 0.0) for c in literal], "vector": [(c, 0.0) for c in vector]}
    again = candidate_lists(Library.of(hybrid_app), [question], scored)
    assert set(again) == {"window"}
    lists = {"bm25": bm25, "literal": literal, "vector": vector, **{n: [c for c, _ in r] for n, r in again.items()}}
    weights = {name: LIST_WEIGHTS.get(name, 1.0) for name in lists}
    expected = [cid for cid, _ in fuse(lists, weights, vector_lists=["vector"], tie_break=literal, k=FUSION_K)[:5]]
    assert [hit.chunk_id for hit in result.hits] == expected
    assert {"bm25", "vector"} <= set(result.hits[0].ranks)
    assert any("the radiative time scales as" in hit.text for hit in result.hits)


def test_vectors_find_what_the_words_alone_miss(hybrid_app):
    question = "decorrelation"
    assert text_ranking(Library.of(hybrid_app), fts_query(question), 10, None) == []
    hits = search_library(Library.of(hybrid_app), question, k=3).hits
    assert hits and hits[0].source == "1202.3665" and "autocorrelation" in hits[0].text.lower()
    assert hits[0].ranks == {"vector": 1}


def test_the_paper_filter_applies_to_vectors_too(hybrid_app):
    hits = search_library(Library.of(hybrid_app), "decorrelation", k=5, papers=["1001.0012"]).hits
    assert all(hit.source == "1001.0012" for hit in hits)


def test_an_unreachable_embedding_model_falls_back_to_bm25_with_one_sentence(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-embeddings")
    app = make_app(tmp_path / "ws", **{"library.embedding_model": "openai/fake-embed",
                                       "library.embedding_api_base": "http://127.0.0.1:9/v1"})
    add_paper(app, "1202.3665")
    report = parse_paper(Library.of(app), "1202.3665")
    assert report.chunks > 10  # the full-text index was written all the same
    assert report.warning.startswith("full-text search works, but no vectors were made: the embedding model "
                                     "openai/fake-embed failed (")
    result = search_library(Library.of(app), "acceptance fraction", k=2)
    assert result.method == "bm25" and result.hits
    assert result.warning is None  # no vectors stored: plain BM25, nothing to warn about
    app.close()


def test_a_paper_indexed_before_the_model_was_set_gets_vectors_on_its_next_parse(tmp_path, embedder, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-embeddings")
    plain = make_app(tmp_path / "ws")
    add_paper(plain, "1202.3665")
    chunks = parse_paper(Library.of(plain), "1202.3665").chunks
    plain.close()
    app = make_app(tmp_path / "ws", **{"library.embedding_model": "openai/fake-embed",
                                       "library.embedding_api_base": embedder.url})
    report = parse_paper(Library.of(app), "1202.3665")
    assert report.already and report.warning is None
    assert app.db.query("SELECT count(*) AS n FROM chunk_vectors")[0]["n"] == chunks
    assert search_library(Library.of(app), "decorrelation").method == "hybrid"
    app.close()
