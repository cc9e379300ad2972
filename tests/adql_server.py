"""A TAP service on 127.0.0.1 that executes ADQL (tests/adql_engine.py: a real ADQL parser over SQLite).

Unlike tests/catalog_server.py (recorded answers), every answer here is computed from the tables the
test adds, so a wrong query (a column, a cone, a join) gives wrong rows or the service's error and
the test fails. Paths, as pyvo speaks them:
  /<service>/sync            QUERY (+ MAXREC, multipart TAP_UPLOAD): the rows as a VOTable, or a TAP
                             error document (QUERY_STATUS=ERROR, HTTP 400) with the parser's or SQLite's
                             words; MAXREC cuts the rows and says OVERFLOW.
  /<service>/async           UWS (tests/catalog_uws.py's job list); a job runs in a thread once RUN is
                             posted; while `hold` is set, jobs stay EXECUTING (a long query), so a
                             timeout and a cancel can be tested; DELETE removes a job; PHASE=ABORT aborts it.
  /<service>/datalink?ID=    DataLink links: each id in `products` gets one row per product, whose
                             access_url is /<service>/products/<file> on this server.
  /<service>/products/<file> the product's bytes (e.g. a real FITS spectrum the test made).
Every service name is served by one engine (one set of tables): name it as astro's config does
(`gaia`, so that astro's Gaia settings, cone table and epoch, apply).
"""

from __future__ import annotations

import io
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit
from xml.sax.saxutils import escape

from tests.adql_engine import AdqlEngine, AdqlError
from tests.catalog_uws import Job, JobList, form_of
from tests.quick_server import QuickHTTPServer, send


def error_votable(message: str) -> bytes:
    """A TAP error document (QUERY_STATUS=ERROR), as TAP services answer an ADQL they cannot run."""
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<VOTABLE version="1.3" '
            'xmlns="http://www.ivoa.net/xml/VOTable/v1.3">\n<RESOURCE type="results">\n'
            f'<INFO name="QUERY_STATUS" value="ERROR">{escape(message)}</INFO>\n</RESOURCE>\n</VOTABLE>\n').encode()


def result_votable(table: Any, overflow: bool) -> bytes:
    from astropy.io.votable import from_table
    from astropy.io.votable.tree import Info

    votable = from_table(table)
    votable.resources[0].type = "results"
    votable.resources[0].infos.append(Info(name="QUERY_STATUS", value="OVERFLOW" if overflow else "OK"))
    out = io.BytesIO()
    votable.to_xml(out)
    return out.getvalue()


@dataclass
class Product:
    """A DataLink product: its file's bytes and the DataLink row's fields."""

    name: str
    payload: bytes
    semantics: str = "#this"
    description: str = ""
    content_type: str = "application/fits"
    access_url: str = ""  # the DataLink row's URL when it is not this server's products/<name>
    redirect: str = ""  # products/<name> answers 302 to this URL instead of the bytes


@dataclass
class Hit:
    path: str
    query: str
    method: str


class AdqlServer(JobList):
    """The service; `engine.add_table(...)` fills it, `hits` lists requests, `jobs` the undeleted jobs."""

    def __init__(self, folder: Path) -> None:
        self.engine = AdqlEngine(folder)
        self.hits: list[Hit] = []
        self.jobs: dict[str, Job] = {}
        self.created = 0
        self.scripted: list[Any] = []
        self.products: dict[str, list[Product]] = {}
        self.busy: list[float] = []  # seconds each query took the service (parse, SQLite, the VOTable)
        self.hold = False  # True: jobs stay EXECUTING until release() (a long query)
        # What the service states about itself (tests/tap_documents.py): /capabilities, /examples; 404 when None.
        self.capabilities: bytes | None = None
        self.examples: bytes | None = None
        self.changed = threading.Condition()  # notified whenever a job's phase changes
        self.lock = threading.Lock()
        self.httpd = QuickHTTPServer.routing(lambda request, method: self._handle(request))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.port}"

    def service_entry(self, name: str = "gaia") -> dict[str, Any]:
        """A 'catalog.services' entry pointing `name` here (with its DataLink endpoint)."""
        return {"url": f"{self.url}/{name}", "datalink_url": f"{self.url}/{name}/datalink"}

    def queries(self) -> list[str]:
        return [h.query for h in self.hits if h.query]

    def wait_for(self, predicate: Any, timeout: float = 60.0) -> bool:
        """Wait until predicate(self) holds (checked at every job change), at most `timeout` seconds."""
        with self.changed:
            return self.changed.wait_for(lambda: predicate(self), timeout)

    def release(self) -> None:
        """Let held jobs run."""
        with self.changed:
            self.hold = False
            self.changed.notify_all()

    def close(self) -> None:
        self.release()
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        fields, uploads = form_of(handler.headers.get("Content-Type") or "", handler.rfile.read(length) if length else b"")
        form = {**parse_qs(parts.query), **fields}
        service, _, rest = parts.path.strip("/").partition("/")
        query = (form.get("QUERY") or [""])[0]
        with self.lock:
            self.hits.append(Hit(parts.path, query, handler.command))
        if rest.startswith("async"):
            self._async(handler, service, parts.path, handler.command, query, form, uploads)
            with self.changed:
                self.changed.notify_all()  # a job created, run, aborted or deleted
        elif rest == "sync":
            self._send(handler, *self._execute(query, form, uploads))
        elif rest in ("capabilities", "examples"):
            document = self.capabilities if rest == "capabilities" else self.examples
            if document is None:
                self._send(handler, 404, b"not found", "text/plain")
            else:
                kind = "text/xml" if rest == "capabilities" else "application/xhtml+xml"
                self._send(handler, 200, document, kind)
        elif rest == "datalink":
            self._send(handler, 200, self._links(service, (form.get("ID") or [""])[0]), "application/x-votable+xml")
        elif rest.startswith("products/"):
            found = [p for ps in self.products.values() for p in ps if p.name == unquote(rest[9:])]
            if found and found[0].redirect:
                handler.send_response(302)
                handler.send_header("Location", found[0].redirect)
                handler.send_header("Content-Length", "0")
                handler.end_headers()
            elif found:
                self._send(handler, 200, found[0].payload, found[0].content_type)
            else:
                self._send(handler, 404, b"no such product", "text/plain")
        else:
            self._send(handler, 404, b"not found", "text/plain")

    def _execute(self, query: str, form: dict[str, list[str]], uploads: dict[str, bytes]) -> tuple[int, bytes, str]:
        raw = (form.get("MAXREC") or [""])[0]
        maxrec = int(raw) if raw.isdigit() else None
        started = time.monotonic()
        try:
            table = self.engine.run(query, uploads, maxrec)
        except AdqlError as exc:
            return 400, error_votable(str(exc)), "application/x-votable+xml"
        finally:
            self.busy.append(time.monotonic() - started)
        overflow = maxrec is not None and len(table) > maxrec
        payload = result_votable(table[:maxrec] if overflow else table, overflow)
        self.busy[-1] = time.monotonic() - started
        return 200, payload, "application/x-votable+xml"

    def _links(self, service: str, ident: str) -> bytes:
        from astropy.io.votable import from_table
        from astropy.io.votable.tree import Info
        from astropy.table import Table

        names = ("ID", "access_url", "service_def", "error_message", "semantics", "description", "content_type",
                 "content_length")
        products = self.products.get(" ".join(ident.split()), [])
        rows = [(ident, p.access_url or f"{self.url}/{service}/products/{p.name}", "", "", p.semantics, p.description,
                 p.content_type, len(p.payload)) for p in products]
        if not rows:
            rows = [(ident, "", "", f"NotFoundFault: {ident} is not a known source", "#this", "", "", 0)]
        votable = from_table(Table(rows=rows, names=names))
        votable.resources[0].type = "results"
        votable.resources[0].infos.append(Info(name="QUERY_STATUS", value="OK"))
        out = io.BytesIO()
        votable.to_xml(out)
        return out.getvalue()

    def _run(self, job: Job) -> None:
        """Start the job in a thread (EXECUTING until it ends; held while `hold` is set)."""
        job.phase = "EXECUTING"
        threading.Thread(target=self._work, args=(job,), daemon=True).start()

    def _work(self, job: Job) -> None:
        with self.changed:  # woken by release() and by every request to the job list (DELETE, ABORT)
            self.changed.wait_for(lambda: not self.hold or job.phase != "EXECUTING" or job not in self.jobs.values())
        if job.phase != "EXECUTING" or job not in self.jobs.values():
            return
        status, payload, _ = self._execute(job.query, {"MAXREC": [str(job.maxrec)]} if job.maxrec else {},
                                           job.uploads)
        if status >= 400:
            job.phase, job.error = "ERROR", payload.decode(errors="replace").split('value="ERROR">')[-1].split("<")[0]
        else:
            job.phase, job.payload = "COMPLETED", payload
        with self.changed:
            self.changed.notify_all()

    def _send(self, handler: Any, status: int, payload: bytes, ctype: str) -> None:
        send(handler, status, payload, ctype)
