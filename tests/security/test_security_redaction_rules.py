"""Issue 41: the redactor knows key shapes from a maintained rule set (gitleaks, detect-secrets), known
values in their base64 and URL-encoded forms, and redacts the answer astro prints on stdout (text,
json, stream-json, astro-events). The real astro process against the fake model provider."""

from __future__ import annotations

import base64
import json
import time
from urllib.parse import quote, quote_plus

import pytest

from tests.helpers import tool_results

# Made-up values in each provider's shape (none is a real key).
SHAPES = {
    "hugging face": "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
    "groq": "gsk_" + "Q7wErTy9UiOpAsDfGhJkLzXcVbNm1234567890QwErTyUiOpAsDf",
    "xai": "xai-" + "Zq8" * 26 + "Zq",
    "gitlab": "glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn",
    "stripe": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "npm": "npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
           "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "pem body": "MIIEpAIBAAKCAQEA75mZ2pQ9Xk3Lr8vWb5sT0yHc1uJfGqE4dN6oR2aZ8iPlKx7MwVe",
    "db password": "Hunter2-Tr0ub4dor",
}
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{SHAPES['pem body']}\n-----END RSA PRIVATE KEY-----"
DOCUMENT = "\n".join([
    "deploy notes", f"HF_TOKEN {SHAPES['hugging face']}", f"groq {SHAPES['groq']}", f"xai {SHAPES['xai']}",
    f"gitlab: {SHAPES['gitlab']}", f"stripe={SHAPES['stripe']}", f"//registry.npmjs.org/:_authToken={SHAPES['npm']}",
    f"Authorization: Bearer {SHAPES['jwt']}", PEM, f"DB_PASSWORD={SHAPES['db password']}", "end of notes",
])
ADS = "Xq3vLp9RtYw2Zk7Hs4Nd8Bf6Gm1Jc5Ea0Ui2Oo3P"  # a known value (ADS_API_TOKEN), 40 characters
KNOWN = "kN0wn-Secret/Value+42"  # a known value with characters URL encoding changes


def _leaks(values, *texts) -> list[str]:
    return [value for value in values for text in texts if value in text]


def _database(workspace) -> str:
    return b"".join(p.read_bytes() for p in (workspace / ".astro").glob("astro.db*")).decode("latin-1")


def test_key_shapes_from_the_rule_set_reach_neither_the_model_nor_the_database(fake, astro_env, workspace,
                                                                               run_astro):
    (workspace / "notes.txt").write_text(DOCUMENT)
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]}, {"text": "Read."})
    result = run_astro(["run", "summarise notes.txt"], astro_env)
    assert result.returncode == 0, result.stderr
    [sent] = tool_results(fake.bodies()[1])
    assert "deploy notes" in sent and "end of notes" in sent  # the rest of the file is read as it is
    assert _leaks(SHAPES.values(), sent, _database(workspace)) == []
    for kind in ("hugging face token", "groq key", "xai key", "gitlab token", "stripe key", "jwt", "private key",
                 "secret assignment"):
        assert f"[REDACTED:{kind}]" in sent, kind


def _encodings(value: str) -> list[str]:
    raw = value.encode()
    return [base64.b64encode(raw).decode(), base64.b64encode(b"user:" + raw).decode(),
            base64.b64encode(b"ab" + raw + b"\n").decode(), base64.urlsafe_b64encode(b"{\"k\": \"" + raw).decode(),
            quote(value, safe=""), quote_plus(value)]


def test_a_known_key_passes_neither_base64_nor_url_encoded(fake, astro_env, workspace, run_astro):
    env = {**astro_env, "ADS_API_TOKEN": ADS, "MY_SERVICE_SECRET": KNOWN}
    forms = [form for value in (ADS, KNOWN) for form in _encodings(value)]
    (workspace / "dump.txt").write_text("\n".join(f"line {n}: {form}" for n, form in enumerate(forms)))
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "dump.txt"}}]}, {"text": "Read."})
    result = run_astro(["run", "what is in dump.txt"], env)
    assert result.returncode == 0, result.stderr
    [sent] = tool_results(fake.bodies()[1])
    # What remains of a form is at most the few characters that also depend on the bytes around it.
    cores = [form[4:-4] for form in forms]
    assert _leaks(cores, sent, _database(workspace)) == []
    assert "[REDACTED:ADS_API_TOKEN (base64)]" in sent and "[REDACTED:MY_SERVICE_SECRET (URL-encoded)]" in sent


ANSWER = (f"Your key is {ADS}, and the notes hold {SHAPES['hugging face']} and\n{PEM}\n"
          f"and DB_PASSWORD={SHAPES['db password']} in the config.")


@pytest.mark.parametrize("output_format", ["text", "json", "stream-json", "astro-events"])
def test_the_answer_printed_on_stdout_is_redacted(output_format, fake, astro_env, workspace, run_astro):
    env = {**astro_env, "ADS_API_TOKEN": ADS}
    fake.add({"text": ANSWER})  # streamed in pieces: a key is split between two of them
    result = run_astro(["run", "--output-format", output_format, "what are my keys?"], env)
    assert result.returncode == 0, result.stderr
    values = [ADS, SHAPES["hugging face"], SHAPES["pem body"], SHAPES["db password"]]
    assert _leaks(values, result.stdout, result.stderr) == []
    assert "[REDACTED:ADS_API_TOKEN]" in result.stdout and "in the config." in result.stdout
    events = [json.loads(line) for line in result.stdout.splitlines()] if output_format != "text" else []
    if output_format == "astro-events":
        streamed = "".join(e["text"] for e in events if e["type"] == "text_delta")
        assert streamed == events[-1]["result"]  # every piece arrives, redacted as the whole answer is
    if output_format == "stream-json":  # Claude Code's messages: the assistant's text blocks, redacted
        said = "".join(block["text"] for e in events if e["type"] == "assistant"
                       for block in e["message"]["content"] if block["type"] == "text")
        assert said == events[-1]["result"]
    assert _leaks(values, _database(workspace)) == []  # what is stored, as before


PROSE = [
    "The secret: understanding how dust settles in protoplanetary discs.",
    "tokenizer=bert-base-uncased and key_size=4096 with api_key = os.environ['ADS_KEY']",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b, DOI 10.1086/670067, arXiv:1202.3665v4",
    "DB_SECRET=${DB_SECRET} is read from the environment; they keyed the eyes of the survey",
]


def test_prose_and_identifiers_stay_readable_and_redaction_stays_cheap():
    from astro_cli.security.secrets import Redactor

    redactor = Redactor({"ADS_API_TOKEN": ADS, "MY_SERVICE_SECRET": KNOWN, "ASTRO_API_KEY": "sk-test-secret-123"})
    for text in PROSE:
        assert redactor.redact(text) == text
    answer = " ".join(["The albedo of hot Jupiters is low, and heat recirculation varies."] * 100)  # ~1,000 words
    started = time.perf_counter()
    for _ in range(20):
        assert redactor.redact(answer) == answer
    assert (time.perf_counter() - started) / 20 < 0.5  # a behaviour guard; RESULTS.md has the measurement


def test_the_repl_shows_the_answer_redacted(fake, repl):
    """The REPL's console (in-process, the real loop and litellm): a known key (ASTRO_API_KEY of the
    tests' environment) and a key shape, each split over the streamed pieces, never reach the screen."""
    fake.add({"text": f"The key is sk-test-secret-123 and the token {SHAPES['hugging face']}, done."})
    output = repl.type_and_run("what is my key?\r\x04")
    assert "sk-test-secret-123" not in output and SHAPES["hugging face"] not in output
    assert "[REDACTED:ASTRO_API_KEY]" in output and "done." in output


def test_tool_lines_on_stderr_are_redacted(fake, astro_env, run_astro):
    token = SHAPES["gitlab"]
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": f"notes/{token}.txt"}}]}, {"text": "No."})
    result = run_astro(["run", "read it"], astro_env)
    assert result.returncode == 0, result.stderr
    assert token not in result.stderr and "[REDACTED:gitlab token]" in result.stderr
