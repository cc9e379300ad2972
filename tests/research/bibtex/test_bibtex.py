"""BibTeX you can submit, on the recorded arXiv and ADS answers; every export is parsed back with
pybtex (a real BibTeX parser): all entries, all fields.

The defects (issue 14): without ADS, 1111.2011, whose arXiv record carries journal_ref "Phys. Rev.
B 85, 115117 (2012)" and DOI 10.1103/PhysRevB.85.115117, was exported as `journal = {arXiv
e-prints}`, `year = 2011`; `H$_2$O` became `H$\\_2$O`; names were split on spaces.
"""

from __future__ import annotations

import pybtex.database
import pytest

from astro_cli.bootstrap import build_app
from astro_cli.research.bibtex.export import export, from_metadata, split_entries
from astro_cli.research.library.service import Library
from astro_cli.research.sources import arxiv
from astro_cli.research.sources.web import Web
from tests import research_server
from tests.research_server import ADS_TOKEN, FIXTURES

research = research_server.research
research_app = research_server.research_app
ADS_EXPORT = (FIXTURES / "ads" / "export_bibtex_3bibcodes.export.txt").read_text()


def parse(text: str) -> pybtex.database.BibliographyData:
    return pybtex.database.parse_string(text, "bibtex")


def fields(entry) -> dict[str, str]:
    return {key.lower(): value for key, value in entry.fields.items()}


def people(entry) -> list[tuple[str, ...]]:
    """Each author as (last, first, middle, suffix), as BibTeX itself splits the name."""
    return [(" ".join(p.last_names), " ".join(p.first_names), " ".join(p.middle_names), " ".join(p.lineage_names))
            for p in entry.persons["author"]]


@pytest.fixture
def env(astro_env, research):
    return {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT)}  # no ADS_API_TOKEN


def test_without_ads_a_published_arxiv_paper_is_exported_as_the_published_article(cli, env):
    assert cli(["library", "add", "1111.2011", "--no-parse"], env=env).exit_code == 0
    result = cli(["library", "export", "--bibtex"], env=env)
    assert result.exit_code == 0, result.stderr
    assert "No ADS_API_TOKEN is set (`astro keys set ads` sets one)" in result.stderr
    bib = parse(result.stdout)
    assert list(bib.entries) == ["Murray2012_1111.2011"]
    entry = bib.entries["Murray2012_1111.2011"]
    assert entry.type == "article"
    assert fields(entry) == {
        "title": "{Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit}",
        "journal": "\\prb",  # ADS's AASTeX macro for Phys. Rev. B
        "year": "2012",
        "volume": "85",
        "eid": "115117",
        "pages": "115117",
        "doi": "10.1103/PhysRevB.85.115117",
        "archiveprefix": "arXiv",
        "eprint": "1111.2011",
        "primaryclass": "cond-mat.str-el",
        "url": "http://arxiv.org/abs/1111.2011v2",
    }
    assert people(entry) == [("{Murray}", "James", "M.", ""), ("{Del Maestro}", "Adrian", "", ""),
                             ("{Tesanovic}", "Zlatko", "", "")]


def test_an_old_style_journal_ref_gives_volume_pages_and_year(research_app):
    record = arxiv.fetch(Web.of(research_app), ["astro-ph/0601001"])[0]  # the recorded feed: "ActaAstron.56:1-50,2006"
    paper = Library.of(research_app).upsert_paper(record)
    bib = parse(from_metadata(paper))
    (key, entry), = bib.entries.items()
    assert key == "Gould2006_astro-ph0601001"
    assert fields(entry) == {
        "title": "{Frequency of Hot Jupiters and Very Hot Jupiters from the OGLE-III Transit Surveys Toward the "
                 "Galactic Bulge and Carina}",
        "journal": "\\actaa", "year": "2006", "volume": "56", "pages": "1-50",  # not arXiv's raw 'ActaAstron.'
        "archiveprefix": "arXiv", "eprint": "astro-ph/0601001", "primaryclass": "astro-ph",
        "url": "https://arxiv.org/abs/astro-ph/0601001v1",
    }
    assert [p[0] for p in people(entry)] == ["{Gould}", "{Dorsher}", "{Gaudi}", "{Udalski}"]
    assert people(entry)[2] == ("{Gaudi}", "B.", "Scott", "")


def test_a_preprint_without_a_published_version_stays_an_eprint():
    paper = {"id": "1001.0012", "arxiv_id": "1001.0012", "title": "The Statistics of Albedo", "year": 2010,
             "authors": ["Nicolas B. Cowan", "Eric Agol"], "primary_class": "astro-ph.EP"}
    entry = parse(from_metadata(paper)).entries["Cowan2010_1001.0012"]
    assert fields(entry) == {
        "title": "{The Statistics of Albedo}", "journal": "arXiv e-prints", "year": "2010",
        "eid": "arXiv:1001.0012", "pages": "arXiv:1001.0012", "archiveprefix": "arXiv", "eprint": "1001.0012",
        "primaryclass": "astro-ph.EP", "url": "https://arxiv.org/abs/1001.0012",
    }


def test_math_stays_math_capitals_survive_and_names_are_parsed():
    paper = {
        "arxiv_id": "2401.00001", "year": 2024,
        "title": "H$_2$O & CO$_2$ in WASP-39b: 5% of the MCMC {\\it JWST} budget at z>6",
        "authors": ["Robert C. Kennicutt Jr.", "Gaia Collaboration", "Floor van Leeuwen", "Tešanović, Zlatko"],
    }
    text = from_metadata(paper)
    assert "H$_2$O \\& CO$_2$ in WASP-39b: 5\\% of the MCMC {\\it JWST} budget at z$>$6" in text
    entry = parse(text).entries["Kennicutt2024_2401.00001"]  # the key uses the real surname
    # The title is braced whole (as ADS does), so no style lowercases MCMC, JWST or WASP.
    assert fields(entry)["title"] == "{H$_2$O \\& CO$_2$ in WASP-39b: 5\\% of the MCMC {\\it JWST} budget at z$>$6}"
    assert people(entry) == [
        ("{Kennicutt}", "Robert", "C.", "Jr."),
        ("{Gaia Collaboration}", "", "", ""),
        ("{van Leeuwen}", "Floor", "", ""),
        ("{Te{\\v{s}}anovi{\\'c}}", "Zlatko", "", ""),
    ]


def test_with_ads_its_entries_are_kept_byte_for_byte_and_a_missing_bibcode_falls_back(research_app, monkeypatch):
    library = Library.of(research_app)
    gaia = library.upsert_paper({"bibcode": "2020A&A...642C...1G", "title": "Gaia DR2 kinematics (Corrigendum)",
                                 "authors": ["Gaia Collaboration"], "year": 2020})
    emcee = library.upsert_paper({"arxiv_id": "1202.3665", "bibcode": "2013PASP..125..306F",
                                  "doi": "10.1086/670067", "title": "emcee: The MCMC Hammer",
                                  "authors": ["Foreman-Mackey, Daniel", "Hogg, David W."], "year": 2012,
                                  "journal": "Publications of the Astronomical Society of the Pacific",
                                  "volume": "125", "page": "306", "pub_year": 2013})
    elm = library.upsert_paper({"bibcode": "2019MNRAS.488.2892P", "title": "ELM"})
    text, notes = export(Library.of(research_app), [elm, emcee, gaia])
    recorded = {e.split("{", 1)[1].split(",", 1)[0]: e for e in split_entries(ADS_EXPORT)}
    entries = split_entries(text)
    # The order asked for; ADS's two entries exactly as ADS wrote them; emcee (not in the export) rebuilt.
    assert entries[0] == recorded["2019MNRAS.488.2892P"] and entries[2] == recorded["2020A&A...642C...1G"]
    assert notes == ["NASA ADS sent no entry for 2013PASP..125..306F; its entry was built from the stored metadata."]
    bib = parse(text)
    assert list(bib.entries) == ["2019MNRAS.488.2892P", "2013PASP..125..306F", "2020A&A...642C...1G"]
    assert fields(bib.entries["2013PASP..125..306F"]) == {
        "title": "{emcee: The MCMC Hammer}", "journal": "\\pasp",
        "year": "2013", "volume": "125", "pages": "306", "doi": "10.1086/670067", "archiveprefix": "arXiv",
        "eprint": "1202.3665", "url": "https://arxiv.org/abs/1202.3665",
        "adsurl": "https://ui.adsabs.harvard.edu/abs/2013PASP..125..306F",
    }
    assert fields(bib.entries["2019MNRAS.488.2892P"]) == {
        "title": "{Gaia Data Release 2 catalogue of extremely low-mass white dwarf candidates}",
        "journal": "\\mnras",
        "keywords": "catalogues, surveys, binaries: close, white dwarfs, Astrophysics - Solar and Stellar Astrophysics",
        "year": "2019", "month": "September", "volume": "488", "number": "2", "pages": "2892-2903",
        "doi": "10.1093/mnras/stz1876", "archiveprefix": "arXiv", "eprint": "1907.03766",
        "primaryclass": "astro-ph.SR", "adsurl": "https://ui.adsabs.harvard.edu/abs/2019MNRAS.488.2892P",
        "adsnote": "Provided by the SAO/NASA Astrophysics Data System",
    }
    assert people(bib.entries["2020A&A...642C...1G"])[:2] == [("{Gaia Collaboration}", "", "", ""),
                                                              ("{Helmi}", "A.", "", "")]


def test_ads_failing_gives_metadata_entries_and_says_why(research_app, research):
    research.fail("/v1/export", 503)
    paper = Library.of(research_app).upsert_paper({"bibcode": "2019MNRAS.488.2892P", "title": "ELM white dwarfs",
                                                "authors": ["Pelisoli, Ingrid", "Vos, Joris"], "year": 2019})
    text, notes = export(Library.of(research_app), [paper])
    assert "NASA ADS answered HTTP 503" in notes[0] and "built from the stored metadata" in notes[0]
    entry = parse(text).entries["2019MNRAS.488.2892P"]
    assert entry.type == "article" and people(entry) == [("{Pelisoli}", "Ingrid", "", ""), ("{Vos}", "Joris", "", "")]
    # The bibcode itself says where the paper appeared: MNRAS 488, 2892.
    assert fields(entry) == {"title": "{ELM white dwarfs}", "journal": "\\mnras", "year": "2019", "volume": "488",
                             "pages": "2892", "adsurl": "https://ui.adsabs.harvard.edu/abs/2019MNRAS.488.2892P"}


def test_the_ads_token_is_used_for_the_export(cli, env, workspace, research):
    app = build_app(workspace=workspace)
    try:
        Library.of(app).upsert_paper({"bibcode": "2020A&A...642C...1G", "title": "t"})
    finally:
        app.close()
    result = cli(["library", "export", "--bibtex"], env={**env, "ADS_API_TOKEN": ADS_TOKEN})
    assert result.exit_code == 0, result.stderr
    assert result.stdout == dict((e.split("{", 1)[1].split(",", 1)[0], e) for e in split_entries(ADS_EXPORT))[
        "2020A&A...642C...1G"] + "\n"
    assert research.hits("/v1/export/bibtex")[0].headers["Authorization"] == f"Bearer {ADS_TOKEN}"
