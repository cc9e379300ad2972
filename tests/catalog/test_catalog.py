"""Catalogue queries (issue 33) against TAP stand-ins on 127.0.0.1 serving recorded VOTables
(tests/catalog_server.py says what is recorded and what is derived), through pyvo's real client.
"""

from __future__ import annotations

import json

import pytest

from astro_cli.catalog.errors import CatalogError, QueryRejected
from astro_cli.catalog.research_link import agent
from astro_cli.catalog.run import Request, limits, run_query
from astro_cli.catalog.services import service_named
from astro_cli.security.writer import Place
from tests.catalog_server import GAIA_STAR, fixture
from tests.research_server import simbad_error_votable


@pytest.fixture
def app(catalog, tmp_path, monkeypatch):
    from tests.conftest import clear_astro_environment

    clear_astro_environment(monkeypatch)
    for key, value in catalog.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("ASTRO_HOME", str(tmp_path / "astro-home"))
    monkeypatch.setenv("ASTRO_CATALOG_TIMEOUT", "5")
    workspace = tmp_path / "project"
    workspace.mkdir()
    from astro_cli.bootstrap import build_app

    application = build_app(workspace=workspace)
    yield application
    application.close()


def query(app, **fields):
    request = Request(**fields)
    service = service_named(app.settings, request.service)
    return run_query(app, service, request, limits(app), agent(app), lambda rel: Place.of(app.workspace.root, rel),
                     lambda path: True)


def read(app, outcome):
    from astropy.table import Table

    return Table.read(app.workspace.root / outcome.relative)


def test_a_named_star_is_resolved_by_simbad_and_its_gaia_row_written_with_provenance(app, catalog):
    outcome = query(app, service="gaia", target=GAIA_STAR, radius="5arcsec", save_as="star")
    assert outcome.relative == "data/star.ecsv" and outcome.rows == 1
    table = read(app, outcome)
    assert table["parallax"][0] == pytest.approx(2.3034093)  # the recorded value, through ECSV
    assert str(table["parallax"].unit) == "mas"
    assert table.meta["service"] == "gaia" and table.meta["rows"] == 1 and table.meta["bibcode"] == "2023A&A...674A...1G, 2016A&A...595A...1G"
    assert table.meta["query"].startswith("SELECT TOP 10000 source_id, ra, dec, parallax")
    assert table.meta["time"].endswith("Z") and table.meta["limited"] is False
    assert "parallax [mas]: 2.303409" in outcome.summary and "parallax_error [mas]: 0.03333763" in outcome.summary
    assert "Cite: Gaia DR3 (2023A&A...674A...1G)" in outcome.summary
    assert outcome.sources[0]["bibcode"] == "2023A&A...674A...1G" and outcome.sources[0]["year"] == 2023
    simbad, gaia = catalog.queries("simbad"), catalog.queries("gaia")
    assert f"ident.id = '{GAIA_STAR}'" in simbad[0]
    assert "CIRCLE('ICRS', 268.06766467, 26.50748606, 0.00138889)" in gaia[0]
    assert [h.maxrec for h in catalog.hits if h.service == "gaia"] == ["10000"]
    assert "astro/" in next(h for h in catalog.hits if h.service == "gaia").headers["User-Agent"]


def test_2mass_sources_around_m31_come_from_irsa_with_the_2mass_citation(app, catalog):
    outcome = query(app, service="irsa", target="M 31", radius="30arcsec")
    assert outcome.relative.startswith("data/irsa_fp_psc_") and outcome.relative.endswith(".ecsv")
    assert "designation: 00424433+4116085" in outcome.summary and "j_m [mag]: 9.453" in outcome.summary
    assert "radius 30 arcsec, table fp_psc" in outcome.summary
    assert [s["bibcode"] for s in outcome.sources] == ["2006AJ....131.1163S"]
    assert "FROM fp_psc WHERE 1 = CONTAINS(POINT('ICRS', ra, dec), CIRCLE('ICRS', 10.68470833, 41.26875000, " \
           "0.00833333))" in catalog.queries("irsa")[0]


def test_masked_magnitudes_stay_masked_in_the_file_and_are_counted_in_the_summary(app):
    outcome = query(app, service="vizier", adql='SELECT * FROM "J/ApJ/706/83/ysos"')
    table = read(app, outcome)
    assert len(table) == 50 and int(table["Jmag"].mask.sum()) == 37
    assert "Jmag [mag]: 12.72 … 15.02 … 16.27; 37 masked" in outcome.summary
    assert "First rows (of 50):" in outcome.summary and "Jmag=--" in outcome.summary
    assert outcome.provenance.query == 'SELECT TOP 10000 * FROM "J/ApJ/706/83/ysos"'
    assert [s["bibcode"] for s in outcome.sources] == ["2000A&AS..143...23O"]  # VizieR, the service


@pytest.mark.parametrize("save_as, fmt", [("m1.fits", "fits"), ("m1.csv", "ascii.csv")])
def test_odd_column_names_survive_fits_and_csv_with_their_provenance(app, save_as, fmt):
    from astropy.table import Table

    outcome = query(app, service="ned", adql="SELECT * FROM NEDTAP.objdir WHERE prefname = 'MESSIER 001'",
                    save_as=save_as)
    table = Table.read(app.workspace.root / "data" / save_as, format=fmt)
    assert table["Object Name"][0].strip() == "MESSIER 001" and table["RA(deg)"][0] == pytest.approx(83.63321)
    if fmt == "fits":
        assert table.meta["SERVICE"] == "ned" and "prefname = 'MESSIER 001'" in table.meta["QUERY"]
    else:
        import json

        meta = json.loads((app.workspace.root / "data" / "m1.csv.meta.json").read_text())
        assert meta["service"] == "ned" and meta["rows"] == 1 and "prefname = 'MESSIER 001'" in meta["query"]
    assert outcome.summary.count("\n") < 60


def test_a_result_the_service_cut_says_so(app, catalog):
    catalog.answer("gaia", fixture("tap_overflow_status.xml"))
    outcome = query(app, service="gaia", adql="SELECT * FROM gaiadr3.gaia_source", max_rows=3)
    assert outcome.limited and outcome.rows == 3
    assert "The row limit (3) may have cut this result" in outcome.summary
    assert read(app, outcome).meta["limited"] is True


@pytest.mark.parametrize("adql, message", [
    ("DELETE FROM gaiadr3.gaia_source", r"^Only ADQL SELECT queries are sent to catalogue services \(read-only\)"),
    ("SELECT * INTO mine FROM gaiadr3.gaia_source", r"^Catalogue queries are read-only: 'INTO' is not allowed"),
    ("SELECT 1 FROM t; DROP TABLE t", r"^Send one ADQL statement at a time"),
    ("SELECT TOP 50000 * FROM gaiadr3.gaia_source", r"^The query asks for TOP 50000 rows, above the limit of 10000"),
    ("", r"^Give adql \(an ADQL SELECT\) or a target"),
    ("  -- only a comment", r"^Give an ADQL query"),
])
def test_what_is_not_one_bounded_select_never_leaves_the_machine(app, catalog, adql, message):
    with pytest.raises(CatalogError, match=message):
        query(app, service="gaia", adql=adql)
    assert catalog.hits == []


def test_words_inside_strings_are_data_not_statements(app, catalog):
    query(app, service="ned", adql="SELECT * FROM NEDTAP.objdir WHERE prefname = 'DROP; DELETE'")
    assert catalog.queries("ned") == ["SELECT TOP 10000 * FROM NEDTAP.objdir WHERE prefname = 'DROP; DELETE'"]


def test_adql_goes_only_to_configured_services(app, catalog):
    with pytest.raises(CatalogError, match=r"^'evil' is not a configured catalogue service; "
                                           r"use one of gaia, irsa, mast, ned, simbad, vizier"):
        query(app, service="evil", adql="SELECT 1 FROM x")
    # A URL goes nowhere until the researcher allows it (tests/catalog/test_catalog_tap_urls.py).
    with pytest.raises(CatalogError, match=r"^http://evil\.example/tap is not an allowed TAP service yet"):
        query(app, service="http://evil.example/tap", adql="SELECT 1 FROM x")
    assert catalog.hits == []


def test_service_failures_are_one_sentence(app, catalog):
    catalog.answer("gaia", simbad_error_votable("Incorrect ADQL query: column 'paralax' does not exist"), status=400)
    with pytest.raises(QueryRejected, match=r"^ESA Gaia archive \(gaia\) rejected the query: Incorrect ADQL query: "
                                            r"column 'paralax' does not exist\.$"):
        query(app, service="gaia", adql="SELECT paralax FROM gaiadr3.gaia_source")
    catalog.fail("gaia", 503)
    with pytest.raises(CatalogError, match=r"^ESA Gaia archive \(gaia\) answered HTTP 503; try again later\.$"):
        query(app, service="gaia", adql="SELECT TOP 1 * FROM gaiadr3.gaia_source")
    app.settings.set("catalog.timeout", 0.3, "test")
    catalog.fail("gaia", 200, delay=1.5)
    with pytest.raises(CatalogError, match=r"^ESA Gaia archive \(gaia\) did not answer within 0.3 s; try a smaller"):
        query(app, service="gaia", adql="SELECT TOP 1 * FROM gaiadr3.gaia_source")


def test_an_unreachable_service_is_one_sentence(app):
    app.settings.set("catalog.services", {"gaia": {"url": "http://127.0.0.1:9/tap"}}, "test")
    with pytest.raises(CatalogError, match=r"^Could not reach ESA Gaia archive \(gaia\) at http://127.0.0.1:9/tap; "):
        query(app, service="gaia", adql="SELECT TOP 1 * FROM gaiadr3.gaia_source")


def test_a_name_simbad_does_not_know_is_one_sentence_and_no_catalogue_is_asked(app, catalog):
    with pytest.raises(CatalogError, match=r"^SIMBAD does not know an object named 'Planet Nine'"):
        query(app, service="gaia", target="Planet Nine", radius="10arcsec")
    assert catalog.queries("gaia") == []


def test_bad_cone_arguments_are_sentences(app, catalog):
    with pytest.raises(CatalogError, match=r"^'ten' is not a radius"):
        query(app, service="gaia", target="10.0 20.0", radius="ten")
    with pytest.raises(CatalogError, match=r"^columns 'ra; DROP' should be column names"):
        query(app, service="gaia", target="10.0 20.0", columns="ra; DROP")
    with pytest.raises(CatalogError, match=r"^table 'x y' is not a table or column name"):
        query(app, service="gaia", target="10.0 20.0", table="x y")
    with pytest.raises(CatalogError, match=r"^Give either adql or a target"):
        query(app, service="gaia", target="10.0 20.0", adql="SELECT 1 FROM t")
    with pytest.raises(CatalogError, match=r"^save_as 'x\.json': astro writes \.ecsv, \.fits, \.csv, \.vot or "
                                           r"\.parquet tables\."):
        query(app, service="gaia", target="10.0 20.0", save_as="x.json")
    assert catalog.queries("gaia") == []


def test_a_file_name_cannot_leave_data(app):
    with pytest.raises(CatalogError, match=r"^save_as '\.\./\.\./etc/x' should be a file name"):
        query(app, service="gaia", target="10.0 20.0", save_as="../../etc/x")


def test_tables_and_columns_for_writing_adql(app, catalog):
    from astro_cli.catalog.discover import describe_table, list_tables

    gaia = service_named(app.settings, "gaia")
    lines = list_tables(gaia, 5, "astro-test", "apass")
    assert lines[0] == "1 tables in ESA Gaia archive (gaia) matching 'apass':"
    assert lines[1].startswith("external.apassdr9: The AAVSO Photometric All-Sky Survey - Data Release 9")
    columns = describe_table(gaia, "external.apassdr9", 5, "astro-test")
    assert "  raj2000 [deg] (double): Right ascension in decimal degrees (J2000)" in columns
    with pytest.raises(CatalogError, match=r"^ESA Gaia archive \(gaia\) has no table 'gaiadr3\.nothing'"):
        describe_table(gaia, "gaiadr3.nothing", 5, "astro-test")


def test_project_catalog_services_are_a_risky_setting():
    from astro_cli.security.trust import is_risky_key

    assert is_risky_key("catalog.services")


# --- astro catalog (the commands, in-process through typer) ------------------------------------
@pytest.fixture
def cli_env(catalog, workspace):
    from tests.conftest import base_env

    return {**base_env(workspace.parent), **catalog.env()}


def test_astro_catalog_cone_writes_the_file_and_prints_the_summary(cli, cli_env, workspace):
    result = cli(["catalog", "cone", "gaia", GAIA_STAR, "--radius", "5arcsec", "--save-as", "star.fits"], env=cli_env)
    assert result.exit_code == 0, result.stderr
    assert "written to data/star.fits" in result.stdout and "parallax [mas]: 2.303409" in result.stdout
    from astropy.table import Table

    assert Table.read(workspace / "data" / "star.fits")["parallax"][0] == pytest.approx(2.3034093)


def test_astro_catalog_query_json_and_a_refused_query(cli, cli_env, catalog):
    result = cli(["catalog", "query", "vizier", 'SELECT * FROM "J/ApJ/706/83/ysos"', "--json", "-n", "100"],
                 env=cli_env)
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["rows"] == 50 and payload["path"].startswith("data/vizier_j_apj_706_83_ysos_")
    assert payload["query"] == 'SELECT TOP 100 * FROM "J/ApJ/706/83/ysos"'
    refused = cli(["catalog", "query", "gaia", "DROP TABLE gaiadr3.gaia_source"], env=cli_env)
    assert refused.exit_code == 1 and "Traceback" not in refused.stderr
    assert "Only ADQL SELECT queries are sent to catalogue services" in refused.stderr
    assert len(catalog.queries("vizier")) == 1 and catalog.queries("gaia") == []


def test_astro_catalog_tables_and_services(cli, cli_env):
    result = cli(["catalog", "tables", "gaia", "--search", "catwise"], env=cli_env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("1 tables in ESA Gaia archive (gaia) matching 'catwise':\nexternal.catwise2020:")
    listing = cli(["catalog", "services"], env=cli_env)
    assert listing.exit_code == 0
    assert "gaia     ESA Gaia archive <http://127.0.0.1:" in listing.stdout and "cite 2000A&AS..143...23O" in listing.stdout
    found = cli(["catalog", "find", "pulsar", "distance"], env=cli_env)
    assert found.exit_code == 0 and "LOTAAS pulsar discoveries" in found.stdout
    unknown = cli(["catalog", "tables", "nowhere"], env=cli_env)
    assert unknown.exit_code == 1 and "'nowhere' is not a configured catalogue service" in unknown.stderr


def test_the_ecsv_file_reads_back_identically_masks_quotes_and_units_included(tmp_path):
    import numpy as np
    from astropy.table import MaskedColumn, Table

    from astro_cli.catalog.results import CHUNK_ROWS, Provenance, write

    rows = CHUNK_ROWS + 7  # more than one chunk
    table = Table()
    table["id"] = MaskedColumn(np.arange(rows, dtype=np.int64) * 10**12, mask=np.arange(rows) % 5 == 0)
    table["name"] = np.array([f"star {i}" for i in range(rows)], dtype="U40")
    table["name"][:3] = ['a, "quoted" name', "ünïcode ☉", "multi\nline"]  # (edge spaces: astropy's ECSV strips them)
    table["plx"] = MaskedColumn(np.linspace(-1, 3, rows), mask=np.arange(rows) % 7 == 0, unit="mas")
    table["plx"][1:3] = [np.nan, np.inf]  # not masked: a NaN and an infinity are values
    table["g"] = np.linspace(5, 21, rows).astype("f4")
    table["flag"] = np.arange(rows) % 2 == 0
    provenance = Provenance("gaia", "http://x", "SELECT 1", "2026-01-01T00:00:00Z", rows, False)
    back = Table.read(write(table.copy(), Place.beside(tmp_path / "t.ecsv"), provenance))
    for name in table.colnames:
        assert back[name].dtype.kind == table[name].dtype.kind, name  # (text is read back as wide as needed)
        assert np.array_equal(np.ma.getmaskarray(back[name]), np.ma.getmaskarray(table[name])), name
        assert np.array_equal(np.ma.filled(back[name], back[name].dtype.type(0)),
                              np.ma.filled(table[name], table[name].dtype.type(0)), equal_nan=name == "plx"), name
    assert str(back["plx"].unit) == "mas" and back.meta["service"] == "gaia" and back.meta["rows"] == rows


def test_any_result_is_summarised_within_1500_tokens():
    import numpy as np
    from astropy.table import Table

    from astro_cli.agent.tokens import TokenCounter
    from astro_cli.catalog.summary import CUT_NOTE, summarize

    rng = np.random.default_rng(1)
    wide = Table({f"a_rather_long_column_name_{i}": rng.normal(0, 1e6, 1000) for i in range(400)})
    for table in (wide, wide[:2]):  # statistics of 1,000 rows; the values of 2
        text = summarize(table, ["header"])
        assert TokenCounter(None).text(text) <= 1500
        assert text.endswith(CUT_NOTE) or text.endswith("and 296 more")  # said what was left out


def test_the_vo_registry_finds_catalogues_and_names_the_configured_service(app, catalog):
    from astro_cli.catalog.registry import search_registry

    lines = search_registry(app.settings, "pulsar distance", 5, "astro-test")
    assert lines[0] == "30 resources in the VO registry for 'pulsar distance' (the first 25):"
    assert "J/A+A/492/923: Pulsar Timing for Fermi Gamma-ray Space Telescope [TAP " \
           "http://tapvizier.cds.unistra.fr/TAPVizieR/tap (not configured)]" in lines  # tests point vizier here
    query = catalog.queries("registry")[0]
    assert "ivo_hasword(res_description, 'pulsar')" in query and "ivo_hasword(res_title, 'distance')" in query
    app.settings.set("catalog.services", {"vizier": {"url": "https://tapvizier.cds.unistra.fr/TAPVizieR/tap"}}, "t")
    lines = search_registry(app.settings, "pulsar distance", 5, "astro-test")
    assert "J/A+A/492/923: Pulsar Timing for Fermi Gamma-ray Space Telescope [service vizier]" in lines
    with pytest.raises(CatalogError, match=r"^Give words to search the VO registry for"):
        search_registry(app.settings, " ", 5, "astro-test")


def test_a_broken_votable_is_one_sentence(app, catalog):
    broken = fixture("kang2010.xml").replace(b'name="Jmag"', b'name="Jmag&#27;"')  # not XML 1.0
    catalog.answer("vizier", broken)
    with pytest.raises(CatalogError, match=r"^CDS VizieR \(vizier\) sent an answer astro could not read "
                                           r"\(DALFormatError: .*\)\.$"):
        query(app, service="vizier", adql='SELECT * FROM "J/ApJ/706/83/ysos"')


def test_control_characters_in_names_and_values_never_reach_the_terminal():
    from astropy.table import Table

    from astro_cli.catalog.summary import summarize

    # XML text cannot carry them, but a BINARY2 stream's strings can: as pyvo hands them over.
    table = Table({"Jmag\x1b[2J\x1b]0;pwned\x07": [1.0, 2.0, 3.0, 4.0], "name": ["G048\x1b[31mRED", "b", "c", "d"]})
    text = summarize(table, ["header"])
    assert "\x1b" not in text and "\x07" not in text
    assert "Jmag [2J ]0;pwned " in text and "G048 [31mRED" in text


def test_beyond_the_row_limit_the_researcher_is_asked_and_only_then(app):
    from astro_cli.agent.permissions import PermissionPolicy

    app.install_features()
    tool = app.tools.get("query_catalog")
    asked: list[dict] = []
    policy = PermissionPolicy(asker=lambda t, a: asked.append(a) or "no")
    assert policy.check(tool, {"service": "gaia", "adql": "SELECT TOP 100 * FROM t"}).allowed
    assert policy.check(tool, {"service": "gaia", "max_rows": 10000}).allowed and asked == []
    refused = policy.check(tool, {"service": "gaia", "adql": "SELECT TOP 10001 * FROM t"})
    assert not refused.allowed and refused.reason == "The user declined to run query_catalog."
    assert asked == [{"service": "gaia", "adql": "SELECT TOP 10001 * FROM t"}]
    policy.asker = lambda t, a: "yes"
    assert policy.check(tool, {"service": "gaia", "max_rows": 200000}).allowed


def test_a_data_folder_that_links_outside_the_workspace_is_refused_before_any_query(app, catalog, tmp_path):
    from astro_cli.security.paths import PathRefused
    from astro_cli.tools.context import ToolContext

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (app.workspace.root / "data").symlink_to(outside)
    query_catalog = app.install_features().tools.get("query_catalog")
    with pytest.raises(PathRefused):
        query_catalog.run(ToolContext(app=app, session_id="t"), {"service": "gaia", "target": "10 20"})
    assert list(outside.iterdir()) == [] and catalog.queries("gaia") == []


def test_a_bad_service_entry_in_config_is_one_sentence(app):
    from astro_cli.catalog.services import services

    app.settings.set("catalog.services", {"mine": {"url": "ftp://x"}}, "test")
    with pytest.raises(CatalogError, match=r"^config 'catalog.services.mine' needs a url starting with http"):
        services(app.settings)
    app.settings.set("catalog.services", {"mine": {"url": "https://x/tap", "colour": "red"}}, "test")
    with pytest.raises(CatalogError, match=r"^config 'catalog.services.mine' has unknown field 'colour'"):
        services(app.settings)


@pytest.mark.parametrize("ext", [".ecsv", ".fits", ".csv"])
def test_variable_length_arrays_and_vector_columns_are_written(tmp_path, ext):
    import numpy as np
    from astropy.table import Table

    from astro_cli.catalog.results import Provenance, write
    from astro_cli.catalog.summary import summarize

    # As a VOTable column with arraysize="*" arrives (object dtype), next to a fixed 2-vector column.
    table = Table({"id": [1, 2], "spectrum": np.array([np.array([1.0, 2.0]), np.array([3.0])], dtype=object),
                   "pm": np.array([[1.5, -2.0], [0.5, 0.25]])})
    provenance = Provenance("x", "http://x", "SELECT 1", "2026-01-01T00:00:00Z", 2, False)
    path = write(table.copy(), Place.beside(tmp_path / f"t{ext}"), provenance)
    back = Table.read(path)
    assert list(back["id"]) == [1, 2] and "1." in str(back["spectrum"][0])
    assert "spectrum: [1. 2.] | [3.]" in summarize(table, ["h"])
