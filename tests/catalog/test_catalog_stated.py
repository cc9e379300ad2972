"""Issue 47: a TAP service's own limits and examples (catalog/stated.py), read from the service.

The real `astro` process against tests/adql_server.py (which executes the ADQL), serving real-shaped
/capabilities and /examples documents (tests/tap_documents.py says where they come from).
"""

from __future__ import annotations

import json

import pytest

from tests.adql_server import AdqlServer
from tests.gaia_field import gaia_table
from tests.helpers import tool_results
from tests.tap_documents import capabilities, examples

QUERY = "SELECT source_id, parallax FROM gaiadr3.gaia_source"


@pytest.fixture
def adql(tmp_path):
    server = AdqlServer(tmp_path / "tap")
    server.engine.add_table("gaiadr3.gaia_source", gaia_table([(132.8 + i * 1e-3, 11.8) for i in range(50)]))
    yield server
    server.close()


@pytest.fixture
def env(astro_env, catalog, adql):
    entries = catalog.config()
    entries["gaia"] = adql.service_entry("gaia")
    return {**astro_env, **catalog.env(), "ASTRO_CATALOG_SERVICES": json.dumps(entries)}


def test_the_services_stated_hard_limit_replaces_astros_and_is_said(run_astro, env, adql):
    adql.capabilities = capabilities(default=10, hard=20)
    result = run_astro(["catalog", "query", "gaia", QUERY, "--save-as", "capped"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("20 rows, 2 columns from ESA Gaia archive (gaia)")
    assert "TOP 20 " in adql.queries()[0]  # asked for no more than the service gives (config: 10,000)
    assert "The service's own hard limit (20 rows, stated in its /capabilities) may have cut this result" \
        in result.stdout
    more = run_astro(["catalog", "query", "gaia", QUERY, "--max-rows", "100"], env)
    assert more.returncode == 1 and "Traceback" not in more.stderr
    assert "max_rows must be between 1 and 20: ESA Gaia archive (gaia) states a hard limit of 20 rows (its " \
           "/capabilities)" in more.stderr
    assert len(adql.queries()) == 1  # refused before it was sent
    adql.capabilities = None  # a service stating nothing keeps astro's limits
    plain = run_astro(["catalog", "query", "gaia", QUERY, "--json"], env)
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["rows"] == 50


def test_the_services_examples_are_listed_for_the_researcher_and_the_model(run_astro, fake, env, adql):
    adql.examples = examples()
    listed = run_astro(["catalog", "tables", "gaia", "--examples"], env)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == "5 example queries from ESA Gaia archive (gaia), written by its authors:"
    assert lines[1] == "1. Simple geometric query on rosmaster with circle and point"
    assert lines[2].startswith("   SELECT * FROM rosmaster WHERE exposure > 10000 and 1=CONTAINS(POINT('ICRS', ra")
    fake.add({"tool_calls": [{"name": "catalog_tables", "arguments": {"service": "gaia", "examples": True}}]},
             {"text": "seen"})
    result = run_astro(["run", "Which queries does the service suggest?"], env)
    assert result.returncode == 0, result.stderr
    assert tool_results(fake.bodies()[1])[-1] == listed.stdout.rstrip("\n")
    adql.examples = None
    none = run_astro(["catalog", "tables", "gaia", "--examples"], env)
    assert none.returncode == 0 and none.stdout.strip() == "ESA Gaia archive (gaia) lists no example queries."
