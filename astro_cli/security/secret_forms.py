"""The forms a known secret takes when a command passes it on: base64 and URL encoding.

`echo $ADS_API_TOKEN | base64`, a Basic-auth header, a key inside a JSON blob that was base64'd,
or a key in a query string would otherwise show the value the redactor knows in a spelling it does
not. Base64 spells the same bytes three ways, depending on where they fall in a 3-byte group, so
for each alignment the characters that depend on the secret's bytes alone are kept (the "core"),
in the standard and the URL-safe alphabet; the whole encoding (a secret encoded by itself) is kept
too. Every form is at least 8 characters (48 bits of the secret): text does not match one by chance.
"""

from __future__ import annotations

import base64
import re
from urllib.parse import quote, quote_plus

MIN_FORM_CHARS = 8
_URL_SAFE = str.maketrans("+/", "-_")


def base64_forms(value: str) -> list[str]:
    """The base64 spellings of `value` wherever it starts in the encoded bytes (cores), and by itself."""
    raw = value.encode("utf-8")
    forms = [base64.b64encode(raw).decode("ascii").rstrip("=")]
    for shift in (0, 1, 2):
        data = b"\0" * shift + raw
        encoded = base64.b64encode(data).decode("ascii")
        first = 1 if shift else 0  # the group holding padding bytes depends on what came before
        last = len(data) // 3  # a trailing partial group depends on what follows
        forms.append(encoded[4 * first: 4 * last])
    forms += [form.translate(_URL_SAFE) for form in forms]
    return [form for form in dict.fromkeys(forms) if len(form) >= MIN_FORM_CHARS]


def url_forms(value: str) -> list[str]:
    """`value` percent-encoded as a URL or a form would carry it (upper- and lower-case escapes)."""
    forms = [quote(value, safe=""), quote(value, safe="/:@"), quote_plus(value)]
    forms += [re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), form) for form in forms]
    return [form for form in dict.fromkeys(forms) if form != value and len(form) >= MIN_FORM_CHARS]


def encoded_forms(value: str) -> list[tuple[str, str]]:
    """(form, how) for every encoded spelling of a secret that differs from it."""
    found = [(form, "base64") for form in base64_forms(value)]
    found += [(form, "URL-encoded") for form in url_forms(value)]
    return [(form, how) for form, how in found if form != value]
