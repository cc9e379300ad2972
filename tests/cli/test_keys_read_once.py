"""keys.yaml is read once per process (issue 45): the KeyStore the app holds is the only reader, and
the model choice, the model's key, the redactor and the ADS token all ask it.

Counted from outside astro's code: a `sitecustomize` on PYTHONPATH adds an audit hook to the real
`astro run` process that counts every `open` of keys.yaml (whoever opens it) and writes the count
at exit. The run asks ADS (the stand-in server accepts only the token kept in keys.yaml).
"""

from __future__ import annotations

import pytest

from astro_cli.keystore import KeyStore
from tests import research_server
from tests.conftest import base_env
from tests.helpers import last_json, tool_results
from tests.research_server import ADS_TOKEN

research = research_server.research

AUDIT = '''
import atexit, os, sys

_target = os.environ.get("ASTRO_TEST_KEYS_OPENS")
_opens = []


def _hook(event, args):
    if event == "open" and args and isinstance(args[0], str) and args[0].endswith("keys.yaml"):
        _opens.append(args[0])


def _write():
    with open(_target, "w", encoding="utf-8") as out:
        out.write(str(len(_opens)))


if _target:
    sys.addaudithook(_hook)
    atexit.register(_write)
'''
SEARCH = {"tool_calls": [{"name": "search_papers", "arguments": {"query": "star", "source": "ads", "rows": 3}}]}


@pytest.mark.cold_start
def test_one_astro_run_with_an_ads_search_opens_keys_yaml_once(run_astro, fake, research, tmp_path):
    home = tmp_path / "astro-home"
    KeyStore.at(home).set("openai", "sk-proj-stored-key-0000000000")
    KeyStore.at(home).set("ads", ADS_TOKEN)
    hook = tmp_path / "audit"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(AUDIT, encoding="utf-8")
    opens = tmp_path / "opens.txt"
    env = {**base_env(tmp_path), **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT),
           "ASTRO_API_BASE": fake.openai_url, "PYTHONPATH": str(hook), "ASTRO_TEST_KEYS_OPENS": str(opens)}
    fake.add(SEARCH, {"text": "Three papers."})
    result = run_astro(["run", "--output-format", "json", "Which papers model TDE winds?"], env=env)
    assert result.returncode == 0, result.stderr
    assert last_json(result.stdout)["answer"] == "Three papers."
    [searched] = tool_results(fake.bodies()[1])
    assert "Dynamics of accretion and winds" in searched  # ADS answered: the token from keys.yaml was sent
    assert fake.requests[0]["headers"].get("authorization") == "Bearer sk-proj-stored-key-0000000000"
    assert opens.read_text(encoding="utf-8") == "1"


# module -> why it makes a KeyStore of its own rather than use the app's. Only ever remove entries.
OWN_STORES = {
    "app.py": "the app's one store (app.keys), handed to everyone else",
    "debuglog.py": "the --debug log's redactor, made before any app exists",
    "ui/prompt_input.py": "the REPL history's redactor (a second store in a REPL process)",
}


def test_only_the_listed_modules_make_a_key_store_of_their_own():
    from tests.structure.test_structure import PACKAGE

    making = {path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")
              if path.name != "keystore.py" and "KeyStore.at(" in path.read_text(encoding="utf-8")}
    assert making == set(OWN_STORES), "hand these the app's KeyStore (app.keys) instead: " + str(making - set(OWN_STORES))
