"""Issue 47, catalogues round two: the real `astro` process against the TAP stand-ins on 127.0.0.1
(tests/catalog_server.py, whose /sync rejects ADQL a real parser would, so a mangled query fails).
"""

from __future__ import annotations

import json

import pytest

from tests.catalog_server import GAIA_STAR
from tests.helpers import last_json, tool_results
from tests.research_server import simbad_error_votable


@pytest.fixture
def env(astro_env, catalog):
    return {**astro_env, **catalog.env()}


def test_a_double_dash_inside_a_string_literal_is_sent_as_text(run_astro, env, catalog):
    adql = (f"SELECT source_id, designation FROM gaiadr3.gaia_source WHERE designation = 'Gaia DR3 --x' "
            f"OR designation = '{GAIA_STAR}' -- the recorded star\n")
    result = run_astro(["catalog", "query", "gaia", adql, "--json"], env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["rows"] == 1
    sent = catalog.queries("gaia")[0]
    assert "designation = 'Gaia DR3 --x' OR" in sent and "the recorded star" not in sent


def call(**arguments):
    return {"tool_calls": [{"name": "query_catalog", "arguments": arguments}]}


def test_each_service_has_its_own_retry_budget_and_a_success_resets_it(run_astro, fake, env, catalog):
    message = "Incorrect ADQL query: column 'paralax' does not exist"
    for _ in range(4):
        catalog.answer("gaia", simbad_error_votable(message), status=400, when="paralax")
    bad = call(service="gaia", adql="SELECT paralax FROM gaiadr3.gaia_source")
    good = call(service="gaia", adql=f"SELECT parallax FROM gaiadr3.gaia_source WHERE designation = '{GAIA_STAR}'")
    fake.add(bad, good, bad, call(service="irsa", target="10.6847 41.2687", radius="30arcsec"), good,
             bad, bad, bad, call(service="ned", adql="SELECT * FROM NEDTAP.objdir WHERE prefname = 'MESSIER 001'"),
             {"text": "done"})
    result = run_astro(["run", "--output-format", "json", "Parallaxes, 2MASS and NED, please."], env)
    assert result.returncode == 0, result.stderr
    seen = [tool_results(fake.bodies()[i])[-1] for i in range(1, 10)]
    assert seen[0].endswith("Correct the ADQL and try once more.")
    assert seen[1].startswith("1 rows, 152 columns from ESA Gaia archive (gaia)")  # the corrected query ran
    assert seen[2].endswith("Correct the ADQL and try once more.")  # the success reset gaia's budget
    assert " from NASA/IPAC" in seen[3].split(";")[0]  # irsa was never blocked by gaia's rejections
    assert seen[4].startswith("1 rows, 152 columns from ESA Gaia archive (gaia)")
    assert seen[5].endswith("Correct the ADQL and try once more.")
    assert seen[6].endswith("Do not retry on this service this turn; tell the researcher.")
    assert seen[7].startswith("Error: ESA Gaia archive (gaia) rejected two queries in a row this turn")
    assert "from NASA/IPAC Extragalactic Database (ned)" in seen[8]  # another service still answers
    assert len(catalog.queries("gaia")) == 6 and len(catalog.queries("irsa")) == 1
    assert last_json(result.stdout)["answer"] == "done"
