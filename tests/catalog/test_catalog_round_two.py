"""Issue 47, catalogues round two: the real `astro` process against the TAP stand-ins on 127.0.0.1
(tests/catalog_server.py, whose /sync rejects ADQL a real parser would, so a mangled query fails).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.catalog_server import GAIA_STAR
from tests.helpers import last_json, tool_results
from tests.research_server import simbad_error_votable


@pytest.fixture
def astro_env(astro_env, catalog):
    """Every astro of this module (the `repl` fixture's too) talks to the TAP stand-ins."""
    return {**astro_env, **catalog.env()}


@pytest.fixture
def env(astro_env):
    return astro_env


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


GAIA_DR3, GAIA_MISSION, TWOMASS = "2023A&A...674A...1G", "2016A&A...595A...1G", "2006AJ....131.1163S"


def test_gaia_asks_for_its_mission_paper_and_every_archive_for_its_acknowledgement(run_astro, fake, env, workspace):
    answer = (f"Gaia DR3 gives {GAIA_STAR} a parallax of 2.303 mas (Gaia Collaboration 2023, {GAIA_DR3}; "
              f"Gaia Collaboration 2016, {GAIA_MISSION}); 2MASS lists J = 9.453 at M 31's centre "
              f"(Skrutskie et al. 2006, {TWOMASS}).")
    fake.add(call(service="gaia", target=GAIA_STAR, radius="5arcsec"),
             call(service="irsa", target="10.6847 41.2687", radius="30arcsec"), {"text": answer})
    result = run_astro(["run", "--output-format", "json", "Gaia parallax and 2MASS J?"], env)
    assert result.returncode == 0, result.stderr
    seen = tool_results(fake.bodies()[1])[0]
    assert f"Cite: Gaia DR3 ({GAIA_DR3}); Gaia mission ({GAIA_MISSION})" in seen
    assert "Acknowledge: Gaia (their texts: /acknowledgements" in seen
    assert "Acknowledge: 2MASS, IRSA (" in tool_results(fake.bodies()[2])[-1]
    session = last_json(result.stdout)["session_id"]
    cite = run_astro(["sessions", "cite", session], env)
    assert cite.returncode == 0, cite.stderr
    bibtex = cite.stdout
    assert "@ARTICLE{2016A&A...595A...1G," in bibtex and '"{The Gaia mission}"' in bibtex
    # Without an ADS token only the first authors are known: each entry says there are more.
    assert "{Gaia Collaboration} and {Prusti}, T. and others}" in bibtex
    assert "{Gaia Collaboration} and {Vallenari}, A. and others}" in bibtex
    assert "{Skrutskie}, M.~F. and others}" in bibtex
    tail = bibtex.split("% Acknowledgements the catalogues and archives used in this session ask for:", 1)[1]
    assert "% Gaia: This work has made use of data from the European Space Agency (ESA) mission Gaia" in tail
    assert "% 2MASS: This publication makes use of data products from the Two Micron All Sky Survey" in tail
    assert "% IRSA: This research has made use of the NASA/IPAC Infrared Science Archive" in tail
    assert "@" not in tail  # comments after the entries, outside any of them


def test_a_fast_star_is_found_at_the_catalogues_epoch_and_the_summary_says_which(run_astro, env, catalog):
    result = run_astro(["catalog", "cone", "gaia", "Barnard's Star", "--radius", "5arcsec", "--save-as", "fast"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("1 rows, 152 columns from ESA Gaia archive")  # the cone found the star
    assert re.search(r"Epoch J2016\.0, the table's: SIMBAD's J2000 position moved by its proper motion "
                     r"\(103\d\d\.\d mas/yr\) by 166\"\.", result.stdout)
    assert "CIRCLE('ICRS', 268.06766467, 26.50748606, " in catalog.queries("gaia")[0]  # the recorded J2016.0 position
    assert "ErfaWarning" not in result.stderr and "Warning" not in result.stderr
    # 2MASS positions have no single epoch: astro says the centre is J2000 and what that may cost.
    result = run_astro(["catalog", "cone", "irsa", "Barnard's Star", "--radius", "5arcsec"], env)
    assert result.returncode == 0, result.stderr
    assert "The table's epoch is not known to astro, so this is SIMBAD's J2000 position; the object moves " \
           "10.4\"/yr" in result.stdout


def unicode_answer(first: str = "Barnard's Star ☉") -> bytes:
    """A VOTable as a service sends it: a Unicode name, and a unit neither FITS nor VOUnit can name."""
    import io

    from astropy.io.votable import from_table
    from astropy.io.votable.tree import Info
    from astropy.table import Table

    table = Table({"name": [first, "Proxima Cen"], "flux": [1.5, 2.5]})
    table["flux"].unit = "counts/pix bananas"
    votable = from_table(table)
    votable.resources[0].type = "results"
    votable.resources[0].infos.append(Info(name="QUERY_STATUS", value="OK"))
    out = io.BytesIO()
    votable.to_xml(out)
    return out.getvalue()


def test_votable_and_parquet_are_written_fits_says_why_not_and_warnings_go_to_the_log(run_astro, env, catalog,
                                                                                       workspace, tmp_path):
    from astropy.table import Table

    debug = {**env, "ASTRO_DEBUG": "1"}
    adql = 'SELECT * FROM "J/X/1/stars"'
    for name in ("stars.vot", "stars.parquet", "stars.fits"):
        catalog.answer("vizier", unicode_answer())
        result = run_astro(["catalog", "query", "vizier", adql, "--save-as", name], debug)
        assert "Warning" not in result.stderr and "W50" not in result.stderr and "WARNING" not in result.stderr
        if name == "stars.fits":
            assert result.returncode == 1
            assert result.stderr.strip() == ("error: FITS holds only ASCII text, and column 'name' has "
                                             "\"Barnard's Star ☉\"; save as .ecsv, .csv, .vot or .parquet instead "
                                             "(they keep Unicode).")
            assert not (workspace / "data" / name).exists()
            continue
        assert result.returncode == 0, result.stderr
        assert f"written to data/{name}" in result.stdout
    vot = Table.read(workspace / "data" / "stars.vot")
    assert list(vot["name"]) == ["Barnard's Star ☉", "Proxima Cen"]
    meta = json.loads((workspace / "data" / "stars.vot.meta.json").read_text())
    assert meta["service"] == "vizier" and meta["query"] == 'SELECT TOP 10000 * FROM "J/X/1/stars"'
    import pyarrow.parquet as pq

    parquet = pq.read_table(workspace / "data" / "stars.parquet")
    assert parquet.column("name").to_pylist() == ["Barnard's Star ☉", "Proxima Cen"]
    assert b"SELECT TOP 10000 * FROM" in parquet.schema.metadata[b"table_meta_yaml"]  # the provenance
    # ASCII text goes to FITS; the unit FITS cannot name is astropy's warning, for the debug log only.
    catalog.answer("vizier", unicode_answer("Barnards Star"))
    result = run_astro(["catalog", "query", "vizier", adql, "--save-as", "ascii.fits"], debug)
    assert result.returncode == 0 and result.stderr == ""
    assert Table.read(workspace / "data" / "ascii.fits")["name"][0] == "Barnards Star"
    log = (tmp_path / "astro-home" / "logs" / "astro.log").read_text()
    assert "writing ascii.fits: AstropyUserWarning: The unit 'counts / (bananas pix)' could not be saved in " \
           "native FITS format" in log


def test_an_asynchronous_job_answers_like_a_query_and_is_deleted_after_even_when_rejected(run_astro, env, catalog):
    adql = f"SELECT source_id, designation FROM gaiadr3.gaia_source WHERE designation = '{GAIA_STAR}'"
    result = run_astro(["catalog", "query", "gaia", adql, "--async", "--json"], env)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["rows"] == 1 and payload["query"] == adql.replace("SELECT ", "SELECT TOP 10000 ", 1)
    calls = [(h.path.split("/async", 1)[1], h.query) for h in catalog.hits if h.service == "gaia"]
    assert calls[0] == ("", payload["query"])  # POST /gaia/async: the job is created with the checked query
    assert ("/1/phase", "") in calls and ("/1/results/result", "") in calls
    assert catalog.queries("gaia") == [] and catalog.created == 1 and catalog.jobs == {}  # no /sync; deleted
    message = "Incorrect ADQL query: column 'paralax' does not exist"
    catalog.answer("gaia", simbad_error_votable(message), status=400, when="paralax")
    refused = run_astro(["catalog", "query", "gaia", "SELECT paralax FROM gaiadr3.gaia_source", "--async"], env)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert f"ESA Gaia archive (gaia) rejected the query: {message}.\n" in refused.stderr  # pyvo's prefix gone
    assert catalog.created == 2 and catalog.jobs == {}  # the failed job was deleted too


def test_datalink_lists_a_sources_products_and_says_what_it_does_not_know(run_astro, env, catalog):
    result = run_astro(["catalog", "links", "gaia", GAIA_STAR], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"2 DataLink entries for {GAIA_STAR} from ESA Gaia archive (gaia):",
        "1. #epoch-photometry Epoch photometry (G, BP, RP) [application/x-votable+xml, 52,340 bytes]: "
        "https://gea.esac.esa.int/data-server/data?ID=Gaia+DR3+4583627001381815936&RETRIEVAL_TYPE=EPOCH_PHOTOMETRY",
        "2. #auxiliary XP sampled spectrum [application/x-votable+xml, 1.2 MB]: "
        "https://gea.esac.esa.int/data-server/data?ID=Gaia+DR3+4583627001381815936&RETRIEVAL_TYPE=XP_SAMPLED"]
    assert [h.path for h in catalog.hits] == ["/gaia/datalink"]  # one request; nothing downloaded
    unknown = run_astro(["catalog", "links", "gaia", "Gaia DR3 1"], env)
    assert "1. error: NotFoundFault: Gaia DR3 1 is not a known source" in unknown.stdout
    none = run_astro(["catalog", "links", "ned", "MESSIER 001"], env)
    assert none.returncode == 1 and "astro knows no DataLink service of NASA/IPAC Extragalactic Database (ned); " \
        "add one as config 'catalog.services.ned.datalink_url'." in none.stderr


@pytest.fixture
def samp_hub(tmp_path, monkeypatch):
    """A real SAMP hub (pyvo.samp) on 127.0.0.1 with a client standing in for TOPCAT that records
    what it is sent; SAMP_HUB points astro at the hub's lockfile."""
    import threading

    from pyvo.samp import SAMPHubServer, SAMPIntegratedClient

    lockfile = tmp_path / "samp-lock"
    hub = SAMPHubServer(web_profile=False, lockfile=str(lockfile), pool_size=2)
    hub.start()
    received: list[tuple[str, dict]] = []
    arrived = threading.Event()
    address = f"std-lockurl:{lockfile.as_uri()}"
    monkeypatch.setenv("SAMP_HUB", address)
    topcat = SAMPIntegratedClient(name="topcat-standin")
    topcat.connect()

    def on_call(private_key, sender_id, msg_id, mtype, params, extra):
        received.append((mtype, params))
        topcat.reply(msg_id, {"samp.status": "samp.ok", "samp.result": {}})
        arrived.set()

    def on_notification(private_key, sender_id, mtype, params, extra):
        received.append((mtype, params))
        arrived.set()

    for mtype in ("table.load.votable", "table.load.fits"):
        topcat.bind_receive_call(mtype, on_call)
        topcat.bind_receive_notification(mtype, on_notification)
    yield address, received, arrived
    topcat.disconnect()
    hub.stop()


def test_a_result_goes_to_topcat_over_samp_without_a_copy(run_astro, env, catalog, workspace, samp_hub):
    hub, received, arrived = samp_hub
    result = run_astro(["catalog", "query", "ned", "SELECT * FROM NEDTAP.objdir", "--save-as", "m1.vot"], env)
    assert result.returncode == 0, result.stderr
    sent = run_astro(["catalog", "send", "data/m1.vot", "--to", "TOPCAT-standin"], {**env, "SAMP_HUB": hub})
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout.strip() == "Sent data/m1.vot to topcat-standin."
    assert arrived.wait(30)
    assert received == [("table.load.votable", {"url": (workspace / "data" / "m1.vot").resolve().as_uri(),
                                                "name": "m1.vot"})]
    refused = run_astro(["catalog", "send", "data/m1.csv"], {**env, "SAMP_HUB": hub})
    assert refused.returncode == 1 and "SAMP carries VOTable and FITS tables, not '.csv'" in refused.stderr
    nobody = run_astro(["catalog", "send", "data/m1.vot"], {**env, "SAMP_HUB": "std-lockurl:file:///nowhere/lock"})
    assert nobody.returncode == 1 and "No SAMP hub answers" in nobody.stderr and "Traceback" not in nobody.stderr


def test_acknowledgements_in_the_repl_are_the_texts_the_sessions_queries_owe(repl, fake):
    from tests.conftest import CTRL_D

    fake.add(call(service="irsa", target="10.6847 41.2687", radius="30arcsec"), {"text": "One 2MASS source."})
    text = repl.type_and_run("2MASS sources near M 31?\r/acknowledgements\r" + CTRL_D)
    assert "One 2MASS source." in text
    after = text.split("/acknowledgements", 1)[-1]
    assert "2MASS: This publication makes use of data products from the Two Micron All Sky Survey" in after
    assert "IRSA: This research has made use of the NASA/IPAC Infrared Science Archive" in after
    assert "Gaia:" not in after  # only what this session's queries owe
