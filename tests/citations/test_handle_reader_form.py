"""Issue 45: one reader form per handle, whichever tool showed the passage.

The same passage of Cowan & Agol (2010) read "(1001.0012, p. 1)" after rag_search and "(Cowan & Agol 2010,
p. 1)" after get_paper_content: a search hit named its paper by id and title only, so the reader's form
fell back to the id. A hit now carries a `PaperRef` (ids, title, first authors, year) and every tool
hands its passages on as `Passage` records, which the claim check reads. The real astro process, the
scripted model through the real litellm, the real PDF parsed into a real SQLite library.
"""

from __future__ import annotations

import pytest

from astro_cli.bootstrap import build_app
from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from tests.helpers import last_json
from tests.library_support import add_paper

HANDLE = "1001.0012:p1:c1"
ANSWER = f"Across 24 transiting exoplanets, low Bond albedos are favored (AB < 0.35 at 1σ confidence) [{HANDLE}]."
READS = {
    "rag_search": {"query": "low Bond albedos favored across 24 transiting exoplanets", "papers": ["1001.0012"]},
    "get_paper_content": {"id": "1001.0012", "section": "Abstract"},
}


@pytest.fixture
def library(workspace):
    app = build_app({"library.embedding_model": "off"}, workspace=workspace)
    try:
        add_paper(app, "1001.0012")
        parse_paper(Library.of(app), "1001.0012")
    finally:
        app.close()
    return workspace


@pytest.mark.parametrize("tool", list(READS))
def test_a_handle_reads_the_same_for_the_reader_after_either_tool(run_astro, fake, astro_env, library, tool):
    fake.add({"tool_calls": [{"name": tool, "arguments": READS[tool]}]}, {"text": ANSWER})
    result = run_astro(["run", "--output-format", "json", "What do hot Jupiter albedos look like?"], env=astro_env)
    assert result.returncode == 0, result.stderr
    obj = last_json(result.stdout)
    assert obj["answer"] == ANSWER  # the stored answer keeps the handle
    [claim] = obj["claims"]
    assert (claim["status"], claim["handle"], claim["reader"]) == ("supported", HANDLE, "Cowan & Agol 2010, p. 1")


def test_the_text_answer_after_rag_search_names_the_authors_not_the_id(run_astro, fake, astro_env, library):
    fake.add({"tool_calls": [{"name": "rag_search", "arguments": READS["rag_search"]}]}, {"text": ANSWER})
    result = run_astro(["run", "What do hot Jupiter albedos look like?"], env=astro_env)
    assert result.returncode == 0, result.stderr
    assert "(AB < 0.35 at 1σ confidence) (Cowan & Agol 2010, p. 1)." in result.stdout
    assert "(1001.0012, p. 1)" not in result.stdout
