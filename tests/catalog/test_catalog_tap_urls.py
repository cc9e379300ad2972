"""Issue 47: a TAP URL used on the spot, after the researcher allows it once (catalog/allowed.py).

The real `astro` process (and the real REPL) against the TAP service of tests/adql_server.py, which
executes the ADQL: the service is named only by its URL, never in config 'catalog.services'.
"""

from __future__ import annotations

import json

import pytest

from tests.adql_server import AdqlServer
from tests.gaia_field import gaia_table
from tests.helpers import tool_results

CENTRE = (132.8, 11.8)
QUERY = "SELECT source_id, parallax FROM gaiadr3.gaia_source"
CTRL_D = "\x04"


@pytest.fixture
def adql(tmp_path):
    server = AdqlServer(tmp_path / "tap")
    server.engine.add_table("gaiadr3.gaia_source", gaia_table([CENTRE]))
    yield server
    server.close()


@pytest.fixture
def astro_env(astro_env, catalog):
    """SIMBAD and the known services at the stand-ins; the URL under test is in no config."""
    return {**astro_env, **catalog.env()}


def url_of(adql: AdqlServer) -> str:
    return f"{adql.url}/anytap"


def user_config(astro_env: dict[str, str]) -> str:
    from pathlib import Path

    path = Path(astro_env["ASTRO_HOME"]) / "config.yaml"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_tap_url_is_used_after_the_researcher_allows_it_once_and_is_listed(run_astro, astro_env, adql):
    url = url_of(adql)
    refused = run_astro(["catalog", "query", url, QUERY], astro_env)
    assert refused.returncode == 2, refused.stdout
    assert f"{url} is not an allowed TAP service yet; allow it once with `astro catalog allow {url}`" in refused.stderr
    assert "Traceback" not in refused.stderr and adql.queries() == []  # nothing was sent
    allowed = run_astro(["catalog", "query", url + "/", QUERY, "--allow-url", "--json"], astro_env)
    assert allowed.returncode == 0, allowed.stderr
    assert f"Allowed {url} (config catalog.allowed_urls" in allowed.stderr
    payload = json.loads(allowed.stdout)
    assert payload["rows"] == 1 and payload["url"] == url
    assert url in user_config(astro_env)  # remembered in the user's own config
    again = run_astro(["catalog", "query", url, QUERY], astro_env)  # no flag, no question: allowed once
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"1 rows, 2 columns from the TAP service at {url} (127_0_0_1)")
    assert len(adql.queries()) == 2
    listed = run_astro(["catalog", "services"], astro_env)
    assert f"TAP URLs you allowed (config catalog.allowed_urls; give one in place of a service's name):\n  {url}" \
        in listed.stdout
    doctor = run_astro(["doctor", "--json"], astro_env)
    lines = [check["line"] for check in json.loads(doctor.stdout)["checks"]]
    assert any(url in line and "TAP URL(s) you allowed" in line for line in lines), lines
    for bad, said in (("ftp://example.org/tap", "is not a TAP URL astro can use: give an http:// or https://"),
                      ("https://example.org/tap?x=1", "has a query or fragment")):
        result = run_astro(["catalog", "allow", bad], astro_env)
        assert result.returncode == 2 and said in result.stderr and "Traceback" not in result.stderr


def call(**arguments):
    return {"tool_calls": [{"name": "query_catalog", "arguments": arguments}]}


def test_the_model_cannot_allow_a_url_itself_nor_can_an_untrusted_project(run_astro, fake, astro_env, adql,
                                                                           workspace):
    url = url_of(adql)
    (workspace / ".astro").mkdir(exist_ok=True)
    (workspace / ".astro" / "config.yaml").write_text(f"catalog.allowed_urls: ['{url}']\n", encoding="utf-8")
    fake.add(call(service=url, adql=QUERY), {"text": "refused"})
    # --yes pre-approves every tool, and still not a URL the researcher never allowed.
    result = run_astro(["run", "--yes", "--allow", "query_catalog", "Parallaxes from that service."], astro_env)
    assert result.returncode == 0, result.stderr
    seen = tool_results(fake.bodies()[1])[-1]
    assert f"query_catalog would send a query to {url}, a TAP URL the researcher has not allowed; that is never " \
           "pre-approved" in seen
    assert adql.queries() == [] and url not in user_config(astro_env)


def test_at_the_repl_the_researchers_yes_allows_the_url_for_later_runs(repl, fake, run_astro, astro_env, adql):
    url = url_of(adql)
    fake.add(call(service=url, adql=QUERY), {"text": "one star"})
    printed = repl.type_and_run(f"Parallaxes from {url}\ry\r{CTRL_D}")
    assert "one star" in printed
    seen = tool_results(fake.bodies()[1])[-1]
    assert seen.startswith(f"1 rows, 2 columns from the TAP service at {url}")
    assert f"The researcher allowed {url}; it is remembered in their config" in seen
    assert url in user_config(astro_env)
    # A later run (no REPL, nothing pre-approved) may use it: the researcher allowed it once.
    fake.add(call(service=url, adql=QUERY), {"text": "again"})
    result = run_astro(["run", "Parallaxes again."], astro_env)
    assert result.returncode == 0, result.stderr
    assert tool_results(fake.bodies()[-1])[-1].startswith("1 rows, 2 columns from the TAP service at")
    assert len(adql.queries()) == 2
