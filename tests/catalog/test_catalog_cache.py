"""Issue 47: result caching (catalog/cache.py). The real `astro` process against the executing TAP
service of tests/adql_server.py, whose request log shows whether the service was asked again."""

from __future__ import annotations

import json

import pytest

from tests.adql_server import AdqlServer
from tests.gaia_field import gaia_table
from tests.helpers import tool_results

QUERY = "SELECT source_id, parallax FROM gaiadr3.gaia_source"


@pytest.fixture
def adql(tmp_path):
    server = AdqlServer(tmp_path / "tap")
    server.engine.add_table("gaiadr3.gaia_source", gaia_table([(132.8, 11.8), (132.801, 11.8)]))
    yield server
    server.close()


@pytest.fixture
def env(astro_env, catalog, adql):
    entries = catalog.config()
    entries["gaia"] = adql.service_entry("gaia")
    return {**astro_env, **catalog.env(), "ASTRO_CATALOG_SERVICES": json.dumps(entries),
            "ASTRO_CATALOG_CACHE_HOURS": "24"}  # the default; catalog.env() turns it off for the other tests


def test_the_same_query_is_answered_from_the_saved_table_and_said_so(run_astro, env, adql, workspace):
    first = run_astro(["catalog", "query", "gaia", QUERY, "--json"], env)
    assert first.returncode == 0, first.stderr
    saved = json.loads(first.stdout)["path"]
    again = run_astro(["catalog", "query", "gaia", QUERY], env)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("2 rows, 2 columns from ESA Gaia archive (gaia), answered from the cache: the "
                                   "same query was answered at ")
    assert f"saved in {saved}; the service was not asked again (fresh=true, or the command's --no-cache" \
        in again.stdout
    assert len(adql.queries()) == 1  # the service was asked once
    fresh = run_astro(["catalog", "query", "gaia", QUERY, "--no-cache"], env)
    assert fresh.returncode == 0 and "answered from the cache" not in fresh.stdout
    assert len(adql.queries()) == 2
    # A saved table the researcher edited is never taken for the service's answer.
    latest = sorted((workspace / "data").glob("gaia_gaia_source_*.ecsv"))[-1]
    latest.write_text(latest.read_text(encoding="utf-8").replace("1001", "9999"), encoding="utf-8")
    edited = run_astro(["catalog", "query", "gaia", QUERY, "--json"], env)
    assert edited.returncode == 0 and len(adql.queries()) == 3
    off = {**env, "ASTRO_CATALOG_CACHE_HOURS": "0"}
    assert run_astro(["catalog", "query", "gaia", QUERY], off).returncode == 0 and len(adql.queries()) == 4


def test_the_model_reuses_an_answer_and_fresh_asks_again(run_astro, fake, env, adql):
    call = {"name": "query_catalog", "arguments": {"service": "gaia", "adql": QUERY}}
    fresh = {"name": "query_catalog", "arguments": {"service": "gaia", "adql": QUERY, "fresh": True}}
    fake.add({"tool_calls": [call]}, {"tool_calls": [call]}, {"tool_calls": [fresh]}, {"text": "done"})
    result = run_astro(["run", "Parallaxes, three times."], env)
    assert result.returncode == 0, result.stderr
    seen = tool_results(fake.bodies()[3])
    assert "answered from the cache" not in seen[0] and "answered from the cache" in seen[1]
    assert "answered from the cache" not in seen[2]
    assert len(adql.queries()) == 2
