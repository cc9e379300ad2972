"""A stand-in for arXiv, NASA ADS and SIMBAD on 127.0.0.1, answering with the recorded fixtures.

Paths follow the real services, so astro only needs its endpoint settings pointed here
(`server.env()`):
    GET  /api/query              arXiv API: id_list / search_query -> recorded Atom feeds
    GET  /pdf/<id>, /e-print/<id> arXiv files: the real PDFs (HTTP Range honoured), the emcee LaTeX
    GET  /v1/search/query         ADS search: recorded JSON (Bearer token checked)
    POST /v1/export/bibtex        ADS export: the recorded BibTeX in ADS's {"msg", "export"} wrapper
    POST /simbad/sim-tap/sync     SIMBAD TAP: a VOTable (see simbad_votable for how it is built)
    GET  /crossref/works/<doi>    Crossref: the recorded work JSON (CROSSREF_WORKS), 404 for others
    GET  /inspire/literature?q=   INSPIRE-HEP search: the recorded answer for q="a Witten" (INSPIRE_SEARCH)
    GET  /inspire/literature/<id> INSPIRE-HEP record: that record's hit from the recorded search, 404 for others
Failures are scripted with `fail(prefix, ...)`: an HTTP status with headers, a delay longer than
the client's timeout, a body cut short, or a different body (a non-PDF). Every request is recorded.

What is constructed rather than recorded (each says so where it is built): the ADS envelope around
the single emcee doc, the {"msg", "export"} wrapper of the export text (per the export service's
README), the gzip/tar packing of the emcee .tex, the SIMBAD TAP VOTables, and an INSPIRE record's answer
(one hit of the recorded search, which has the shape INSPIRE's /api/literature/RECID answers with).
"""

from __future__ import annotations

import gzip
import io
import json
import re
import tarfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.paths import FIXTURES_DIR
from tests.quick_server import QuickHTTPServer

FIXTURES = FIXTURES_DIR
ADS_TOKEN = "test-ads-token-not-real"
# The client's timeout (ASTRO_HTTP_TIMEOUT) in tests of the stand-in: it answers at once, but a loaded
# machine can hold an answer for seconds, so the ceiling is generous. A test of the timeout itself sets
# a short one of its own (0.3 s) and a delay past it (`fail(..., delay=...)`).
CLIENT_TIMEOUT = "60"
EMPTY_FEED = "arxiv/id_list_0000.0000_no_results.xml"
ARXIV_IDS = {
    "astro-ph/0601001": "arxiv/id_list_astro-ph_0601001.xml",
    "1111.2011": "arxiv/id_list_1111.2011v2_legacy2016.xml",
}
ARXIV_SEARCHES = {"testing": "arxiv/search_query_testing_max10.xml", "ogle": "arxiv/id_list_astro-ph_0601001.xml",
                  # the 1111.2011 record (Murray, Del Maestro, Tesanovic; submitted 2011, PRB 2012) by author
                  "tesanovic": "arxiv/id_list_1111.2011v2_legacy2016.xml"}
PDFS = {
    "1001.0012": "papers/arXiv_1001.0012v2_astro-ph.EP.pdf",
    "1111.2011": "papers/arXiv_1111.2011v2_cond-mat.pdf",
}
EMCEE_TEX = "papers/emcee_2013PASP_ms.tex"
# Crossref /works/DOI: the recorded answer for Crossref's test DOI, retracted 2009 and corrected 2018
CROSSREF_WORKS = {"10.5555/12345678": "crossref/works_10.5555_12345678_updated-by_retraction.json"}
# INSPIRE-HEP /api/literature?q="a Witten"&size=10, recorded (tests/fixtures/PROVENANCE.md)
INSPIRE_SEARCH = "inspire/literature_q_a_Witten_size10.json"
EMCEE_IDS = ("2013PASP..125..306F", "1202.3665", "10.1086/670067", "emcee")


@dataclass
class Failure:
    prefix: str
    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b"Internal Server Error"
    delay: float = 0.0
    cut_after: int | None = None  # send the real answer's headers, then only this many bytes
    # Set when the answer is about to go out (after `delay`): a test can tell whether a client
    # gave up before it (the order of events, which load cannot reorder as it can stretch a clock).
    answering: threading.Event = field(default_factory=threading.Event)


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    at: float


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def gzip_bytes(data: bytes) -> bytes:
    """Constructed: arXiv serves a one-file source as a gzip'd .tex; we pack the real ms.tex that way."""
    return gzip.compress(data, mtime=0)


def tar_gz_bytes(files: dict[str, bytes]) -> bytes:
    """Constructed: a gzip'd tar as arXiv serves multi-file sources, holding real files."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


class ResearchServer:
    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.failures: list[Failure] = []
        self.lock = threading.Lock()
        self.eprints: dict[str, bytes] = {
            "1202.3665": gzip_bytes(fixture(EMCEE_TEX)),
            "1001.0012": fixture(PDFS["1001.0012"]),  # a PDF-only submission: /e-print gives the PDF
        }
        self.pdfs = dict(PDFS)
        self.slow: dict[str, float] = {}  # path prefix -> seconds over which its answers trickle out
        # references()/citations()/similar() answers: the recorded q=star response, paged by start/rows;
        # `graph_total` replaces its numFound (constructed: a paper with that many citations)
        self.graph_total: int | None = None
        # Constructed: when set, every ADS search/query answer is this JSON value (a hostile or broken ADS:
        # records with escape sequences, wrong types, huge values; attack tests set it)
        self.ads_answer: Any = None
        self.crossref_answer: Any = None  # the same for Crossref's /works/DOI answers
        self.simbad_answer: bytes | None = None  # and a VOTable for every SIMBAD TAP query
        self.httpd = QuickHTTPServer.routing(self._handle)  # serves in its own thread; closes at once
        self.thread = self.httpd.thread

    # --- public ----------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def env(self, **extra: str) -> dict[str, str]:
        return {
            "ASTRO_ARXIV_URL": self.url + "/api/query",
            "ASTRO_ARXIV_PDF_URL": self.url,
            "ASTRO_ADS_URL": self.url + "/v1",
            "ASTRO_SIMBAD_URL": self.url + "/simbad/sim-tap",
            "ASTRO_CROSSREF_URL": self.url + "/crossref",
            "ASTRO_INSPIRE_URL": self.url + "/inspire",
            "ASTRO_ARXIV_MIN_INTERVAL": "0",
            **extra,
        }

    def fail(self, prefix: str, status: int = 500, **kwargs: Any) -> Failure:
        failure = Failure(prefix, status, **kwargs)
        with self.lock:
            self.failures.append(failure)
        return failure

    def slow_down(self, prefix: str, seconds: float) -> None:
        """Answers under `prefix` arrive in pieces spread over `seconds` (a slow link; races show)."""
        self.slow[prefix] = seconds

    def hits(self, prefix: str) -> list[Request]:
        return [r for r in self.requests if r.path.startswith(prefix)]

    def close(self) -> None:
        self.httpd.server_close()

    # --- serving ---------------------------------------------------------------------------
    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        parts = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        request = Request(method, parts.path, parse_qs(parts.query), dict(handler.headers), body, time.monotonic())
        with self.lock:
            self.requests.append(request)
            failure = next((f for f in self.failures if parts.path.startswith(f.prefix)), None)
            if failure is not None:
                self.failures.remove(failure)
        try:
            if failure is not None and failure.delay:
                time.sleep(failure.delay)
            if failure is not None:
                failure.answering.set()
            if failure is not None and failure.cut_after is None:
                self._send(handler, failure.status, failure.body, "text/plain", failure.headers)
                return
            status, payload, ctype, headers = self._route(request)
            if failure is not None and failure.cut_after is not None:
                self._send_cut(handler, payload, ctype, failure.cut_after)
                return
            pace = next((seconds for prefix, seconds in self.slow.items() if parts.path.startswith(prefix)), 0.0)
            self._send(handler, status, payload, ctype, headers, pace)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _send(self, handler: Any, status: int, payload: bytes, ctype: str, headers: dict[str, str],
              pace: float = 0.0) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", ctype)
        handler.send_header("Content-Length", str(len(payload)))
        for key, value in headers.items():
            handler.send_header(key, value)
        handler.end_headers()
        if not pace:
            handler.wfile.write(payload)
            return
        step = max(1, len(payload) // 10)
        for start in range(0, len(payload), step):
            handler.wfile.write(payload[start : start + step])
            handler.wfile.flush()
            time.sleep(pace / 10)

    def _send_cut(self, handler: Any, payload: bytes, ctype: str, keep: int) -> None:
        """Promise the whole body, deliver `keep` bytes, hang up (a dropped connection)."""
        handler.send_response(200)
        handler.send_header("Content-Type", ctype)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload[:keep])
        handler.wfile.flush()
        handler.close_connection = True

    def _route(self, request: Request) -> tuple[int, bytes, str, dict[str, str]]:
        path = request.path
        if path == "/api/query":
            return self._arxiv_api(request)
        if path.startswith("/pdf/"):
            return self._file(request, self.pdfs.get(_base_id(path[5:])), "application/pdf")
        if path.startswith("/e-print/"):
            data = self.eprints.get(_base_id(path[9:]))
            if data is None:
                return 404, b"no source", "text/plain", {}
            return 200, data, "application/x-eprint-tar", {}
        if path.startswith("/v1/"):
            return self._ads(request)
        if path.startswith("/simbad/sim-tap/sync"):
            return self._simbad(request)
        if path.startswith("/crossref/works/") and self.crossref_answer is not None:
            return 200, json.dumps(self.crossref_answer).encode(), "application/json", {}
        if path.startswith("/crossref/works/"):
            name = CROSSREF_WORKS.get(unquote(path[len("/crossref/works/"):]).lower())
            if name is None:  # as Crossref answers an unknown DOI
                return 404, b"Resource not found.", "text/plain", {}
            return 200, fixture(name), "application/json", {}
        if path.startswith("/inspire/literature"):
            return self._inspire(path)
        return 404, b"not found", "text/plain", {}

    def _inspire(self, path: str) -> tuple[int, bytes, str, dict[str, str]]:
        """The recorded search for any query (the request's q is in `requests`); a record by its recid."""
        recorded = fixture(INSPIRE_SEARCH)
        recid = path[len("/inspire/literature"):].strip("/")
        if not recid:
            return 200, recorded, "application/json", {}
        hits = json.loads(recorded)["hits"]["hits"]
        hit = next((h for h in hits if h["id"] == recid), None)
        if hit is None:  # as INSPIRE answers an unknown record
            return 404, b'{"status": 404, "message": "PID does not exist."}', "application/json", {}
        return 200, json.dumps(hit).encode(), "application/json", {}

    def _arxiv_api(self, request: Request) -> tuple[int, bytes, str, dict[str, str]]:
        id_list = (request.query.get("id_list") or [""])[0]
        search = (request.query.get("search_query") or [""])[0].lower()
        name = EMPTY_FEED
        if id_list:
            name = ARXIV_IDS.get(_base_id(id_list), EMPTY_FEED)
        else:
            name = next((f for key, f in ARXIV_SEARCHES.items() if key in search), EMPTY_FEED)
            window = re.search(r"submitteddate:\[(\d{8})\d* to (\d{8})\d*\]", search)
            if window:  # as arXiv does: only entries submitted within the window
                return 200, _submitted_within(fixture(name), *window.groups()), "application/atom+xml", {}
        return 200, fixture(name), "application/atom+xml; charset=utf-8", {}

    def _file(self, request: Request, name: str | bytes | None, ctype: str) -> tuple[int, bytes, str, dict[str, str]]:
        if name is None:
            return 404, b"Not found", "text/html", {}
        data = fixture(name) if isinstance(name, str) else name
        match = re.match(r"bytes=(\d+)-$", request.headers.get("Range", ""))
        if not match:
            return 200, data, ctype, {"Accept-Ranges": "bytes"}
        start = int(match.group(1))
        if start >= len(data):
            return 416, b"", ctype, {"Content-Range": f"bytes */{len(data)}"}
        return 206, data[start:], ctype, {"Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}"}

    # --- ADS ---------------------------------------------------------------------------------
    def _ads(self, request: Request) -> tuple[int, bytes, str, dict[str, str]]:
        if request.headers.get("Authorization") != f"Bearer {ADS_TOKEN}":
            return 401, b'{"error": "Unauthorized"}', "application/json", {}
        limits = {"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "4999", "X-RateLimit-Reset": "1767225600"}
        if request.path == "/v1/export/bibtex":
            wanted = json.loads(request.body or b"{}").get("bibcode") or []
            entries = [e for e in _bibtex_entries(fixture("ads/export_bibtex_3bibcodes.export.txt").decode())
                       if any("{" + b + "," in e for b in wanted)]
            # Constructed wrapper: the recorded fixture is only the value of "export".
            payload = {"msg": f"Retrieved {len(entries)} abstracts, starting with number 1.",
                       "export": "\n".join(entries)}
            return 200, json.dumps(payload).encode(), "application/json", limits
        if request.path == "/v1/search/query" and self.ads_answer is not None:
            return 200, json.dumps(self.ads_answer).encode(), "application/json", limits
        if request.path == "/v1/search/query":
            q = (request.query.get("q") or [""])[0]
            rows = int((request.query.get("rows") or ["10"])[0])
            graph = re.match(r"(references|citations|similar)\(bibcode:([^)]+)\)$", q)
            if graph:
                return 200, json.dumps(self._ads_graph(request)).encode(), "application/json", limits
            if any(key.lower() in q.lower() for key in EMCEE_IDS):
                doc = json.loads(fixture("ads/doc_2013PASP.125..306F_emcee_allfields.json"))
                # Constructed envelope around the recorded doc (the fixture is the doc alone).
                body = {"responseHeader": {"status": 0, "QTime": 1, "params": {"q": q}},
                        "response": {"numFound": 1, "start": 0, "docs": [doc]}}
            elif re.search(r"\bstar\b", q.lower()):
                body = json.loads(fixture("ads/search_query_q-star_rows25.json"))
                body["response"]["docs"] = body["response"]["docs"][:rows]  # the server honours rows
            else:
                body = {"responseHeader": {"status": 0, "QTime": 1, "params": {"q": q}},
                        "response": {"numFound": 0, "start": 0, "docs": []}}
            return 200, json.dumps(body).encode(), "application/json", limits
        return 404, b'{"error": "no such endpoint"}', "application/json", {}

    def _ads_graph(self, request: Request) -> dict[str, Any]:
        """A citation-operator query answered with the recorded q=star response (the same search/query
        JSON shape; no recorded references()/citations() answer exists in public repositories),
        paged as ADS pages: docs[start:start+rows], numFound unchanged (or `graph_total`)."""
        rows = int((request.query.get("rows") or ["10"])[0])
        start = int((request.query.get("start") or ["0"])[0])
        body = json.loads(fixture("ads/search_query_q-star_rows25.json"))
        docs = body["response"]["docs"]
        body["response"]["docs"] = docs[start % len(docs):][:rows] if start < (self.graph_total or 10**9) else []
        body["response"]["start"] = start
        if self.graph_total is not None:
            body["response"]["numFound"] = self.graph_total
        return body

    # --- SIMBAD --------------------------------------------------------------------------------
    def _simbad(self, request: Request) -> tuple[int, bytes, str, dict[str, str]]:
        form = parse_qs(request.body.decode())
        query = (form.get("QUERY") or [""])[0]
        if self.simbad_answer is not None:
            return 200, self.simbad_answer, "application/x-votable+xml", {}
        return 200, simbad_votable(query), "application/x-votable+xml", {}


def _submitted_within(feed: bytes, start: str, end: str) -> bytes:
    """The recorded feed without the entries whose <published> date lies outside [start, end] (YYYYMMDD)."""
    def keep(match: re.Match[bytes]) -> bytes:
        published = re.search(rb"<published>(\d{4})-(\d\d)-(\d\d)", match.group(0))
        day = b"".join(published.groups()).decode() if published else ""
        return match.group(0) if start <= day <= end else b""

    return re.sub(rb"<entry>.*?</entry>\s*", keep, feed, flags=re.DOTALL)


def _base_id(raw: str) -> str:
    return re.sub(r"v\d+$", "", raw.strip())


def _bibtex_entries(text: str) -> list[str]:
    """The recorded export's entries, each as recorded (the first one too: no doubled '@')."""
    return [part.strip() + "\n" for part in re.split(r"\n(?=@)", text) if part.strip()]


# --- SIMBAD TAP answers ------------------------------------------------------------------------
def simscript_rows(name: str) -> list[tuple[str, float, float]]:
    """(main_id, ra, dec) from a recorded sim-script answer (legacy SIMBAD, VOTable after ::data::)."""
    from astropy.coordinates import SkyCoord
    from astropy.io.votable import parse_single_table

    text = fixture(f"simbad/{name}").decode()
    votable = text[text.index("<?xml"):]
    table = parse_single_table(io.BytesIO(votable.encode())).to_table()
    rows = []
    for row in table:
        coord = SkyCoord(str(row["RA"]), str(row["DEC"]), unit=("hourangle", "deg"))
        rows.append((str(row["MAIN_ID"]), float(coord.ra.deg), float(coord.dec.deg)))
    return rows


# Columns other than main_id/ra/dec are typed in for the tests: SIMBAD's TAP answers for objects
# were never recorded. They are plausible, not SIMBAD's actual values.
TEST_VALUES = {
    "M  31": {"otype": "G", "otype_label": "Galaxy", "rvz_type": "v", "rvz_redshift": -0.001, "rvz_radvel": -300.0,
              "sp_type": None, "nbref": 1234, "plx_value": None, "B": 4.36, "V": 3.44},
    "M  51": {"otype": "G", "otype_label": "Galaxy", "rvz_type": "v", "rvz_redshift": 0.0016, "rvz_radvel": 463.0,
              "sp_type": None, "nbref": 567, "plx_value": None, "V": 8.4},
}
FLUXES = ("U", "B", "V", "R", "I", "J", "H", "K", "G")


def simbad_votable(query: str) -> bytes:
    """A SIMBAD TAP answer built with astropy's own VOTable writer from an astropy Table.

    Constructed, not recorded: main identifiers and coordinates come from the recorded sim-script
    answers (M 31 / M 51 by name; the five objects around M 31 for a cone), the other columns from
    TEST_VALUES. The column names are the ones astro's ADQL asks for.
    """
    import numpy as np
    from astropy.io.votable import from_table
    from astropy.io.votable.tree import Info
    from astropy.table import MaskedColumn, Table

    rows: list[dict[str, Any]] = []
    cone = "CONTAINS(" in query
    name = re.search(r"ident\.id = '((?:[^']|'')*)'", query)
    if name:
        wanted = re.sub(r"\s+", "", name.group(1).replace("''", "'")).lower()
        for main_id, ra, dec in simscript_rows("sim-script_query_id_m31_m51.txt"):
            if re.sub(r"\s+", "", main_id).lower() == wanted:
                rows.append({"main_id": main_id, "ra": ra, "dec": dec, **TEST_VALUES.get(main_id, {})})
    elif cone:
        center = re.search(r"CIRCLE\('ICRS', ([-\d.]+), ([-\d.]+), ([-\d.]+)\)", query)
        ra0, dec0, radius = (float(center.group(i)) for i in (1, 2, 3)) if center else (0.0, 0.0, 0.0)
        for main_id, ra, dec in simscript_rows("sim-script_query_around_m31.txt"):
            dist = float(np.hypot((ra - ra0) * np.cos(np.radians(dec0)), dec - dec0)) * 3600
            if dist <= radius * 3600:
                rows.append({"main_id": main_id, "ra": ra, "dec": dec, "dist_arcsec": dist,
                             **TEST_VALUES.get(main_id, {"otype": "X", "nbref": 1})})
        rows.sort(key=lambda r: r["dist_arcsec"])
    columns = ["main_id", "otype", "otype_label", "ra", "dec", "rvz_type", "rvz_redshift", "rvz_radvel",
               "sp_type", "nbref", "plx_value", *FLUXES] + (["dist_arcsec"] if cone else [])
    kinds = {"ra": float, "dec": float, "rvz_redshift": float, "rvz_radvel": float, "plx_value": float,
             "dist_arcsec": float, "nbref": int, **{f: float for f in FLUXES}}
    table = Table()
    for column in columns:
        kind = kinds.get(column, str)
        values = [r.get(column) for r in rows]
        mask = [v is None for v in values]
        filler = {float: 0.0, int: 0, str: ""}[kind]
        data = np.array([filler if v is None else v for v in values],
                        dtype={float: "f8", int: "i4", str: "U64"}[kind])
        table[column] = MaskedColumn(data, mask=mask, name=column)
    votable = from_table(table)
    votable.resources[0].type = "results"
    votable.resources[0].infos.append(Info(name="QUERY_STATUS", value="OK"))
    out = io.BytesIO()
    votable.to_xml(out)
    return out.getvalue()


def simbad_error_votable(message: str) -> bytes:
    """A TAP error document (QUERY_STATUS=ERROR), as TAP services answer an ADQL they cannot run."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<VOTABLE version="1.3" xmlns="http://www.ivoa.net/xml/VOTable/v1.3">\n'
        '<RESOURCE type="results">\n'
        f'<INFO name="QUERY_STATUS" value="ERROR">{message}</INFO>\n'
        "</RESOURCE>\n</VOTABLE>\n"
    ).encode()


# --- pytest fixtures (import them into a test module: `from tests.research_server import research, ...`)
try:
    import pytest
except ImportError:  # pragma: no cover - the server also runs outside pytest
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.fixture
    def research():
        """The stand-in services, closed after the test."""
        server = ResearchServer()
        yield server
        server.close()

    @pytest.fixture
    def research_app(research, tmp_path, monkeypatch):
        """An AppContext for a fresh workspace whose research endpoints point at `research` (ADS token set)."""
        from tests.conftest import clear_astro_environment

        clear_astro_environment(monkeypatch)
        # Keyword search, as in the tests' base environment (conftest.base_env): no background process
        # embeds a parsed paper with the local model while the test goes on.
        for key, value in research.env(ASTRO_HOME=str(tmp_path / "astro-home"), ASTRO_HTTP_TIMEOUT=CLIENT_TIMEOUT,
                                       ASTRO_LIBRARY_EMBEDDING_MODEL="off").items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("ADS_API_TOKEN", ADS_TOKEN)
        workspace = tmp_path / "project"
        workspace.mkdir(exist_ok=True)
        from astro_cli.bootstrap import build_app

        app = build_app(workspace=workspace)
        yield app
        app.close()
