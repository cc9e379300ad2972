"""The stand-in's UWS job list (/<service>/async) and pyvo's multipart requests (TAP_UPLOAD).

Constructed, as pyvo's AsyncTAPJob speaks it: POST /async creates a job (303 to it), POST
<job>/phase PHASE=RUN runs it at once with the answer /sync would give (a scripted answer with
status >= 400 makes it ERROR), GET <job> is its job document, GET <job>/results/result its VOTable,
DELETE <job> removes it. CatalogServer (tests/catalog_server.py) mixes JobList in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs


def form_of(content_type: str, raw: bytes) -> tuple[dict[str, list[str]], dict[str, bytes]]:
    """The request's fields, and its uploaded files (multipart/form-data, as pyvo sends TAP_UPLOAD)."""
    if not content_type.startswith("multipart/form-data"):
        return parse_qs(raw.decode()), {}
    from email.parser import BytesParser
    from email.policy import HTTP

    message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
    fields: dict[str, list[str]] = {}
    files: dict[str, bytes] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        if part.get_filename() is not None:
            files[str(name)] = payload
        else:
            fields.setdefault(str(name), []).append(payload.decode())
    return fields, files


@dataclass
class Job:
    """One UWS job of the stand-in's /async endpoint."""

    service: str
    query: str
    phase: str = "PENDING"
    status: int = 200
    payload: bytes = b""
    error: str = ""
    uploads: dict[str, bytes] = field(default_factory=dict)
    maxrec: int | None = None


def job_document(url: str, job_id: str, job: Job) -> bytes:
    """The UWS 1.1 job document pyvo parses (phase, error summary, the result's link)."""
    from xml.sax.saxutils import escape, quoteattr

    error = (f'<uws:errorSummary type="fatal" hasDetail="false"><uws:message>{escape(job.error)}</uws:message>'
             "</uws:errorSummary>") if job.phase == "ERROR" else ""
    results = (f'<uws:result id="result" xlink:href={quoteattr(url + "/results/result")}/>'
               if job.phase == "COMPLETED" else "")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<uws:job xmlns:uws="http://www.ivoa.net/xml/UWS/v1.0" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="1.1">'
        f"<uws:jobId>{job_id}</uws:jobId><uws:ownerId xsi:nil=\"true\"/><uws:phase>{job.phase}</uws:phase>"
        "<uws:quote xsi:nil=\"true\"/><uws:creationTime>2026-01-01T00:00:00Z</uws:creationTime>"
        "<uws:startTime xsi:nil=\"true\"/><uws:endTime xsi:nil=\"true\"/>"
        "<uws:executionDuration>600</uws:executionDuration><uws:destruction xsi:nil=\"true\"/>"
        f'<uws:parameters><uws:parameter id="query">{escape(job.query)}</uws:parameter></uws:parameters>'
        f"<uws:results>{results}</uws:results>{error}</uws:job>"
    ).encode()


class JobList:
    """The /async endpoint of CatalogServer: `jobs` holds the jobs not deleted, `created` counts all."""

    jobs: dict[str, Job]
    created: int
    scripted: list[Any]
    lock: Any
    url: str

    def _send(self, handler: Any, status: int, payload: bytes, ctype: str) -> None:
        raise NotImplementedError

    def _route(self, service: str, path: str, query: str,
               uploads: dict[str, bytes] | None = None) -> tuple[int, bytes, str]:
        raise NotImplementedError

    def _async(self, handler: Any, service: str, path: str, method: str, query: str,
               form: dict[str, list[str]], uploads: dict[str, bytes]) -> None:
        """The UWS job list at /<service>/async (see the module's docstring)."""
        rest = path.split("/async", 1)[1].strip("/")
        parts = rest.split("/") if rest else []
        if method == "POST" and not parts:
            with self.lock:
                self.created += 1
                job_id = str(self.created)
                maxrec = (form.get("MAXREC") or [""])[0]
                self.jobs[job_id] = Job(service, query, uploads=uploads, maxrec=int(maxrec) if maxrec.isdigit() else None)
            self._redirect(handler, f"/{service}/async/{job_id}")
            return
        job = self.jobs.get(parts[0]) if parts else None
        if job is None:
            self._send(handler, 404, b"no such job", "text/plain")
            return
        url = f"{self.url}/{service}/async/{parts[0]}"
        if method == "DELETE":
            with self.lock:
                self.jobs.pop(parts[0], None)
            self._redirect(handler, f"/{service}/async")
        elif parts[1:] == ["phase"] and method == "POST":
            if (form.get("PHASE") or [""])[0] == "RUN" and job.phase == "PENDING":
                self._run(job)
            elif (form.get("PHASE") or [""])[0] == "ABORT" and job.phase in ("PENDING", "QUEUED", "EXECUTING"):
                job.phase = "ABORTED"
            self._redirect(handler, f"/{service}/async/{parts[0]}")
        elif parts[1:] == ["results", "result"] and job.phase == "COMPLETED":
            self._send(handler, 200, job.payload, "application/x-votable+xml")
        elif parts[1:] == []:
            self._send(handler, 200, job_document(url, parts[0], job), "text/xml")
        else:
            self._send(handler, 404, b"not found", "text/plain")

    def _run(self, job: Job) -> None:
        """Run a job at once: the answer /sync would give (a scripted one first)."""
        with self.lock:
            scripted = next((s for s in self.scripted if s.service == job.service and s.when in job.query), None)
            if scripted is not None:
                self.scripted.remove(scripted)
        if scripted is not None:
            status, payload = scripted.status, scripted.body
        else:
            status, payload, _ = self._route(job.service, f"/{job.service}/sync", job.query, job.uploads)
        if status >= 400:
            found = re.search(rb'value="ERROR">(.*?)</INFO>', payload, re.S)
            job.phase, job.error = "ERROR", (found.group(1) if found else payload).decode(errors="replace")
        else:
            job.phase, job.payload = "COMPLETED", payload

    def _redirect(self, handler: Any, location: str) -> None:
        try:
            handler.send_response(303)
            handler.send_header("Location", f"{self.url}{location}")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        except (BrokenPipeError, ConnectionResetError):
            pass
