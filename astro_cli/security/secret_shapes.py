"""Secrets recognised by their shape, wherever they appear: the rule set the redactor applies.

Provenance. The key shapes are ported from two maintained rule sets, loosened where a provider's
keys vary in length (each rule says which):
- gitleaks, config/gitleaks.toml at commit b58d3f1 (2026-07-22), MIT licence: `gl` below;
- detect-secrets 1.5.0 (Yelp, Apache-2.0), detect_secrets/plugins/*.py: `ds` below.
Neither has Groq's or xAI's keys; those follow the providers' published formats (`gsk_` and `xai-`
followed by 52 and 80 letters and digits) and are astro's own, as are the URL-password, `password=`
and ADS-token rules. Using detect-secrets as a library was weighed and declined: it scans files
line by line and returns findings, not spans to replace, and importing it costs more than these
patterns.

Each rule is (kind, pattern, hints): the pattern's group "secret" is replaced by `[REDACTED:kind]`;
a pattern runs only on text holding one of its hints (lower-cased), so a 50 kB tool result without
any costs a few substring tests. Every pattern is linear-time: a variable-length run starts only
where the character before cannot be part of it (a lookbehind), and every other repeat is bounded,
so no input makes a pattern retry a long run from each of its positions.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Rule = tuple[str, "re.Pattern[str]", tuple[str, ...]]

_START = r"(?<![\w-])"  # a token begins here (not inside a longer word or key)
# The same, but after a hyphen too (gitleaks' \b: `notes-glpat-...`), for prefixes whose run cannot fail
# once it has started (its class holds the prefix's characters, and nothing but a length follows).
_WORD = r"(?<![A-Za-z0-9_])"

# ds keyword.py DENYLIST, plus `token` (GITHUB_TOKEN=, ADS_API_TOKEN=); the name must END with the
# keyword (ds also allows a suffix, `password_secure =`, which reads `tokenizer=` as a secret).
_SECRET_NAMES = (r"api_?key|auth_?key|service_?key|account_?key|db_?key|database_?key|priv_?key|private_?key|"
                 r"client_?key|client_?secret|access_?key|db_?pass|database_?pass|key_?pass|password|passwd|pwd|"
                 r"secret|token|contraseña|contrasena")

PASSWORD_RULES: tuple[Rule, ...] = (
    ("url password", re.compile(r"\b[a-z][a-z0-9+.-]*://[^:/@\s]*:(?P<secret>[^@\s/]+)@", re.IGNORECASE), ("://",)),
    ("password parameter", re.compile(
        r"(?:(?<=[?&;\s])|^)(?:password|passwd|pwd|sslpassword)\s*=\s*(?P<secret>'[^']*'|[^\s&;'\"]+)",
        re.IGNORECASE | re.MULTILINE), ("pass", "pwd")),
)

KEY_RULES: tuple[Rule, ...] = (
    # gl private-key; the END line is optional (output cut short still hides the key), the body is
    # what PEM bodies hold (base64, headers such as Proc-Type), so a lone BEGIN cannot swallow prose.
    ("private key", re.compile(
        r"(?P<secret>-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\s:,.-]*?"
        r"(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|(?=[^A-Za-z0-9+/=\s:,.-])|\Z))"), ("-----begin",)),
    ("anthropic key", re.compile(_START + r"(?P<secret>sk-ant-[A-Za-z0-9_-]{8,})"), ("sk-ant-",)),
    ("openai key", re.compile(_START + r"(?P<secret>sk-(?!ant-)[A-Za-z0-9_-]{16,})"), ("sk-",)),
    # gl stripe-access-token
    ("stripe key", re.compile(_WORD + r"(?P<secret>(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99})"),
     ("sk_", "rk_")),
    # gl github-pat / github-fine-grained-pat, loosened to 30+ characters
    ("github token", re.compile(_WORD + r"(?P<secret>(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}))"),
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    # ds gitlab_token.py (glpat-, deploy, feed, OAuth, runner, pipeline-trigger, incoming-mail tokens)
    ("gitlab token", re.compile(_WORD + r"(?P<secret>(?:glpat|gldt|glft|glsoat|glrt|glptt|glimt|gloas|glcbt)-"
                                         r"[A-Za-z0-9_-]{20,})"),
     ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glptt-", "glimt-", "gloas-", "glcbt-")),
    # gl huggingface-access-token (hf_ + 34 letters) and ds's organisation token, digits allowed, 30+
    ("hugging face token", re.compile(_WORD + r"(?P<secret>(?:hf_|api_org_)[A-Za-z0-9]{30,})"), ("hf_", "api_org_")),
    ("groq key", re.compile(_WORD + r"(?P<secret>gsk_[A-Za-z0-9]{40,})"), ("gsk_",)),
    ("xai key", re.compile(_WORD + r"(?P<secret>xai-[A-Za-z0-9]{40,})"), ("xai-",)),
    # gl npm-access-token
    ("npm token", re.compile(_WORD + r"(?P<secret>npm_[A-Za-z0-9]{36})(?![A-Za-z0-9])"), ("npm_",)),
    # gl pypi-upload-token
    ("pypi token", re.compile(r"(?P<secret>pypi-AgEIcHlwaS5vcmc[\w-]{50,1000})"), ("pypi-ageichlwas5vcmc",)),
    # gl jwt, narrowed to JSON headers and payloads without spaces (`{"` is `eyJ`): header.payload.signature
    ("jwt", re.compile(_START + r"(?P<secret>eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*)"), ("eyj",)),
    ("google key", re.compile(_WORD + r"(?P<secret>AIza[0-9A-Za-z_-]{30,})"), ("aiza",)),
    ("slack token", re.compile(_START + r"(?P<secret>xox[abprs]-[A-Za-z0-9-]{10,})"), ("xox",)),
    ("aws key", re.compile(r"(?<![A-Z0-9])(?P<secret>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Z0-9])"), ("akia", "asia")),
    # ds keyword.py, reduced to its unambiguous forms: NAME = value, NAME := value, NAME => value, and
    # "NAME": "value" (a colon only before a quoted value: prose such as "Secret: the dust" stays).
    # The value is 8-200 characters ending at a delimiter, never a ${VAR} reference or a call.
    ("secret assignment", re.compile(
        r"(?<![A-Za-z0-9])(?:" + _SECRET_NAMES + r")[\"'\]]{0,2}[ \t]{0,3}"
        r"(?:=>?|:=|:(?=[ \t]{0,3}[\"'`]))[ \t]{0,3}[\"'`]?"
        r"(?P<secret>[^\s\"'`;,&<>(){}\[\]$]{8,200})(?=[\s\"'`;,&<>)}\]]|\Z)", re.IGNORECASE),
     ("pass", "pwd", "secret", "key", "token", "contras")),
    # ADS tokens: 40 letters and digits, mixed case with a digit (a git hash is lower-case hex); the
    # mix is checked on each 40-character run (ads_token), not by the pattern.
    ("ads token", re.compile(r"(?<![A-Za-z0-9])(?P<secret>[A-Za-z0-9]{40})(?![A-Za-z0-9])"), ()),
)

SECRET_SHAPES: tuple[Rule, ...] = PASSWORD_RULES + KEY_RULES


def ads_token(secret: str) -> bool:
    return (any(c.islower() for c in secret) and any(c.isupper() for c in secret)
            and any(c.isdigit() for c in secret))


CHECKS: dict[str, Callable[[str], bool]] = {"ads token": ads_token}
