"""pyvo's TAPService for a configured service, and one sentence for every way a query can fail.

pyvo sends queries without a timeout of its own, so the requests session it is given adds
astro's (config 'catalog.timeout', per request) and User-Agent. Queries are synchronous unless
asked for as an asynchronous job (`async_job`): then astro waits up to 'catalog.job_timeout' for it
and deletes the job afterwards, whatever happened, so nothing is left behind on the service.
"""

from __future__ import annotations

import logging
import time
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from astro_cli.catalog.errors import CatalogError, QueryRejected
from astro_cli.catalog.formats import warnings_to_log
from astro_cli.exception_chain import exception_chain

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from astropy.table import Table

    from astro_cli.catalog.services import Service


@dataclass
class Answer:
    """A service's answer: the table, whether the service cut it (OVERFLOW), and how long it took."""

    table: Table
    overflow: bool
    seconds: float


def timeout_session(timeout: float, agent: str) -> Any:
    """A requests session with astro's User-Agent that gives every request `timeout` seconds."""
    import requests

    class TimeoutSession(requests.Session):
        def request(self, *args: Any, **kwargs: Any) -> Any:
            if kwargs.get("timeout") is None:
                kwargs["timeout"] = timeout
            return super().request(*args, **kwargs)

    session = TimeoutSession()
    session.headers["User-Agent"] = agent
    return session


def tap_service(service: Service, timeout: float, agent: str) -> Any:
    from pyvo.dal import TAPService

    return TAPService(baseurl=service.url, session=timeout_session(timeout, agent))


def run_sync(service: Service, adql: str, maxrec: int, timeout: float, agent: str,
             uploads: dict[str, Table] | None = None) -> Answer:
    """Run `adql` synchronously on `service`; CatalogError (QueryRejected for bad ADQL) on failure."""
    from pyvo.dal.exceptions import DALOverflowWarning

    started = time.monotonic()
    try:
        with warnings_to_log(f"the answer of {service.key}"):  # astropy's about odd files and units
            warnings.simplefilter("ignore", DALOverflowWarning)  # the status says it: Answer.overflow
            result = tap_service(service, timeout, agent).run_sync(adql, maxrec=maxrec, uploads=uploads)
            table = result.to_table()
    except Exception as exc:  # noqa: BLE001 - pyvo/requests/astropy errors arrive under many names
        raise describe(exc, service, timeout) from None
    status = str(getattr(result, "query_status", None) or "").upper()
    return Answer(table, status == "OVERFLOW" or len(table) > maxrec, time.monotonic() - started)



def run_async(service: Service, adql: str, maxrec: int, timeout: float, wait: float, agent: str,
              uploads: dict[str, Table] | None = None) -> Answer:
    """Run `adql` as an asynchronous job (UWS) on `service`, waiting at most `wait` seconds for it.

    The job is deleted afterwards whatever happened (an answer, a rejection, the wait running out,
    an interrupt), so nothing is left running or stored on the service by astro."""
    from pyvo.dal.exceptions import DALOverflowWarning
    from pyvo.dal.tap import AsyncTAPJob

    started = time.monotonic()
    job: Any = None
    try:
        with warnings_to_log(f"the answer of {service.key}"):
            warnings.simplefilter("ignore", DALOverflowWarning)
            job = AsyncTAPJob.create(service.url, adql, maxrec=maxrec, uploads=uploads,
                                     session=timeout_session(timeout, agent))
            job.run().wait(timeout=wait)
            job.raise_if_error()
            result = job.fetch_result()
            table = result.to_table()
    except Exception as exc:  # noqa: BLE001 - pyvo/requests/astropy errors arrive under many names
        raise describe(exc, service, timeout, wait) from None
    finally:
        if job is not None:
            _delete(job, service)
    status = str(getattr(result, "query_status", None) or "").upper()
    return Answer(table, status == "OVERFLOW" or len(table) > maxrec, time.monotonic() - started)


def _delete(job: Any, service: Service) -> None:
    try:
        job.delete()
    except Exception:  # noqa: BLE001 - the answer (or the failure) matters more; the log keeps it
        log.debug("could not delete the job %s on %s", getattr(job, "url", "?"), service.key, exc_info=True)


def describe(exc: BaseException, service: Service, timeout: float, wait: float | None = None) -> CatalogError:
    """The failure as one sentence naming the service and what to do."""
    import requests
    from pyvo.dal.exceptions import DALJobTimeoutError, DALQueryError, DALServiceError

    name = f"{service.title} ({service.key})"
    chain = exception_chain(exc)
    if any(isinstance(e, DALJobTimeoutError) for e in chain):
        return CatalogError(f"{name} did not finish the job within {wait or 0:g} s; the job was deleted. Narrow the "
                            "query, or raise config 'catalog.job_timeout'.")
    if any(isinstance(e, requests.Timeout) for e in chain):
        return CatalogError(f"{name} did not answer within {timeout:g} s; try a smaller query (fewer rows, a "
                            "smaller radius) or raise config 'catalog.timeout'.")
    if any(isinstance(e, requests.ConnectionError) for e in chain):
        return CatalogError(f"Could not reach {name} at {service.url}; check the network connection or config "
                            f"'catalog.services.{service.key}'.")
    for item in chain:
        if isinstance(item, DALQueryError):
            reason = " ".join(str(item.reason or "").split()).removeprefix("Query Error: ")[:300].rstrip(".")
            return QueryRejected(f"{name} rejected the query: {reason or 'no reason given'}.")
        if isinstance(item, DALServiceError) and (item.code or 0) >= 400:
            reason = " ".join(str(item.reason or "").split())[:200].rstrip(".")
            if (item.code or 0) == 400 and reason:
                return QueryRejected(f"{name} rejected the query (HTTP 400): {reason}.")
            return CatalogError(f"{name} answered HTTP {item.code}; try again later.")
    return CatalogError(f"{name} sent an answer astro could not read ({type(exc).__name__}: "
                        f"{' '.join(str(exc).split())[:160]}).")
