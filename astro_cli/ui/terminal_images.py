"""Figures shown in the terminal: the kitty graphics protocol, iTerm2 inline images, or sixel.

Which one a terminal speaks is read from its environment only (TERM, TERM_PROGRAM, KITTY_WINDOW_ID,
LC_TERMINAL, ...): asking the terminal itself (a DA1 or kitty query) could hang on one that never
answers, so astro never does. Inside tmux or screen, images need a passthrough astro cannot know is
on, so the path is printed instead. Image sequences go only to a real TTY, carry only the PNG astro
drew (base64) and no text from a table, and kitty is told to send no reply (q=2) that could reach the
REPL's input. config `plots.inline` forces a protocol or turns images off.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping
from pathlib import Path
from typing import IO

ESC = "\x1b"
ST = ESC + "\\"
KITTY_CHUNK = 4096
MAX_PNG_BYTES = 8_000_000  # a figure larger than this is not sent through the terminal
SIXEL_MAX_WIDTH = 800  # pixels: sixel draws at the image's own size
SIXEL_TERMS = ("foot", "mlterm", "yaft", "contour", "sixel")


def image_protocol(env: Mapping[str, str], is_tty: bool, setting: str = "auto") -> str | None:
    """kitty, iterm2, sixel, or None (print the path): from the environment, never by asking the terminal."""
    if not is_tty or setting == "off":
        return None
    if setting in ("kitty", "iterm2", "sixel"):
        return setting
    term = env.get("TERM", "").lower()
    program = env.get("TERM_PROGRAM", "").lower()
    if term in ("", "dumb") or env.get("TMUX") or term.startswith(("screen", "tmux")):
        return None
    if env.get("KITTY_WINDOW_ID") or term == "xterm-kitty" or program == "ghostty" or term == "xterm-ghostty":
        return "kitty"
    if program in ("iterm.app", "wezterm", "mintty") or env.get("LC_TERMINAL", "").lower() == "iterm2":
        return "iterm2"
    if any(name in term for name in SIXEL_TERMS) or program in ("contour",) or env.get("WT_SESSION"):
        return "sixel"
    return None


def kitty_sequence(png: bytes, columns: int) -> str:
    """The PNG sent in 4096-byte chunks (f=100: PNG, a=T: show now, q=2: no reply), `columns` cells wide."""
    data = base64.standard_b64encode(png).decode("ascii")
    chunks = [data[i:i + KITTY_CHUNK] for i in range(0, len(data), KITTY_CHUNK)] or [""]
    parts = []
    for index, chunk in enumerate(chunks):
        more = 1 if index < len(chunks) - 1 else 0
        keys = f"a=T,f=100,q=2,c={columns},m={more}" if index == 0 else f"q=2,m={more}"
        parts.append(f"{ESC}_G{keys};{chunk}{ST}")
    return "".join(parts)


def iterm2_sequence(png: bytes, columns: int) -> str:
    """iTerm2's OSC 1337 File= with inline=1; the name is base64 too, so no text of ours is in it raw."""
    data = base64.standard_b64encode(png).decode("ascii")
    name = base64.standard_b64encode(b"figure.png").decode("ascii")
    return (f"{ESC}]1337;File=name={name};size={len(png)};width={columns};preserveAspectRatio=1;inline=1:"
            f"{data}\a")


def sixel_sequence(png: bytes, max_width: int = SIXEL_MAX_WIDTH) -> str:
    """The image in sixel: scaled to `max_width`, quantised to 255 colours, six rows a band, run-length coded."""
    import numpy as np
    from PIL import Image

    with Image.open(io.BytesIO(png)) as opened:
        image = opened.convert("RGB")
    if image.width > max_width:
        image = image.resize((max_width, max(1, round(image.height * max_width / image.width))))
    quantised = image.quantize(colors=255)
    palette = quantised.getpalette() or []
    pixels = np.asarray(quantised, dtype=np.int16)
    height, width = pixels.shape
    out = [f'{ESC}Pq"1;1;{width};{height}']
    used = sorted(set(np.unique(pixels).tolist()))
    for colour in used:
        r, g, b = palette[3 * colour:3 * colour + 3]
        out.append(f"#{colour};2;{r * 100 // 255};{g * 100 // 255};{b * 100 // 255}")
    weights = (1 << np.arange(6)).reshape(6, 1)
    for top in range(0, height, 6):
        band = pixels[top:top + 6]
        if band.shape[0] < 6:
            band = np.vstack([band, np.full((6 - band.shape[0], width), -1, dtype=np.int16)])
        for colour in np.unique(band[band >= 0]).tolist():
            bits = ((band == colour) * weights).sum(axis=0)
            out.append(f"#{colour}" + _run_length("".join(chr(63 + int(v)) for v in bits)) + "$")
        out.append("-")
    out.append(ST)
    return "".join(out)


def _run_length(row: str) -> str:
    """`!N?`-style repeats for runs longer than three characters (sixel's own compression)."""
    out, index = [], 0
    while index < len(row):
        end = index
        while end < len(row) and row[end] == row[index]:
            end += 1
        run = end - index
        out.append(f"!{run}{row[index]}" if run > 3 else row[index] * run)
        index = end
    return "".join(out)


def image_sequence(protocol: str, png: bytes, columns: int) -> str:
    if protocol == "kitty":
        return kitty_sequence(png, columns)
    if protocol == "iterm2":
        return iterm2_sequence(png, columns)
    return sixel_sequence(png)


def show_image(stream: IO[str], protocol: str, path: Path, columns: int) -> bool:
    """Write the figure at `path` as an image to `stream` (a TTY the caller checked); False when it could
    not be (missing, too large, unreadable), and the caller's path line stands alone."""
    import logging

    try:
        png = path.read_bytes()
        if len(png) > MAX_PNG_BYTES or not png.startswith(b"\x89PNG\r\n\x1a\n"):
            return False
        sequence = image_sequence(protocol, png, max(20, min(columns, 100)))
    except Exception:  # noqa: BLE001 - a figure that cannot be shown still has its path printed
        logging.getLogger(__name__).debug("the figure %s could not be shown inline", path, exc_info=True)
        return False
    stream.write(sequence + "\n")
    stream.flush()
    return True


def stream_is_tty(stream: IO[str]) -> bool:
    """The stream's own descriptor is a terminal (FORCE_COLOR or a rich setting does not count)."""
    import os

    try:
        return os.isatty(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return False


def figure_caption(event: object) -> str:
    """`figure: figures/cmd.png (cmd: x = bp_rp [mag], ...; 48 of 50 rows plotted)`, controls made visible."""
    from astro_cli.security.visible import one_line

    path, summary = getattr(event, "path", ""), getattr(event, "summary", "")
    return "figure: " + one_line(f"{path} ({summary})" if summary else path, 300)


class FigureDisplay:
    """Shows a saved figure on `stream` when it is a terminal that can draw images; renderers print the
    caption line themselves, so a terminal without images still gets the path."""

    def __init__(self, stream: IO[str], setting: str = "auto", env: Mapping[str, str] | None = None) -> None:
        import os

        self.stream = stream
        self.protocol = image_protocol(os.environ if env is None else env, stream_is_tty(stream), setting)

    def show(self, path: str | Path, columns: int) -> bool:
        if self.protocol is None:
            return False
        return show_image(self.stream, self.protocol, Path(path), columns)
