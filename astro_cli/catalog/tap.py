"""pyvo's TAPService for a configured service, and one sentence for every way a query can fail.

pyvo sends synchronous queries without a timeout of its own, so the requests session it is given
adds astro's (config 'catalog.timeout') and User-Agent. Only synchronous queries are made: no
job is created on the service and nothing is left behind when astro stops.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from astro_cli.catalog.errors import CatalogError, QueryRejected
from astro_cli.catalog.formats import warnings_to_log
from astro_cli.exception_chain import exception_chain

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


def run_sync(service: Service, adql: str, maxrec: int, timeout: float, agent: str) -> Answer:
    """Run `adql` synchronously on `service`; CatalogError (QueryRejected for bad ADQL) on failure."""
    from pyvo.dal.exceptions import DALOverflowWarning

    started = time.monotonic()
    try:
        with warnings_to_log(f"the answer of {service.key}"):  # astropy's about odd files and units
            warnings.simplefilter("ignore", DALOverflowWarning)  # the status says it: Answer.overflow
            result = tap_service(service, timeout, agent).run_sync(adql, maxrec=maxrec)
            table = result.to_table()
    except Exception as exc:  # noqa: BLE001 - pyvo/requests/astropy errors arrive under many names
        raise describe(exc, service, timeout) from None
    status = str(getattr(result, "query_status", None) or "").upper()
    return Answer(table, status == "OVERFLOW" or len(table) > maxrec, time.monotonic() - started)



def describe(exc: BaseException, service: Service, timeout: float) -> CatalogError:
    """The failure as one sentence naming the service and what to do."""
    import requests
    from pyvo.dal.exceptions import DALQueryError, DALServiceError

    name = f"{service.title} ({service.key})"
    chain = exception_chain(exc)
    if any(isinstance(e, requests.Timeout) for e in chain):
        return CatalogError(f"{name} did not answer within {timeout:g} s; try a smaller query (fewer rows, a "
                            "smaller radius) or raise config 'catalog.timeout'.")
    if any(isinstance(e, requests.ConnectionError) for e in chain):
        return CatalogError(f"Could not reach {name} at {service.url}; check the network connection or config "
                            f"'catalog.services.{service.key}'.")
    for item in chain:
        if isinstance(item, DALQueryError):
            reason = " ".join(str(item.reason or "").split())[:300].rstrip(".")
            return QueryRejected(f"{name} rejected the query: {reason or 'no reason given'}.")
        if isinstance(item, DALServiceError) and (item.code or 0) >= 400:
            reason = " ".join(str(item.reason or "").split())[:200].rstrip(".")
            if (item.code or 0) == 400 and reason:
                return QueryRejected(f"{name} rejected the query (HTTP 400): {reason}.")
            return CatalogError(f"{name} answered HTTP {item.code}; try again later.")
    return CatalogError(f"{name} sent an answer astro could not read ({type(exc).__name__}: "
                        f"{' '.join(str(exc).split())[:160]}).")
