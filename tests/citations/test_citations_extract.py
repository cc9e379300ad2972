"""Finding what an answer cites, and what a session's tools returned: no prose taken for a citation,
no identifier missed in the shapes answers write them in."""

from __future__ import annotations

from astro_cli.citations.author_year import matches_author_year
from astro_cli.citations.extract import find_citations
from astro_cli.citations.ledger import CitationLedger


def kinds(text: str) -> list[tuple[str, str]]:
    return [(c.kind, c.ident) for c in find_citations(text)]


def test_identifiers_in_the_shapes_answers_use():
    text = (
        "Winds (2021NewA...8301491M), the Gaia corrigendum 2020A&A...642C...1G, emcee at "
        "https://ui.adsabs.harvard.edu/abs/2013PASP..125..306F/abstract and arXiv:1202.3665v3 "
        "(doi:10.1086/670067), https://arxiv.org/abs/1001.0012, astro-ph/0601001v1, plain 2401.12345, "
        "10.48550/arXiv.1111.2011 and https://doi.org/10.1103/PhysRevB.85.115117."
    )
    assert kinds(text) == [
        ("bibcode", "2021NewA...8301491M"), ("bibcode", "2020A&A...642C...1G"), ("bibcode", "2013PASP..125..306F"),
        ("arxiv", "1202.3665"), ("doi", "10.1086/670067"), ("arxiv", "1001.0012"), ("arxiv", "astro-ph/0601001"),
        ("arxiv", "2401.12345"), ("arxiv", "1111.2011"), ("doi", "10.1103/PhysRevB.85.115117"),
    ]


def test_prose_is_not_taken_for_citations():
    text = ("H-alpha at 6563.2800 A; in 2013 the Planck 2018 results; Table 2 (2019); March (2014); version 0612.1234 "
            "(before arXiv's new ids); JWST (2022); an eprint 2012arXiv1202.3665F is one bibcode, not two ids.")
    assert kinds(text) == [("bibcode", "2012arXiv1202.3665F")]


def test_author_year_citations():
    text = ("Foreman-Mackey et al. (2013) follow Goodman & Weare (2010); hot Jupiters (Cowan & Agol 2011; e.g., "
            "Gould 2006), Hubble (1929), van Leeuwen et al. 2009, Tešanović and Murray, 2012, "
            "Gaia Collaboration et al. (2018), Smith et al. 2019a.")
    found = [(c.ident, c.surnames, c.year) for c in find_citations(text)]
    assert found == [
        ("Foreman-Mackey et al. 2013", ("Foreman-Mackey",), 2013), ("Goodman & Weare 2010", ("Goodman", "Weare"), 2010),
        ("Cowan & Agol 2011", ("Cowan", "Agol"), 2011), ("Gould 2006", ("Gould",), 2006),
        ("Hubble 1929", ("Hubble",), 1929), ("van Leeuwen et al. 2009", ("van Leeuwen",), 2009),
        ("Tešanović & Murray 2012", ("Tešanović", "Murray"), 2012),
        ("Gaia Collaboration et al. 2018", ("Gaia Collaboration",), 2018), ("Smith et al. 2019", ("Smith",), 2019),
    ]


def test_author_year_matching_allows_the_arxiv_to_journal_year_and_needs_the_authors():
    cited = find_citations("Cowan & Agol (2011)")[0]
    paper = {"authors": ["Nicolas B. Cowan", "Eric Agol"], "year": 2010}
    assert matches_author_year(cited, paper) == 1  # posted 2010, published 2011
    assert matches_author_year(cited, {**paper, "year": 2008}) is None
    assert matches_author_year(cited, {**paper, "authors": ["Nicolas B. Cowan", "Someone Else"]}) is None
    van = find_citations("van Leeuwen et al. 2009")[0]
    assert matches_author_year(van, {"authors": ["van Leeuwen, F."], "year": 2009}) == 0
    accent = find_citations("Tesanovic & Murray (2012)")[0]
    assert matches_author_year(accent, {"authors": ["Zlatko Tešanović", "James M. Murray"], "pub_year": 2012}) == 0


def test_the_ledger_counts_returned_records_only_never_ids_inside_text():
    """Issue 28: arXiv:1011.0428 was 'verified' because it stood in a reference list rag_search returned."""
    ledger = CitationLedger()
    ledger.ingest("search_papers", {"query": "2019ApJ...999..123Z"}, "No papers found for: 2019ApJ...999..123Z",
                  {"sources": []}, True)
    ledger.ingest("download_paper", {"id": "2401.99999"}, "arXiv has no file at /pdf/2401.99999.", None, False)
    ledger.ingest("read_file", {"path": "refs.bib"}, "@ARTICLE{x, eprint = {1202.3665}, doi = {10.1086/670067}}",
                  None, True)
    ledger.ingest("subagent", {"task": "find"}, "I found 2011ApJ...729...54C (trust me).", None, True)
    ledger.ingest("search_papers", {"query": "star"}, "[1] bibcode 2021NewA...8301491M",
                  {"sources": [{"id": "2008.07401", "bibcode": "2021NewA...8301491M", "arxiv_id": "2008.07401",
                                "title": "Dynamics", "authors": ["Mageshwaran, T."], "year": 2021}]}, True)
    assert ledger.find("2019ApJ...999..123Z") is None  # only the echo of the query
    assert ledger.find("2401.99999") is None  # only an error
    assert ledger.find("2011ApJ...729...54C") is None  # a model's answer, not a tool's output
    ledger.ingest("rag_search", {"query": "albedo"}, "<paper-text source=\"1001.0012\" section=\"References\">"
                  "Cowan, N. B., & Agol, E. 2011, ApJ, 729, 54 (arXiv:1011.0428)</paper-text>",
                  {"sources": [{"id": "1001.0012", "arxiv_id": "1001.0012"}]}, True)
    ledger.ingest("save_note", {"title": "n", "content": "see 2013PASP..125..306F"}, "Created notes/n.md", None, True)
    # Inside text (a .bib file, a reference list, a note): no record, so nothing is verified by it.
    assert ledger.find("arXiv:1202.3665v2") is None and ledger.find("DOI:10.1086/670067") is None
    assert ledger.find("1011.0428") is None and ledger.find("2013PASP..125..306F") is None
    assert ledger.find("1001.0012") is not None
    seen = ledger.find("arXiv:2008.07401")
    assert seen is not None and seen.title == "Dynamics" and seen is ledger.find("2021NewA...8301491M")
