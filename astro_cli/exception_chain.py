"""Every exception behind one failure, once each: pyvo, requests and urllib3 wrap the cause they
report in `cause`, `__cause__` or `__context__`, and a one-sentence message needs the innermost."""

from __future__ import annotations


def exception_chain(exc: BaseException) -> list[BaseException]:
    """`exc` and the exceptions it wraps (pyvo's `cause`, `__cause__`, `__context__`), no repeats."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        item = todo.pop()
        if item is None or any(item is s for s in seen):
            continue
        seen.append(item)
        todo.extend([getattr(item, "cause", None), item.__cause__, item.__context__])
    return seen
