"""Issue 33 (plots): a saved figure is shown inline on terminals that draw images (kitty, iTerm2, sixel),
detected from the environment only, and as its path everywhere else. The real astro runs in a
pseudo-terminal with a kitty's or an iTerm2's environment; the escape sequence's header is checked
and its payload decoded back to the PNG on disk."""

from __future__ import annotations

import base64
import io
import os
import re
import shutil
import sys
import threading
from pathlib import Path

import pytest

from tests.paths import FIXTURES_DIR

CATALOG = FIXTURES_DIR / "catalog"
PLOT = {"tool_calls": [{"name": "plot_table", "arguments": {"table": "data/kang2010.xml", "kind": "sky"}}]}


def _workspace_with_table(workspace: Path) -> None:
    (workspace / "data").mkdir()
    shutil.copy(CATALOG / "kang2010.xml", workspace / "data" / "kang2010.xml")


def _spawn(args: list[str], env: dict[str, str], workspace: Path):
    pexpect = pytest.importorskip("pexpect")
    log = io.StringIO()
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli", *args], env=env, cwd=str(workspace), encoding="utf-8",
                          timeout=120, dimensions=(40, 100), codec_errors="replace")
    child.logfile_read = log
    return child, log


def _terminal_env(astro_env: dict[str, str], **extra: str) -> dict[str, str]:
    env = {k: v for k, v in astro_env.items() if k not in ("KITTY_WINDOW_ID", "TERM_PROGRAM", "LC_TERMINAL", "TMUX")}
    env.update(COLUMNS="100", LINES="40", **extra)
    return env


def test_in_kitty_the_figure_is_drawn_with_the_graphics_protocol(fake, astro_env, workspace):
    import pexpect

    _workspace_with_table(workspace)
    fake.add(PLOT, {"text": "Plotted."})
    env = _terminal_env(astro_env, TERM="xterm-kitty", KITTY_WINDOW_ID="1")
    child, log = _spawn(["run", "--allow", "plot_table", "plot the YSOs on the sky"], env, workspace)
    child.expect_exact("figures/kang2010-sky.png")
    child.expect_exact("\x1b_Ga=T,f=100,q=2,c=")  # PNG, shown at once, no reply to the REPL's input
    child.expect_exact("Plotted.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, log.getvalue()[-2000:]
    chunks = re.findall(r"\x1b_G([^;]*);([^\x1b]*)\x1b\\", log.getvalue())
    assert chunks[0][0].startswith("a=T,f=100,q=2,c=") and chunks[-1][0].endswith("m=0")
    assert all(keys == "q=2,m=1" for keys, _ in chunks[1:-1])
    payload = base64.b64decode("".join(data for _, data in chunks))
    assert payload == (workspace / "figures" / "kang2010-sky.png").read_bytes()


def test_in_iterm2_the_repl_draws_the_figure_inline(fake, astro_env, workspace):
    import pexpect

    _workspace_with_table(workspace)
    fake.add(PLOT, {"text": "Plotted."})
    env = _terminal_env(astro_env, TERM="xterm-256color", TERM_PROGRAM="iTerm.app", LC_TERMINAL="iTerm2")
    child, log = _spawn(["plot the YSOs on the sky"], env, workspace)
    child.expect_exact("permission needed")  # a write, asked as file_write is
    child.expect_exact("data/kang2010.xml")
    child.sendline("y")
    child.expect_exact("\x1b]1337;File=")
    child.expect_exact("Plotted.")
    child.expect_exact("\x1b[?2004h")  # prompt-toolkit asks for the next line (bracketed paste on)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    found = re.search(r"\x1b\]1337;File=([^:]*):([A-Za-z0-9+/=]+)\x07", log.getvalue())
    assert found, log.getvalue()[-2000:]
    assert "inline=1" in found.group(1) and "preserveAspectRatio=1" in found.group(1)
    assert base64.b64decode(found.group(2)) == (workspace / "figures" / "kang2010-sky.png").read_bytes()


def test_a_terminal_without_images_gets_the_path(fake, astro_env, workspace):
    import pexpect

    _workspace_with_table(workspace)
    fake.add(PLOT, {"text": "Plotted."})
    env = _terminal_env(astro_env, TERM="xterm-256color")
    child, log = _spawn(["run", "--allow", "plot_table", "plot the YSOs on the sky"], env, workspace)
    child.expect_exact("figure: figures/kang2010-sky.png")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = log.getvalue()
    assert "\x1b_G" not in text and "\x1b]1337" not in text and "\x1bPq" not in text


# --- detection and the sequences, on a pseudo-terminal of our own -----------------------------------------
def _figure(tmp_path: Path) -> Path:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(2, 1.5), dpi=100)
    figure.add_subplot().plot([0, 1], [1, 0])
    path = tmp_path / "f.png"
    figure.savefig(path, format="png")
    return path


def test_detection_reads_the_environment_only():
    from astro_cli.ui.terminal_images import image_protocol

    assert image_protocol({"TERM": "xterm-kitty"}, True) == "kitty"
    assert image_protocol({"TERM": "xterm-256color", "KITTY_WINDOW_ID": "3"}, True) == "kitty"
    assert image_protocol({"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, True) == "iterm2"
    assert image_protocol({"TERM": "xterm-256color", "LC_TERMINAL": "iTerm2"}, True) == "iterm2"
    assert image_protocol({"TERM": "foot"}, True) == "sixel"
    assert image_protocol({"TERM": "xterm-256color"}, True) is None
    assert image_protocol({"TERM": "xterm-kitty"}, False) is None  # piped: never an image
    assert image_protocol({"TERM": "screen-256color", "KITTY_WINDOW_ID": "1", "TMUX": "/tmp/t"}, True) is None
    assert image_protocol({"TERM": "xterm-kitty"}, True, "off") is None
    assert image_protocol({"TERM": "dumb"}, True, "sixel") == "sixel"  # forced by config


def test_sixel_goes_to_a_real_tty_and_nothing_goes_to_a_pipe(tmp_path):
    from astro_cli.ui.terminal_images import FigureDisplay

    png = _figure(tmp_path)
    master, slave = os.openpty()
    received: list[bytes] = []

    def read_until_the_end() -> None:  # the terminal's side: a pty holds only a few KB unread
        data = b""
        while not data.endswith(b"\x1b\\\r\n"):
            data += os.read(master, 65536)
        received.append(data)

    reader = threading.Thread(target=read_until_the_end, daemon=True)
    reader.start()
    try:
        with open(slave, "w", encoding="utf-8", closefd=False) as tty:
            assert FigureDisplay(tty, env={"TERM": "foot"}).show(png, 80)
        reader.join(timeout=60)
    finally:
        os.close(master)
        os.close(slave)
    data = received[0]
    assert data.startswith(b'\x1bPq"1;1;200;150#')  # raster attributes: the figure's own 200 x 150 pixels
    assert b"-" in data and data.count(b"\x1bP") == 1
    piped = io.StringIO()
    assert not FigureDisplay(piped, env={"TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"}).show(png, 80)
    assert piped.getvalue() == ""
