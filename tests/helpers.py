"""Small helpers shared by the test files."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any


def wait_for(predicate: Callable[[], Any], timeout: float = 30.0, interval: float = 0.05) -> bool:
    """Poll `predicate` until it is true or `timeout` seconds pass; True if it became true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())


def last_json(output: str) -> dict[str, Any]:
    """The last line of `astro run --output-format json|stream-json` output: the result object."""
    return json.loads(output.strip().splitlines()[-1])
