"""Issue 33 end to end: the real `astro` process, the scripted model through the real litellm, SIMBAD
and the TAP services as stand-ins on 127.0.0.1 serving recorded answers (tests/catalog_server.py).

The model's words are scripted; what is tested is what astro does around them: the question's
numbers reach the model from the recorded catalogue answer, the file is written to data/, the
catalogue's bibcode is a verified source of the answer and joins the session's BibTeX.
"""

from __future__ import annotations

import pytest

from tests.catalog_server import GAIA_STAR, fixture
from tests.helpers import last_json, tool_results
from tests.research_server import simbad_error_votable

GAIA_DR3 = "2023A&A...674A...1G"
TWOMASS = "2006AJ....131.1163S"


@pytest.fixture
def env(astro_env, catalog):
    return {**astro_env, **catalog.env()}


def call(**arguments):
    return {"tool_calls": [{"name": "query_catalog", "arguments": arguments}]}


@pytest.mark.slow
def test_gaia_dr3_parallax_of_a_named_star(run_astro, fake, env, catalog, workspace):
    answer = (f"Gaia DR3 gives {GAIA_STAR} a parallax of 2.303 ± 0.033 mas (Gaia Collaboration 2023, {GAIA_DR3}). "
              "That puts it about 434 pc away (computed).")
    fake.add(call(service="gaia", target=GAIA_STAR, radius="5arcsec", save_as="star_gaia"), {"text": answer})
    result = run_astro(["run", "--output-format", "json", f"What is the Gaia DR3 parallax of {GAIA_STAR}?"], env)
    assert result.returncode == 0, result.stderr
    seen = tool_results(fake.bodies()[1])[0]
    assert "parallax [mas]: 2.303409" in seen and "parallax_error [mas]: 0.03333763" in seen
    assert f"Cite: Gaia DR3 ({GAIA_DR3})" in seen and "written to data/star_gaia.ecsv" in seen
    assert len(seen) < 6000  # the summary, not the 152-column table
    obj = last_json(result.stdout)
    assert obj["answer"] == answer
    assert [(c["id"], c["status"]) for c in obj["citations"]] == [("Gaia Collaboration 2023", "verified"),
                                                                  (GAIA_DR3, "verified")]
    assert obj["claims"] and all(c["status"] == "supported" for c in obj["claims"])
    from astropy.table import Table

    table = Table.read(workspace / "data" / "star_gaia.ecsv")
    assert table["parallax"][0] == pytest.approx(2.3034093) and table.meta["service"] == "gaia"
    assert f"ident.id = '{GAIA_STAR}'" in catalog.queries("simbad")[0]
    cite = run_astro(["sessions", "cite", obj["session_id"]], env)
    assert cite.returncode == 0, cite.stderr
    assert GAIA_DR3 in cite.stdout and "Gaia Data Release 3" in cite.stdout and "2023" in cite.stdout


@pytest.mark.slow
def test_2mass_sources_within_30_arcsec(run_astro, fake, env, catalog, workspace):
    answer = (f"2MASS lists one source, 2MASS J00424433+4116085 (J = 9.453, H = 8.668, Ks = 8.475), at "
              f"M 31's centre (Skrutskie et al. 2006, {TWOMASS}).")
    fake.add(call(service="irsa", target="M 31", radius="30arcsec"), {"text": answer})
    result = run_astro(["run", "--output-format", "json", "Which 2MASS sources lie within 30 arcsec of M 31?"], env)
    assert result.returncode == 0, result.stderr
    seen = tool_results(fake.bodies()[1])[0]
    for fact in ("designation: 00424433+4116085", "j_m [mag]: 9.453", "h_m [mag]: 8.668", "k_m [mag]: 8.475",
                 f"Cite: 2MASS ({TWOMASS})", "radius 30 arcsec"):
        assert fact in seen, fact
    obj = last_json(result.stdout)
    assert [(c["id"], c["status"]) for c in obj["citations"]] == [("Skrutskie et al. 2006", "verified"),
                                                                  (TWOMASS, "verified")]
    assert obj["claims"] and all(c["status"] == "supported" for c in obj["claims"])
    assert len(list((workspace / "data").glob("irsa_fp_psc_*.ecsv"))) == 1


def test_more_rows_than_the_limit_need_the_researchers_permission(cli, fake, env, catalog):
    fake.add(call(service="gaia", adql="SELECT source_id FROM gaiadr3.gaia_source", max_rows=50000),
             {"text": "I could not get that many rows."})
    result = cli(["run", "All Gaia sources, please."], env=env)
    assert result.exit_code == 0
    seen = tool_results(fake.bodies()[1])[0]
    assert "query_catalog needs permission and none was given" in seen
    assert catalog.hits == []  # nothing was sent
    fake.add(call(service="gaia", adql="SELECT source_id FROM gaiadr3.gaia_source", max_rows=50000),
             {"text": "done"})
    result = cli(["run", "--allow", "query_catalog", "All Gaia sources, please."], env=env)
    assert "TOP 50000" in catalog.queries("gaia")[0]


def test_rejected_adql_comes_back_in_the_services_words_and_may_be_retried_once(cli, fake, env, catalog):
    message = "Incorrect ADQL query: column 'paralax' does not exist"
    catalog.answer("gaia", simbad_error_votable(message), status=400)
    catalog.answer("gaia", simbad_error_votable(message), status=400)
    bad = call(service="gaia", adql="SELECT paralax FROM gaiadr3.gaia_source")
    fake.add(bad, bad, bad, {"text": "The archive rejected the query."})
    result = cli(["run", "Parallaxes?"], env=env)
    assert result.exit_code == 0
    first, second, third = (tool_results(fake.bodies()[i])[-1] for i in (1, 2, 3))
    assert first == (f"Error: ESA Gaia archive (gaia) rejected the query: {message}. Correct the ADQL and try once "
                     "more.")
    assert second.endswith("Do not retry on this service this turn; tell the researcher.")
    assert third.startswith("Error: ESA Gaia archive (gaia) rejected two queries in a row this turn")
    assert len(catalog.queries("gaia")) == 2


def test_a_catalogue_claim_with_a_number_the_catalogue_did_not_give_is_flagged(cli, fake, env):
    wrong = f"Gaia DR3 gives {GAIA_STAR} a parallax of 3.1 mas ({GAIA_DR3})."
    right = f"Gaia DR3 gives {GAIA_STAR} a parallax of 2.303 mas ({GAIA_DR3})."
    fake.add(call(service="gaia", target=GAIA_STAR, radius="5arcsec"), {"text": wrong}, {"text": right})
    result = cli(["run", "--output-format", "json", f"Gaia DR3 parallax of {GAIA_STAR}?"], env=env)
    assert result.exit_code == 0, result.stderr
    nudge = [m["content"] for m in fake.bodies()[2]["messages"] if m["role"] == "user"][-2]
    assert nudge.startswith("Claim check: 1 claim in your answer") and "3.1 mas" in nudge
    obj = last_json(result.stdout)
    assert obj["answer"] == right and [c["status"] for c in obj["claims"]] == ["supported"]


@pytest.mark.slow
def test_at_the_repl_the_researcher_is_asked_before_more_rows_than_the_limit(fake, env, catalog, workspace):
    pytest.importorskip("pexpect")
    from tests.ui.test_repl import PROMPT, quit_with_ctrl_d, spawn

    catalog.answer("gaia", fixture("tap_overflow_status.xml"))
    big = call(service="gaia", adql="SELECT source_id FROM gaiadr3.gaia_source", max_rows=50000)
    fake.add(big, {"text": "Here they are."})
    child = spawn(env, workspace)
    child.sendline("all the sources, please")
    child.expect("permission needed: query_catalog")
    child.expect("max_rows: 50000")
    child.expect_exact("allow? [y]es / [n]o / [a]lways for this session: ")
    child.sendline("y")
    child.expect("Here they are")
    child.expect(PROMPT)
    assert quit_with_ctrl_d(child) == 0
    assert catalog.queries("gaia") == ["SELECT TOP 50000 source_id FROM gaiadr3.gaia_source"]


def test_plot_table_reads_what_query_catalog_writes_masks_and_units_included(cli, fake, env, workspace):
    fake.add(call(service="vizier", adql='SELECT * FROM "J/ApJ/706/83/ysos"', save_as="w51_ysos"),
             {"tool_calls": [{"name": "plot_table", "arguments": {
                 "table": "data/w51_ysos.ecsv", "kind": "cmd", "x": "Jmag - Ksmag", "y": "Ksmag"}}]},
             {"text": "The CMD is in figures/w51_ysos-cmd.png."})
    result = cli(["run", "--allow", "plot_table", "CMD of the W51 YSOs from VizieR"], env=env)
    assert result.exit_code == 0, result.stderr
    told = tool_results(fake.bodies()[2])[-1]
    assert "x: Jmag - Ksmag [mag]; y: Ksmag [mag]" in told
    assert "Plotted 13 of 50 rows; 37 skipped" in told and "Jmag 37 masked" in told  # the masks survived ECSV
    assert (workspace / "figures" / "w51_ysos-cmd.png").exists()
