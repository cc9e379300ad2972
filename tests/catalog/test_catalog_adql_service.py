"""Issue 47: the real `astro` process against a TAP service that executes ADQL (tests/adql_server.py:
a real ADQL parser, queryparser, over SQLite), not a replay: a query that selects the wrong rows, or
that the service cannot run, fails the test.

SIMBAD is still the stand-in of tests/catalog_server.py (name resolution is not what is tested here).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import numpy as np
import pytest

from tests.adql_server import AdqlServer
from tests.gaia_field import crossmatch_field, gaia_table, offset

CENTRE = (132.8, 11.8)  # M 67's field, where bench_catalog.gaia_like puts its sources


@pytest.fixture
def adql(tmp_path):
    server = AdqlServer(tmp_path / "tap")
    yield server
    server.close()


@pytest.fixture
def env(astro_env, catalog, adql):
    entries = catalog.config()
    entries["gaia"] = adql.service_entry("gaia")
    return {**astro_env, **catalog.env(), "ASTRO_CATALOG_SERVICES": json.dumps(entries)}


def test_a_cone_returns_the_rows_inside_it_nearest_first_and_no_others(run_astro, env, adql, workspace):
    from astropy.table import Table

    distances = [4.0, 1.0, 5.5, 2.5, 30.0, 4.9]  # arcsec from the centre; a 5" cone holds four of them
    points = [offset(*CENTRE, d, 37.0 * i) for i, d in enumerate(distances)]
    adql.engine.add_table("gaiadr3.gaia_source", gaia_table(points))
    result = run_astro(["catalog", "cone", "gaia", f"{CENTRE[0]} {CENTRE[1]}", "--radius", "5arcsec", "--json",
                        "--save-as", "field"], env)
    assert result.returncode == 0, result.stderr
    table = Table.read(workspace / json.loads(result.stdout)["path"])
    assert list(table["source_id"]) == [1001, 1003, 1000, 1005]  # 1.0", 2.5", 4.0", 4.9"; not 5.5" nor 30"
    assert np.allclose(table["dist_arcsec"], [1.0, 2.5, 4.0, 4.9], atol=1e-6)
    assert table["parallax"].unit == "mas"
    assert "CONTAINS(POINT('ICRS', ra, dec), CIRCLE('ICRS'" in adql.queries()[0]


def test_a_fast_star_is_found_where_gaia_saw_it_by_a_query_that_runs(run_astro, env, adql):
    """SIMBAD's J2000 position of the fast star is 2.8' from its J2016.0 one: a Gaia-like row at each."""
    import io

    from astropy.table import Table

    from tests.catalog_server import fast_star_j2000, gaia_rows

    recorded = Table.read(io.BytesIO(gaia_rows("")), format="votable")[0]
    then = fast_star_j2000()[:2]
    adql.engine.add_table("gaiadr3.gaia_source", gaia_table([(float(recorded["ra"]), float(recorded["dec"])), then]))
    result = run_astro(["catalog", "cone", "gaia", "Barnard's Star", "--radius", "5arcsec", "--json"], env)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["rows"] == 1  # the row at J2016.0 (1000), not the decoy at SIMBAD's J2000 position


def test_wrong_adql_is_the_services_own_error_and_tap_schema_lists_the_tables(run_astro, env, adql):
    adql.engine.add_table("gaiadr3.gaia_source", gaia_table([CENTRE]))
    for query, said in (("SELECT paralax FROM gaiadr3.gaia_source", "no such column: paralax"),
                        ("SELECT parallax FROM gaiadr3.gaia_sourc", "no such table: gaiadr3.gaia_sourc"),
                        ("SELECT parallax FROM gaiadr3.gaia_source WHERE", "syntax error at line 1")):
        result = run_astro(["catalog", "query", "gaia", query], env)
        assert result.returncode == 1, result.stdout
        assert f"ESA Gaia archive (gaia) rejected the query: Incorrect ADQL query: {said}" in result.stderr
        assert "Traceback" not in result.stderr
    listed = run_astro(["catalog", "query", "gaia", "SELECT table_name FROM TAP_SCHEMA.tables", "--json"], env)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["rows"] == 1


CROSSMATCH = ("SELECT g.source_id, g.ra, g.dec, t.name, DISTANCE(POINT('ICRS', g.ra, g.dec), "
              "POINT('ICRS', t.ra, t.dec)) * 3600 AS sep FROM gaiadr3.gaia_source AS g JOIN TAP_UPLOAD.targets AS t "
              "ON 1 = CONTAINS(POINT('ICRS', g.ra, g.dec), CIRCLE('ICRS', t.ra, t.dec, 1/3600.))")


def test_300_workspace_targets_cross_match_against_a_gaia_like_table(run_astro, env, adql, workspace):
    from astropy.table import Table

    field = crossmatch_field(workspace)
    adql.engine.add_table("gaiadr3.gaia_source", gaia_table(field["points"]))
    for extra in ([], ["--async"]):
        result = run_astro(["catalog", "query", "gaia", CROSSMATCH, "--upload", "data/targets.csv", "--json",
                            "--save-as", f"xmatch{len(extra)}", *extra], env, timeout=180)
        assert result.returncode == 0, result.stderr
        table = Table.read(workspace / json.loads(result.stdout)["path"])
        assert dict(zip(table["name"], table["source_id"].tolist())) == field["expected"]  # 200 of 300, each right
        assert len(table) == 200 and float(np.max(table["sep"])) < 0.41
    assert adql.jobs == {} and adql.created == 1  # the async run's job was deleted
    adql.hits.clear()
    refused = run_astro(["catalog", "query", "gaia", "SELECT TOP 5 * FROM gaiadr3.gaia_source", "--upload",
                         "data/targets.csv"], env)
    assert refused.returncode == 1
    assert "upload sends the table as TAP_UPLOAD.targets, but the query never names it" in refused.stderr
    outside = run_astro(["catalog", "query", "gaia", CROSSMATCH, "--upload", "/etc/passwd"], env)
    assert outside.returncode != 0 and "Traceback" not in outside.stderr
    assert adql.hits == []  # neither refused query left the machine


def test_an_async_job_that_outlasts_the_wait_is_deleted_on_the_service(run_astro, env, adql):
    adql.engine.add_table("gaiadr3.gaia_source", gaia_table([CENTRE]))
    adql.hold = True  # the job stays EXECUTING, as a long query on a busy archive does
    result = run_astro(["catalog", "query", "gaia", "SELECT source_id FROM gaiadr3.gaia_source", "--async"],
                       {**env, "ASTRO_CATALOG_JOB_TIMEOUT": "1.5"})
    assert result.returncode == 1
    assert ("ESA Gaia archive (gaia) did not finish the job within 1.5 s; the job was deleted. Narrow the query, "
            "or raise config 'catalog.job_timeout'.") in result.stderr
    assert "Traceback" not in result.stderr
    assert adql.created == 1 and adql.jobs == {}  # nothing left running on the service
    assert [h.method for h in adql.hits if h.path.rstrip("/").endswith("/async/1")][-1] == "DELETE"


def test_ctrl_c_during_an_async_job_deletes_the_job_on_the_service(env, adql, workspace):
    adql.engine.add_table("gaiadr3.gaia_source", gaia_table([CENTRE]))
    adql.hold = True
    proc = subprocess.Popen([sys.executable, "-m", "astro_cli", "catalog", "query", "gaia",
                             "SELECT source_id FROM gaiadr3.gaia_source", "--async"], env=env, cwd=workspace,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert adql.wait_for(lambda s: any(j.phase == "EXECUTING" for j in s.jobs.values()), timeout=90)
        assert adql.wait_for(lambda s: sum(h.method == "GET" for h in s.hits) >= 1, timeout=30)  # astro is waiting
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert adql.created == 1 and adql.jobs == {}  # the researcher's interrupt did not leave the job running


def spectrum_fits() -> bytes:
    """A real FITS spectrum (binary table: wavelength in Angstrom, flux) as an archive would serve it."""
    import io

    from astropy.table import Table

    table = Table({"wavelength": np.linspace(3300.0, 10500.0, 343), "flux": np.linspace(1.0, 2.0, 343)})
    table["wavelength"].unit, table["flux"].unit = "Angstrom", "W / (m2 nm)"
    out = io.BytesIO()
    table.write(out, format="fits")
    return out.getvalue()


def test_a_datalink_product_is_downloaded_into_data_and_an_existing_file_is_kept(run_astro, env, adql, workspace):
    from astropy.table import Table

    from tests.adql_server import Product

    spectrum = spectrum_fits()
    photometry = b'<?xml version="1.0"?><VOTABLE version="1.4"><RESOURCE/></VOTABLE>\n'
    adql.products["Gaia DR3 1000"] = [
        Product("epoch_1000.vot", photometry, "#epoch-photometry", "Epoch photometry", "application/x-votable+xml"),
        Product("xp_1000.fits", spectrum, "#this", "XP sampled spectrum", "application/fits")]
    listed = run_astro(["catalog", "links", "gaia", "Gaia DR3 1000"], env)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[1].startswith("1. #epoch-photometry Epoch photometry [application/x-votable")
    assert not (workspace / "data").exists()  # listing downloads nothing

    got = run_astro(["catalog", "links", "gaia", "Gaia DR3 1000", "--fetch", "this"], env)
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith(f"Downloaded the #this product of Gaia DR3 1000 from ESA Gaia archive (gaia): "
                                 f"{len(spectrum):,} bytes [application/fits] written to data/xp_1000.fits")
    back = Table.read(workspace / "data" / "xp_1000.fits")
    assert back["wavelength"].unit == "Angstrom" and len(back) == 343 and back["flux"][-1] == 2.0

    (workspace / "data" / "xp_1000.fits").write_bytes(b"the researcher's own reduction")
    again = run_astro(["catalog", "links", "gaia", "Gaia DR3 1000", "--fetch", "2"], env)
    assert again.returncode == 0, again.stderr
    assert "written to data/xp_1000_2.fits" in again.stdout and "xp_1000.fits already exists" in again.stdout
    assert (workspace / "data" / "xp_1000.fits").read_bytes() == b"the researcher's own reduction"
    replaced = run_astro(["catalog", "links", "gaia", "Gaia DR3 1000", "--fetch", "2", "--replace"], env)
    assert replaced.returncode == 0 and (workspace / "data" / "xp_1000.fits").read_bytes() == spectrum

    named = run_astro(["catalog", "links", "gaia", "Gaia DR3 1000", "--fetch", "epoch-photometry", "--save-as",
                       "phot.vot"], env)
    assert named.returncode == 0 and (workspace / "data" / "phot.vot").read_bytes() == photometry
    for which, said in (("preview", "No product with semantics #preview; the service lists #epoch-photometry, "
                                    "#this."), ("7", "Product 7 is not a downloadable entry of the listing (1 to 2).")):
        wrong = run_astro(["catalog", "links", "gaia", "Gaia DR3 1000", "--fetch", which], env)
        assert wrong.returncode == 1 and said in wrong.stderr and "Traceback" not in wrong.stderr
    unknown = run_astro(["catalog", "links", "gaia", "Gaia DR3 9", "--fetch", "this"], env)
    assert "The service lists no product to download: NotFoundFault: Gaia DR3 9 is not a known source." \
        in unknown.stderr


def test_the_model_downloads_a_spectrum_the_researcher_asked_for(run_astro, fake, env, adql, workspace):
    from tests.adql_server import Product
    from tests.helpers import last_json, tool_results

    spectrum = spectrum_fits()
    adql.products["Gaia DR3 1000"] = [Product("xp_1000.fits", spectrum, "#this", "XP sampled spectrum")]
    fake.add({"tool_calls": [{"name": "query_catalog", "arguments": {
                 "service": "gaia", "links": "Gaia DR3 1000", "product": "this", "save_as": "star_xp.fits"}}]},
             {"text": "Saved data/star_xp.fits."})
    result = run_astro(["run", "--output-format", "json", "Download the XP spectrum of Gaia DR3 1000."], env)
    assert result.returncode == 0, result.stderr
    seen = tool_results(fake.bodies()[1])[0]
    assert seen.startswith("Downloaded the #this product of Gaia DR3 1000 from ESA Gaia archive (gaia)")
    assert "written to data/star_xp.fits" in seen
    assert (workspace / "data" / "star_xp.fits").read_bytes() == spectrum
    assert last_json(result.stdout)["answer"] == "Saved data/star_xp.fits."


def test_a_product_url_that_leads_inside_this_machine_is_not_followed(run_astro, env, adql, workspace):
    """A DataLink answer is the service's text: a product at another inner host (a database's HTTP port, a
    cloud's metadata address), directly or through a redirect, is refused before any request reaches it."""
    from tests.adql_server import Product

    inside = f"http://localhost:{adql.httpd.port}/gaia/products/secret.dat"  # this machine, not the service's host
    adql.products["Gaia DR3 1000"] = [
        Product("direct.fits", b"x", "#this", "a spectrum", access_url=inside),
        Product("hop.fits", b"x", "#auxiliary", "a spectrum", redirect=inside),
        Product("secret.dat", b"the database's contents", "#progenitor", "not for astro")]
    for which in ("this", "auxiliary"):
        got = run_astro(["catalog", "links", "gaia", "Gaia DR3 1000", "--fetch", which], env)
        assert got.returncode == 1 and "leads to this machine or its local network" in got.stderr, got.stderr
    assert not any(hit.path.endswith("/secret.dat") for hit in adql.hits)
    assert not (workspace / "data").exists()
