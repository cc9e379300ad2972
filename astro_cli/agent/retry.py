"""How long to wait before retrying a model request: the provider's own word first.

A provider that rate-limits says how long to wait (`retry-after-ms`, `retry-after` in seconds or
as an HTTP date); astro waits exactly that, up to `retry_max_wait`. A wait longer than that is
not worth sitting through in a terminal, so the request fails at once with the reason. Without
such a header, the exponential backoff of `retry_backoff` applies.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryPlan:
    delay: float  # seconds to wait before the next attempt
    rate_limited: bool  # the provider said 429: the renderers say "rate limited"
    asked: float | None  # what the provider asked for, when it said


class WaitTooLong(Exception):
    """The provider asks for a longer wait than retry_max_wait allows."""


def response_headers(exc: BaseException) -> Mapping[str, str]:
    """The HTTP headers of the failed response, as litellm keeps them on its exceptions."""
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return {}
    try:
        return {str(k).lower(): str(v) for k, v in headers.items()}
    except Exception:  # noqa: BLE001 - a mock or an odd object: no headers to go by
        log.debug("no readable headers on %s", type(exc).__name__, exc_info=True)
        return {}


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds the provider asks to wait: retry-after-ms, else retry-after (seconds or HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000
        except ValueError:
            value = -1.0
        if value >= 0:
            return value
    raw = (headers.get("retry-after") or "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
        return value if value >= 0 else None
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def is_rate_limit(exc: BaseException) -> bool:
    return getattr(exc, "status_code", None) == 429 or type(exc).__name__ == "RateLimitError"


def plan_retry(exc: BaseException, attempt: int, backoff: float, max_wait: float) -> RetryPlan:
    """The wait before retry number `attempt` (1-based); raises WaitTooLong past `max_wait`."""
    asked = retry_after_seconds(response_headers(exc))
    if asked is not None and asked > max_wait:
        raise WaitTooLong(f"the provider asks to wait {format_wait(asked)}, longer than retry_max_wait "
                          f"({format_wait(max_wait)}); try again later, or raise retry_max_wait")
    delay = asked if asked is not None else backoff * (2 ** (attempt - 1))
    return RetryPlan(delay=delay, rate_limited=is_rate_limit(exc), asked=asked)


def format_wait(seconds: float) -> str:
    if seconds < 10:
        return f"{seconds:.1f} s".replace(".0 s", " s")
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def retry_line(attempt: int, total: int, delay: float, error: str, rate_limited: bool) -> str:
    """What the user sees while astro waits: 'rate limited, retrying in 5 s (1/3)'."""
    if rate_limited:
        return f"rate limited, retrying in {format_wait(delay)} ({attempt}/{total})"
    return f"provider error, retry {attempt}/{total} in {format_wait(delay)}: {error}"
