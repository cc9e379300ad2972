"""Stand-ins for TAP services on 127.0.0.1 (Gaia, VizieR, IRSA, NED, MAST-like, SIMBAD), answering
with the recorded VOTables in tests/fixtures/catalog/ (tests/fixtures/PROVENANCE.md).

Paths: /<service>/sync (POST, as pyvo sends), /<service>/tables and /<service>/tables/<name>.
Point astro at it with `server.config()` (config 'catalog.services' entries) and `server.env()`.

What is recorded and what is constructed:
  gaia   /sync  the recorded Gaia DR3 answer for two source_ids (152 columns). A query naming a
                source_id, or a cone (CONTAINS ... CIRCLE), gets the recorded rows that match,
                re-written with astropy's VOTable writer (constructed: a subset of recorded rows).
  gaia   /tables the recorded ESA Gaia archive tableset (external.* tables, with columns).
  irsa   /sync  the recorded 2MASS PSC answer of IRSA (Gator, 2013) to a 1-arcsec cone on M 31,
                verbatim, whatever the query (a real 30-arcsec cone would list more sources).
  vizier /sync  the recorded VizieR answer for J/ApJ/706/83 (Kang+ 2009, W51 YSOs; masked magnitudes).
  ned    /sync  the recorded NED answer for MESSIER 001 (VOTable 1.1, no namespace).
  registry     the RegTAP answer pyvo's tests recorded (keywords 'pulsar', UCD pos.distance: 30
                resources, most of them VizieR catalogues) for any search, and its /capabilities.
  simbad /sync  name resolution: research_server's constructed answers (M 31, M 51), plus one object
                whose identifier is the Gaia DR3 designation in the recorded Gaia answer, at the
                recorded position (constructed, as SIMBAD lists Gaia DR3 designations as identifiers),
                and "Barnard's Star", a constructed fast star (FAST_STAR below).
/gaia/datalink?ID=... answers as a DataLink links service (datalink_answer, constructed).
Every /sync checks the ADQL's lexical shape first, as a real service's parser does (constructed):
an unterminated string literal or unbalanced parentheses get HTTP 400 with a TAP error document,
so a query astro mangles fails the test instead of being answered anyway.
A multipart POST (pyvo's TAP_UPLOAD) is parsed; gaia cross-matches its recorded rows with an uploaded
`targets` table when the query joins TAP_UPLOAD.targets with CIRCLE('ICRS', t.ra, t.dec, r).
/<service>/async is a UWS job list (constructed, as pyvo's AsyncTAPJob speaks it): POST creates a
job (303 to it), POST <job>/phase PHASE=RUN runs it at once with the /sync answer (a scripted
answer with status >= 400 makes it ERROR), GET <job> is its job document, GET
<job>/results/result its VOTable, DELETE <job> removes it; `jobs` holds the jobs not deleted.
Scripted: `answer(service, body, when=...)` replaces the next answer (to a query containing `when`); `fail(service, ...)` a failure.
"""

from __future__ import annotations

import io
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.catalog_uws import Job, JobList, form_of
from tests.paths import FIXTURES_DIR
from tests.quick_server import QuickHTTPServer, send
from tests.research_server import simbad_error_votable, simbad_votable

FIXTURES = FIXTURES_DIR / "catalog"
GAIA = "gaia_dr3_source_two_stars.vot"
ANSWERS = {"gaia": GAIA, "irsa": "irsa_2mass_psc_cone_m31.xml", "vizier": "kang2010.xml",
           "ned": "ned_object_messier001.xml", "mast": "irsa_2mass_psc_cone_m31.xml"}
TABLES = {"gaia": "gaia_tables.xml"}
GAIA_STAR = "Gaia DR3 4583627001381815936"  # the first recorded row's designation
SERVICES = ("gaia", "vizier", "irsa", "ned", "mast", "simbad")
REGISTRY = {"sync": "regtap_pulsar_distance.xml", "capabilities": "regtap_capabilities.xml"}


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


@dataclass
class Scripted:
    service: str
    status: int = 200
    body: bytes = b""
    delay: float = 0.0
    ctype: str = "application/x-votable+xml"
    when: str = ""  # only for a query containing this text (others are answered as usual)


@dataclass
class Hit:
    service: str
    path: str
    query: str
    maxrec: str | None
    headers: dict[str, str] = field(default_factory=dict)
    uploads: dict[str, bytes] = field(default_factory=dict)  # TAP_UPLOAD tables, by name


def adql_error(query: str) -> str | None:
    """What a TAP service's ADQL parser would say about the query's shape, None when it parses."""
    depth = 0
    for token in re.finditer(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|['\"()]", query):
        text = token.group(0)
        if text in ("'", '"'):
            return f"Incorrect ADQL query: unterminated quoted text at character {token.start() + 1}"
        depth += {"(": 1, ")": -1}.get(text, 0)
        if depth < 0:
            return f"Incorrect ADQL query: unexpected ')' at character {token.start() + 1}"
    return "Incorrect ADQL query: a '(' is never closed" if depth else None


def crossmatched(table: Any, query: str, uploads: dict[str, bytes]) -> Any:
    """The rows within the query's CIRCLE('ICRS', t.ra, t.dec, r) of any uploaded target (constructed:
    the stand-in's reading of a TAP_UPLOAD join)."""
    import numpy as np
    from astropy.table import Table

    found = re.search(r"CIRCLE\('ICRS',\s*t\.ra,\s*t\.dec,\s*([\d.]+)\s*(?:/\s*([\d.]+))?\)", query)
    if not found or "targets" not in uploads:
        return np.zeros(len(table), dtype=bool)
    radius = float(found.group(1)) / float(found.group(2) or 1)
    targets = Table.read(io.BytesIO(uploads["targets"]), format="votable")
    ra, dec = np.asarray(table["ra"], dtype=float), np.asarray(table["dec"], dtype=float)
    keep = np.zeros(len(table), dtype=bool)
    for t_ra, t_dec in zip(np.asarray(targets["ra"], dtype=float), np.asarray(targets["dec"], dtype=float)):
        keep |= np.hypot((ra - t_ra) * np.cos(np.radians(t_dec)), dec - t_dec) <= radius
    return keep


def gaia_rows(query: str, uploads: dict[str, bytes] | None = None) -> bytes:
    """The recorded Gaia answer, keeping the rows a source_id, a cone or an uploaded target list selects."""
    import numpy as np
    from astropy.io.votable import parse

    data = fixture(GAIA)
    ids = [int(x) for x in re.findall(r"source_id\s*=\s*(\d+)", query, re.IGNORECASE)]
    names = [n.replace("''", "'") for n in re.findall(r"designation\s*=\s*'((?:[^']|'')*)'", query, re.IGNORECASE)]
    circle = re.search(r"CIRCLE\('ICRS',\s*([-\d.]+),\s*([-\d.]+),\s*([-\d.]+)\)", query)
    upload = re.search(r"\bTAP_UPLOAD\.targets\b", query, re.IGNORECASE)
    if not ids and not names and not circle and not upload:
        return data
    votable = parse(io.BytesIO(data))
    table = votable.get_first_table()
    array = table.array
    keep = np.ones(len(array), dtype=bool)
    if upload:
        keep &= crossmatched(array, query, uploads or {})
        circle = None
    if ids:
        keep &= np.isin(np.asarray(array["SOURCE_ID"]), ids)
    if names:
        keep &= np.isin(np.asarray(array["designation"]).astype(str), names)
    if circle:
        ra0, dec0, radius = (float(circle.group(i)) for i in (1, 2, 3))
        ra, dec = np.asarray(array["ra"], dtype=float), np.asarray(array["dec"], dtype=float)
        distance = np.hypot((ra - ra0) * np.cos(np.radians(dec0)), dec - dec0)
        keep &= distance <= radius
    table.array = array[keep]
    out = io.BytesIO()
    votable.to_xml(out)
    return out.getvalue()


# A constructed fast star: it moves as Barnard's Star does (at J2016.0: Gaia DR3's proper motion,
# parallax and radial velocity), and it is where the recorded Gaia star is at J2016.0. SIMBAD gives its J2000
# position, 2.8' away: a cone that ignores the epoch finds nothing.
FAST_STAR = "Barnard's Star"
FAST_MOTION = {"pmra": -801.551, "pmdec": 10362.394, "plx_value": 546.9759, "rvz_radvel": -110.51}


def fast_star_j2000() -> tuple[float, ...]:
    """The fast star at J2000 (ra, dec, pmra, pmdec, parallax, radial velocity): the recorded Gaia
    star's J2016.0 position moved back with astropy (its motion then differs a little from its
    motion now: perspective acceleration)."""
    import astropy.units as u
    from astropy.coordinates import Distance, SkyCoord
    from astropy.table import Table
    from astropy.time import Time

    star = Table.read(io.BytesIO(fixture(GAIA)), format="votable")[0]
    now = SkyCoord(float(star["ra"]) * u.deg, float(star["dec"]) * u.deg, obstime=Time(2016.0, format="jyear"),
                   pm_ra_cosdec=FAST_MOTION["pmra"] * u.mas / u.yr, pm_dec=FAST_MOTION["pmdec"] * u.mas / u.yr,
                   distance=Distance(parallax=FAST_MOTION["plx_value"] * u.mas),
                   radial_velocity=FAST_MOTION["rvz_radvel"] * u.km / u.s)
    then = now.apply_space_motion(new_obstime=Time(2000.0, format="jyear"))
    return (float(then.ra.deg), float(then.dec.deg), float(then.pm_ra_cosdec.to_value(u.mas / u.yr)),
            float(then.pm_dec.to_value(u.mas / u.yr)), float(then.distance.parallax.to_value(u.mas)),
            float(then.radial_velocity.to_value(u.km / u.s)))


def simbad_answer(query: str) -> bytes:
    """research_server's SIMBAD answers, the Gaia star by its Gaia DR3 designation, and the fast star
    (both constructed)."""
    name = re.search(r"ident\.id = '((?:[^']|'')*)'", query)
    wanted = " ".join(name.group(1).replace("''", "'").split()).lower() if name else ""
    if wanted in (GAIA_STAR.lower(), FAST_STAR.lower()):
        from astropy.io.votable import from_table
        from astropy.io.votable.tree import Info
        from astropy.table import Table

        if wanted == FAST_STAR.lower():
            ra, dec, *motion = fast_star_j2000()
            table = Table(rows=[("NAME Barnard's Star", "BY*", "BY Dra Variable", ra, dec, 3000, *motion)],
                          names=("main_id", "otype", "otype_label", "ra", "dec", "nbref", *FAST_MOTION))
        else:
            star = Table.read(io.BytesIO(fixture(GAIA)), format="votable")[0]
            table = Table(rows=[(GAIA_STAR, "*", "Star", float(star["ra"]), float(star["dec"]), 1)],
                          names=("main_id", "otype", "otype_label", "ra", "dec", "nbref"))
        votable = from_table(table)
        votable.resources[0].type = "results"
        votable.resources[0].infos.append(Info(name="QUERY_STATUS", value="OK"))
        out = io.BytesIO()
        votable.to_xml(out)
        return out.getvalue()
    return simbad_votable(query)


def datalink_answer(ident: str) -> bytes:
    """A DataLink links response (constructed, with the standard's columns): the recorded Gaia star has
    its row and its epoch photometry; any other identifier gets the standard's error row."""
    from astropy.io.votable import from_table
    from astropy.io.votable.tree import Info
    from astropy.table import Table

    names = ("ID", "access_url", "service_def", "error_message", "semantics", "description", "content_type",
             "content_length")
    base = "https://gea.esac.esa.int/data-server/data?ID=" + ident.replace(" ", "+")
    if " ".join(ident.split()).lower() == GAIA_STAR.lower():
        rows = [(ident, base + "&RETRIEVAL_TYPE=EPOCH_PHOTOMETRY", "", "", "#epoch-photometry",
                 "Epoch photometry (G, BP, RP)", "application/x-votable+xml", 52_340),
                (ident, base + "&RETRIEVAL_TYPE=XP_SAMPLED", "", "", "#auxiliary", "XP sampled spectrum",
                 "application/x-votable+xml", 1_250_000)]
    else:
        rows = [(ident, "", "", f"NotFoundFault: {ident} is not a known source", "#this", "", "", 0)]
    votable = from_table(Table(rows=rows, names=names))
    votable.resources[0].type = "results"
    votable.resources[0].infos.append(Info(name="QUERY_STATUS", value="OK"))
    out = io.BytesIO()
    votable.to_xml(out)
    return out.getvalue()


class CatalogServer(JobList):
    def __init__(self) -> None:
        self.hits: list[Hit] = []
        self.capability_requests: list[str] = []  # GET SERVICE/capabilities (stated.py), 404 here
        self.scripted: list[Scripted] = []
        self.jobs: dict[str, Job] = {}
        self.created = 0  # jobs created, deleted or not
        self.lock = threading.Lock()
        self.httpd = QuickHTTPServer.routing(lambda request, method: self._handle(request))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.port}"

    def config(self) -> dict[str, Any]:
        """config 'catalog.services' pointing every built-in service here (Gaia's DataLink too)."""
        found: dict[str, Any] = {name: {"url": f"{self.url}/{name}"} for name in SERVICES}
        found["gaia"]["datalink_url"] = f"{self.url}/gaia/datalink"
        return found

    def env(self) -> dict[str, str]:
        import json

        # No result caching: these tests count the requests each query sends (tests/catalog/test_catalog_cache.py
        # turns it on).
        return {"ASTRO_CATALOG_SERVICES": json.dumps(self.config()), "ASTRO_SIMBAD_URL": f"{self.url}/simbad",
                "ASTRO_CATALOG_REGISTRY_URL": f"{self.url}/registry", "ASTRO_CATALOG_CACHE_HOURS": "0"}

    def answer(self, service: str, body: bytes, status: int = 200, ctype: str = "application/x-votable+xml",
               when: str = "") -> None:
        with self.lock:
            self.scripted.append(Scripted(service, status, body, ctype=ctype, when=when))

    def fail(self, service: str, status: int = 500, body: bytes = b"Internal Server Error", delay: float = 0.0) -> None:
        with self.lock:
            self.scripted.append(Scripted(service, status, body, delay, "text/plain"))

    def queries(self, service: str) -> list[str]:
        return [h.query for h in self.hits if h.service == service and h.path.endswith("/sync")]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        fields, uploads = form_of(handler.headers.get("Content-Type") or "", handler.rfile.read(length) if length else b"")
        form = {**parse_qs(parts.query), **fields}
        service = parts.path.strip("/").split("/")[0]
        query = (form.get("QUERY") or [""])[0]
        if service != "registry" and parts.path.rstrip("/").endswith("/capabilities"):
            # What a service states about itself (catalog/stated.py): these stand-ins state nothing,
            # kept apart from `hits` so the requests a query sends are counted as before.
            with self.lock:
                self.capability_requests.append(parts.path)
            self._send(handler, 404, b"not found", "text/plain")
            return
        with self.lock:
            self.hits.append(Hit(service, parts.path, query, (form.get("MAXREC") or [None])[0],
                                 dict(handler.headers), uploads))
        if "/async" in parts.path:
            self._async(handler, service, parts.path, handler.command, query, form, uploads)
            return
        with self.lock:
            scripted = next((s for s in self.scripted if s.service == service and s.when in query), None)
            if scripted is not None:
                self.scripted.remove(scripted)
        if scripted is not None:
            if scripted.delay:
                time.sleep(scripted.delay)
            self._send(handler, scripted.status, scripted.body, scripted.ctype)
            return
        if parts.path.rstrip("/").endswith("/datalink"):
            self._send(handler, 200, datalink_answer((form.get("ID") or [""])[0]), "application/x-votable+xml")
            return
        status, payload, ctype = self._route(service, parts.path, query, uploads)
        self._send(handler, status, payload, ctype)

    def _route(self, service: str, path: str, query: str,
               uploads: dict[str, bytes] | None = None) -> tuple[int, bytes, str]:
        rest = path.strip("/").split("/", 1)[1] if "/" in path.strip("/") else ""
        if service == "registry" and rest in REGISTRY:
            return 200, fixture(REGISTRY[rest]), "text/xml"
        if rest == "sync":
            error = adql_error(query)
            if error:
                return 400, simbad_error_votable(error), "application/x-votable+xml"
            if service == "simbad":
                return 200, simbad_answer(query), "application/x-votable+xml"
            if service == "gaia":
                return 200, gaia_rows(query, uploads), "application/x-votable+xml"
            if service in ANSWERS:
                return 200, fixture(ANSWERS[service]), "application/x-votable+xml"
        if rest == "tables" and service in TABLES:
            return 200, fixture(TABLES[service]), "text/xml"
        if rest.startswith("tables/") and service in TABLES:
            return 404, f"no table {unquote(rest[7:])}".encode(), "text/plain"
        return 404, b"not found", "text/plain"

    def _send(self, handler: Any, status: int, payload: bytes, ctype: str) -> None:
        send(handler, status, payload, ctype)
