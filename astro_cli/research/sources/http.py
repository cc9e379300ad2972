"""One way to talk to research services (arXiv, NASA ADS, SIMBAD): a polite httpx client and one
sentence for every way a request can fail.

Services ask to be named in the User-Agent with a way to reach the operator, and a research tool
must turn a timeout or an HTTP 503 into something the model and the user can act on, never a
traceback. Every failure becomes a ServiceError whose message is that one sentence.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from astro_cli import __version__

if TYPE_CHECKING:
    import httpx

    from astro_cli.research.sources.web import Web


class ServiceError(Exception):
    """A research service could not be used; the message is one sentence for the model and the user."""


class RateLimited(ServiceError):
    """The service refuses requests until `reset` (UTC) because our quota is used up."""

    def __init__(self, message: str, reset: datetime | None = None) -> None:
        super().__init__(message)
        self.reset = reset


def user_agent(web: Web) -> str:
    contact = web.settings.typed["http.contact"] or ""
    suffix = f" (+{contact})" if contact else ""
    return f"astro/{__version__}{suffix} research assistant for astrophysicists"


def timeout_seconds(web: Web) -> float:
    return float(web.settings.typed["http.timeout"])


def make_client(web: Web, headers: dict[str, str] | None = None) -> httpx.Client:
    """An httpx client with astro's User-Agent and the configured timeout; close it after use."""
    import httpx

    seconds = timeout_seconds(web)
    return httpx.Client(
        headers={"User-Agent": user_agent(web), **(headers or {})},
        timeout=httpx.Timeout(seconds, connect=min(seconds, 10.0)),
        follow_redirects=True,
    )


def _where(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else url


def describe_failure(service: str, url: str, exc: Exception, timeout: float, setting: str) -> str:
    """One sentence for a transport failure (no answer, refused connection, broken stream)."""
    import httpx

    where = _where(url)
    if isinstance(exc, httpx.TimeoutException):
        return (
            f"{service} did not answer within {timeout:g} s ({where}); try again later, "
            "or raise config 'http.timeout'."
        )
    reason = str(exc).strip() or type(exc).__name__
    return (
        f"Could not reach {service} at {where} ({reason}); check the network connection "
        f"or config '{setting}'."
    )


def http_error(service: str, response: httpx.Response) -> ServiceError:
    """One sentence for an HTTP error status; 429 becomes RateLimited with the reset time."""
    status = response.status_code
    if status == 429:
        reset = parse_reset(response.headers.get("X-RateLimit-Reset") or response.headers.get("Retry-After"))
        when = f"; the quota resets at {reset:%Y-%m-%d %H:%M} UTC" if reset else ""
        return RateLimited(f"{service} refused the request: the rate limit is used up{when}.", reset)
    phrase = response.reason_phrase or "error"
    path = response.request.url.path if response.request else ""
    return ServiceError(f"{service} answered HTTP {status} ({phrase}) for {path}; try again later.")


def parse_reset(raw: str | None) -> datetime | None:
    """X-RateLimit-Reset is a Unix time (ADS); Retry-After is seconds from now."""
    if not raw:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    if value < 10**8:  # seconds to wait, not an epoch
        value += time.time()
    return datetime.fromtimestamp(value, tz=timezone.utc)


def request(
    client: httpx.Client, method: str, url: str, *, service: str, setting: str, **kwargs: Any
) -> httpx.Response:
    """Send a request; any transport failure or HTTP error becomes a ServiceError sentence."""
    import httpx

    try:
        response = client.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        raise ServiceError(describe_failure(service, url, exc, _client_timeout(client), setting)) from None
    if response.status_code >= 400:
        raise http_error(service, response)
    return response


@contextmanager
def stream(
    client: httpx.Client, method: str, url: str, *, service: str, setting: str, **kwargs: Any
) -> Iterator[httpx.Response]:
    """Like `request`, for bodies read in pieces (downloads); the caller checks the status itself."""
    import httpx

    try:
        with client.stream(method, url, **kwargs) as response:
            yield response
    except httpx.HTTPError as exc:
        raise ServiceError(describe_failure(service, url, exc, _client_timeout(client), setting)) from None


def _client_timeout(client: httpx.Client) -> float:
    read = client.timeout.read
    return float(read) if read is not None else 0.0


class Throttle:
    """At most one request every `interval` seconds, across the threads of one process and across
    all astro processes of the user.

    arXiv asks for one request every three seconds and one connection at a time. Back-to-back
    `astro library add` runs, or a REPL and a one-shot run side by side, are separate processes: the
    time of the last request lives in a small file in ASTRO_HOME, under a file lock.

    The lock is held from the wait until the request's answer has arrived (`turn()`), and the clock
    is stamped then, not when the wait ended. Stamping at the end of the wait (as the first version
    did) let the spacing the server sees shrink by however long the previous process took between
    its wait and its request reaching arXiv (building the client, importing httpx, connecting):
    measured gaps of 2.74-3.18 s for a 3 s interval. With the stamp taken once the answer is in,
    the next request leaves at least `interval` after the server had received this one, so every
    gap arXiv sees is at least `interval`, whatever the load. If the clock file cannot be used (a
    read-only home, a lock held too long), the spacing holds within the process and research goes on.
    """

    def __init__(self, interval: float, clock_file: Path | None = None) -> None:
        self.interval = max(0.0, interval)
        self.clock_file = clock_file
        self._lock = threading.Lock()
        self._last = 0.0

    def wait(self) -> None:
        """Wait for a turn and stamp it now (for a request sent at once; `turn()` is the exact form)."""
        with self.turn():
            pass

    @contextmanager
    def turn(self) -> Iterator[Turn]:
        """Wait until `interval` after the last answer; send the request inside the block. The clock is
        stamped (and the next request let go) at `Turn.answered()` or when the block ends."""
        self._lock.acquire()
        shared = None
        try:
            shared = self._acquire_shared()
            last = self._last
            if shared is not None and self.clock_file is not None:
                last = max(self._read(self.clock_file), last)
            self._sleep_until(last + self.interval)
        except BaseException:  # interrupted while waiting: nobody is left locked out
            if shared is not None:
                shared.release()
            self._lock.release()
            raise
        turn = Turn(self, shared)
        try:
            yield turn
        finally:
            turn.answered()

    def _acquire_shared(self) -> Any:
        """The clock file's lock, held; None when there is no shared clock or it cannot be used."""
        if self.clock_file is None or self.interval <= 0:
            return None
        from filelock import FileLock, Timeout

        try:
            self.clock_file.parent.mkdir(parents=True, exist_ok=True)
            lock = FileLock(str(self.clock_file) + ".lock", timeout=max(60.0, self.interval * 20))
            lock.acquire()
        except (OSError, Timeout):
            return None  # spacing within this process still holds
        return lock

    def _stamp(self, shared: Any) -> None:
        """Record the answer's time, then let the next request (of any thread or process) go."""
        self._last = time.time()
        try:
            if shared is not None and self.clock_file is not None:
                from astro_cli.security.writer import write_file

                write_file(self.clock_file, f"{self._last:.6f}\n")
        except OSError:
            pass  # an unwritable clock: the spacing holds within this process
        finally:
            if shared is not None:
                shared.release()
            self._lock.release()

    def _read(self, clock: Path) -> float:
        try:
            value = float(clock.read_text().strip() or 0)
        except (OSError, ValueError):
            return 0.0
        return value if value <= time.time() + self.interval else 0.0  # a clock that moved back

    @staticmethod
    def _sleep_until(moment: float) -> None:
        delay = moment - time.time()
        while delay > 0:  # sleep may wake a little early on some platforms: check again
            time.sleep(delay)
            delay = moment - time.time()


class Turn:
    """One request's turn at a throttled service; `answered()` once the answer (its headers) is in."""

    def __init__(self, throttle: Throttle, shared: Any) -> None:
        self._throttle = throttle
        self._shared = shared
        self._done = False

    def answered(self) -> None:
        if not self._done:
            self._done = True
            self._throttle._stamp(self._shared)


ARXIV_CLOCK = "arxiv-last-request"


class ArxivThrottle(Throttle):
    """arXiv's spacing (`arxiv.min_interval`), shared by every astro process of the user through ARXIV_CLOCK."""


def arxiv_throttle(web: Web) -> Throttle:
    return web.service(ArxivThrottle, lambda: ArxivThrottle(float(web.settings.typed["arxiv.min_interval"]),
                                                            web.home.root / ARXIV_CLOCK))
