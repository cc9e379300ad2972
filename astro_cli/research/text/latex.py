"""LaTeX source to readable text that keeps the paper's structure and its mathematics.

The source is better than the PDF where it exists: sections are explicit, and equations stay
as LaTeX, which a model reads fluently (a PDF turns them into scattered glyphs). This is not a
TeX engine: it follows \\input/\\include, drops comments and the preamble, expands the paper's
own simple \\newcommand macros, unwraps formatting commands and leaves math untouched.
"""

from __future__ import annotations

import gzip
import io
import re
import tarfile
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from astro_cli.research.text.latex_floats import put_back, render_floats
from astro_cli.research.text.latex_limits import Budget, LatexError
from astro_cli.research.text.latex_macros import (
    collect_macros,
    drop_definitions,
    expand_macros,
)
from astro_cli.research.text.latex_markup import (
    algorithmic_steps,
    braced,
    citations,
    floats_last,
    front_matter,
    pdf_strings,
)
from astro_cli.research.text.latex_modes import (
    DECIMAL_GLYPHS,
    decimal_glyphs,
    resolve_conditionals,
    text_boxes_in_math,
)
from astro_cli.research.text.latex_refs import SECTION_LEVELS, SectionCounter
from astro_cli.research.text.latex_symbols import DROP_WITH_ARG, PROSE_COMMAND, UNWRAP, prose_symbol

MAX_SOURCE_BYTES = 20_000_000
_MATH = re.compile(
    r"(\$\$.+?\$\$|\$(?:\\.|[^$\\])+\$|\\\[.+?\\\]|\\\(.+?\\\)"
    r"|\\begin\{(equation|align|eqnarray|gather|multline|displaymath|math)(\*?)\}.+?\\end\{\2\3\}"
    r"|\\begin\{(verbatim|lstlisting|minted)\}.+?\\end\{\4\})",
    re.DOTALL,
)
_VERBATIM_BEGIN = re.compile(r"\\begin\{(verbatim|lstlisting|minted)\}")
_VERBATIM_END = re.compile(r"\\end\{(verbatim|lstlisting|minted)\}")
_INPUT = re.compile(r"\\(?:input|include)\s*\{([^}]+)\}|\\input\s+([^\s{}\\]+)")
_HEADING = re.compile(r"\\(section|subsection|subsubsection)(\*?)\s*(?:\[[^\]]*\])?\s*\{")
_ACCENTS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "c": "\u0327",
            "v": "\u030c", "=": "\u0304", ".": "\u0307", "u": "\u0306", "H": "\u030b"}
# The accented letter may be TeX's dotless i or j (`F\'{\i}sica`, `Garc\'{\i}a`: Física, García).
_ACCENT = re.compile(r"""\\(["'`^~=.]|[cvuH](?=[{ ]))\s*\{?(?:\\([ij])(?![A-Za-z])\s*|([A-Za-z]))\}?""")


@dataclass
class LatexSection:
    title: str  # numbered like the PDF: "2.1 The stretch move"; "Abstract" for the abstract
    text: str


def read_source_files(path: Path) -> dict[str, str]:
    """Every .tex/.bbl file of a source: one .tex file, a folder, or an arXiv e-print (.tar.gz / .gz)."""
    if not path.exists():
        raise LatexError(f"the LaTeX source {path.name} does not exist")
    if path.is_dir():
        files = {}
        for item in sorted(path.rglob("*")):
            if item.is_file() and item.suffix.lower() in (".tex", ".bbl"):
                files[item.relative_to(path).as_posix()] = _decode(item.read_bytes())
        return files
    raw = path.read_bytes()[:MAX_SOURCE_BYTES]
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise LatexError(f"the LaTeX source {path.name} is a broken gzip file ({exc})") from None
    if raw[257:262] == b"ustar" or path.name.endswith((".tar", ".tar.gz", ".tgz")):
        try:
            with tarfile.open(fileobj=io.BytesIO(raw)) as archive:
                return {
                    PurePosixPath(m.name).as_posix().lstrip("./"): _decode(archive.extractfile(m).read())  # type: ignore[union-attr]
                    for m in archive.getmembers()
                    if m.isfile() and m.name.lower().endswith((".tex", ".bbl"))
                }
        except tarfile.TarError as exc:
            raise LatexError(f"the LaTeX source {path.name} is not a readable tar archive ({exc})") from None
    return {path.name if path.suffix == ".tex" else "main.tex": _decode(raw)}


def _decode(raw: bytes) -> str:
    """Text with Unix line ends: a Windows source's \r\n\r\n is a paragraph break too."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def main_file(files: dict[str, str]) -> str:
    """The file with \\documentclass (or \\begin{document}); ties go to the largest."""
    candidates = [n for n, t in files.items() if n.endswith(".tex") and "\\documentclass" in strip_comments(t)]
    candidates = candidates or [n for n, t in files.items() if "\\begin{document}" in t]
    candidates = candidates or [n for n in files if n.endswith(".tex")]
    if not candidates:
        raise LatexError("the source holds no .tex file")
    return max(candidates, key=lambda n: len(files[n]))


def strip_comments(text: str) -> str:
    """Drop % comments (not \\%, not in verbatim code); a comment swallows its line end, as TeX does."""
    out = []
    verbatim = False
    for line in text.split("\n"):
        if _VERBATIM_BEGIN.search(line):
            verbatim = True
        if verbatim:
            out.append(line)
            verbatim = not _VERBATIM_END.search(line)
            continue
        cut = _comment_start(line)
        out.append(line if cut < 0 else line[:cut] + "\x00")
    joined = "\n".join(out)
    return re.sub(r"\x00\n[ \t]*", "", joined).replace("\x00", "")


def _comment_start(line: str) -> int:
    i = line.find("%")
    while i >= 0:
        slashes = len(line[:i]) - len(line[:i].rstrip("\\"))
        if slashes % 2 == 0:
            return i
        i = line.find("%", i + 1)
    return -1


def inline_inputs(
    files: dict[str, str], name: str, depth: int = 0, seen: frozenset[str] = frozenset(),
    budget: Budget | None = None,
) -> str:
    """The file's text with \\input / \\include replaced by the included files (cycles, count and
    depth bounded by the budget: past a bound, the remaining inputs are left out)."""
    budget = budget or Budget()
    text = strip_comments(files[name])
    base = PurePosixPath(name).parent
    inlined = [len(text)]

    def include(match: re.Match[str]) -> str:
        target = (match.group(1) or match.group(2) or "").strip()
        for candidate in (target, target + ".tex"):
            for key in ((base / candidate).as_posix().lstrip("./"), candidate.lstrip("./")):
                if key in files and key not in seen and key != name:
                    if not budget.allow_input(depth + 1, inlined[0] + len(files[key])):
                        return ""
                    part = inline_inputs(files, key, depth + 1, seen | {name}, budget)
                    inlined[0] += len(part)
                    return part
        return ""  # a figure's .tex or a file the e-print did not ship

    return _INPUT.sub(include, text)


def _clean_prose(text: str) -> str:
    """Unwrap formatting, drop references and labels, keep citation keys readable."""
    text = _ACCENT.sub(lambda m: unicodedata.normalize("NFC", (m.group(2) or m.group(3)) + _ACCENTS[m.group(1)]), text)
    text = re.sub(r"\\(?:i|j)(?![A-Za-z])", lambda m: m.group(0)[1], text)
    text = _replace_command(text, "altaffiltext", lambda _arg: "", nargs=2)
    for name in DROP_WITH_ARG:
        text = _replace_command(text, name, lambda _arg: "")
    # a run-in heading opens its paragraph: no sentence end or blank line after it, so no chunk ends on it
    text = _replace_command(text, "paragraph", lambda arg: f"\n\n{arg.strip()} —\x1e")
    text = re.sub(r"\x1e\s*", " ", text)
    text = _replace_command(text, "footnote", lambda arg: f" (footnote: {arg.strip()})")
    text = _replace_command(text, "caption", lambda arg: f"\n[Caption: {arg.strip()}]\n")
    text = re.sub(r"\\href\s*\{[^}]*\}", "", text)
    text = citations(text)  # latex_markup.py: the optional text stays, [e.g. key, p. 3]
    for name in UNWRAP:
        text = _replace_command(text, name, lambda arg: arg)
    text = re.sub(r"\\begin\{(figure|table|deluxetable)\*?\}.*?\\end\{\1\*?\}",
                  lambda m: " ".join(re.findall(r"\[Caption: [^\]]*\]", m.group(0))), text, flags=re.DOTALL)
    text = re.sub(r"\\(begin|end)\{[A-Za-z*]+\}(\[[^\]]*\])?", "\n", text)
    text = text.replace("~", " ").replace("``", '"').replace("''", '"').replace("---", "—").replace("--", "–")
    text = re.sub(r"\\([%&#_$])", r"\1", text)
    text = re.sub(r"\\[,;:! ]", " ", text)
    text = re.sub(r"\\(item|noindent|clearpage|newpage|maketitle|centering|appendix|par|medskip|bigskip|"
                  r"smallskip|tableofcontents|raggedright|bf|it|rm|tt|sc|em)(?![A-Za-z])", "", text)
    text = re.sub(r"\\\\(\[[^\]]*\])?", "\n", text)
    text = PROSE_COMMAND.sub(prose_symbol, text)  # never a raw \command left
    text = re.sub(r"(?<!\\)[{}]", "", text)
    return re.sub(r"[ \t]+", " ", text)


def _replace_command(text: str, name: str, render: Callable[[str], str], nargs: int = 1) -> str:
    """Replace \\name[opt]{arg}... by render(first arg); further arguments are dropped."""
    pattern = re.compile(r"\\" + name + r"\*?(?![A-Za-z])\s*(?:\[[^\]]*\])?")
    out, pos = [], 0
    for match in pattern.finditer(text):
        if match.start() < pos:
            continue
        arg, end = braced(text, match.end())
        for _ in range(nargs - 1):
            _, end = braced(text, end)
        out.append(text[pos : match.start()] + render(arg))
        pos = end
    return "".join(out) + text[pos:]


def _math_mode(text: str) -> str:
    """Inside math \\ensuremath is a no-op: unwrap it; labels are dropped."""
    for _ in range(8):  # nested macros nest \\ensuremath
        if "\\ensuremath" not in text:
            break
        text = _replace_command(text, "ensuremath", lambda arg: arg)
    text = re.sub(r"\\label\{[^}]*\}\s*", "", text)
    return text_boxes_in_math(text, _clean_prose).strip()  # latex_modes.py: a box's words, not its plumbing


def _text_math(text: str) -> str:
    """\\ensuremath{x} used in running text (through a macro) becomes $x$."""
    return _replace_command(text, "ensuremath", lambda arg: "$" + _math_mode(arg) + "$")


def to_text(text: str) -> str:
    """Clean prose between math; math itself is kept as written (display math on its own lines);
    figures and tables are read whole first (latex_floats.py)."""
    blocks: list[str] = []
    # \texorpdfstring{TeX}{plain}: the plain form ("ΛCDM", "ℓ") is the one a reader and a search want
    text = pdf_strings(text)
    text = render_floats(text, to_text, blocks)
    parts, pos = [], 0
    for match in _MATH.finditer(text):
        parts.append(_clean_prose(_text_math(text[pos : match.start()])))
        if match.group(4):  # code: its lines as they are
            parts.append("\n" + re.sub(r"\\(begin|end)\{[a-z]+\}(\{[^}]*\})?", "", match.group(0)).strip("\n") + "\n")
            pos = match.end()
            continue
        math = _math_mode(match.group(0))
        display = not (math.startswith("$") and not math.startswith("$$")) and not math.startswith("\\(")
        parts.append(f"\n{math}\n" if display else math)
        pos = match.end()
    parts.append(_clean_prose(_text_math(text[pos:])))
    joined = "".join(parts)
    joined = re.sub(r"[ \t]+", " ", joined)
    joined = re.sub(r" ?\n ?", "\n", joined)
    return put_back(re.sub(r"\n{3,}", "\n\n", joined).strip(), blocks)


def latex_sections(path: Path, budget: Budget | None = None) -> tuple[str | None, list[LatexSection]]:
    """(title, sections) of a LaTeX source; section titles are numbered as LaTeX would number them.

    A numbered section whose text is all in its subsections is kept with empty text: it is part
    of the outline. Acknowledgments and references are sections of their own (latex_bib.py), and
    \\ref/\\eqref print the numbers LaTeX would (latex_refs.py).
    Untrusted input: the budget bounds inlining and macro expansion (see latex_limits.py), and
    parse_paper runs this in a child process bounded in memory and time (latex_limits.read_bounded).
    """
    budget = budget or Budget()
    files = read_source_files(path)
    main = main_file(files)
    full = inline_inputs(files, main, budget=budget)
    macros = {name: m for name, m in collect_macros(full).items() if name not in DECIMAL_GLYPHS}
    body = full
    if "\\begin{document}" in full:
        body = full.split("\\begin{document}", 1)[1].split("\\end{document}", 1)[0]
    body = resolve_conditionals(decimal_glyphs(expand_macros(drop_definitions(body), macros, budget)))
    body = algorithmic_steps(_back_matter_and_references(body, files, main, set(macros)))
    preamble = full.split("\\begin{document}", 1)[0] if "\\begin{document}" in full else ""
    head = resolve_conditionals(expand_macros(drop_definitions(preamble), macros, budget)) + body  # \title: preamble
    about = front_matter(head, to_text)
    title_match = re.search(r"\\title\s*(?:\[[^\]]*\])?\s*\{", head)
    title = to_text(braced(head, title_match.end() - 1)[0]) if title_match else None
    sections: list[LatexSection] = []
    abstract = re.search(r"\\begin\{abstract\}(.*?)\\end\{abstract\}", body, re.DOTALL)
    if abstract:
        sections.append(LatexSection("Abstract", to_text(abstract.group(1))))
        body = body[: abstract.start()] + body[abstract.end():]
    numbers = SectionCounter()
    pos, current = 0, "Front matter"
    for match in _HEADING.finditer(body):
        if match.start() < pos:
            continue
        sections.append(LatexSection(current, to_text(body[pos : match.start()])))
        heading, pos = braced(body, match.end() - 1)
        if "\\appendix" in body[: match.start()]:
            numbers.start_appendix()
        name = to_text(heading)
        if not match.group(2):
            name = f"{numbers.step(SECTION_LEVELS[match.group(1)])} {name}"
        current = name
    sections.append(LatexSection(current, to_text(body[pos:])))
    for section in sections:
        section.text = floats_last(section.text)
    if about:  # affiliations and keywords: the front matter's first lines
        front = next((s for s in sections if s.title == "Front matter"), None)
        if front is None:
            sections.insert(0, LatexSection("Front matter", about))
        else:
            front.text = f"{about}\n\n{front.text}".strip()
    return title, _kept(sections)


def _back_matter_and_references(body: str, files: dict[str, str], main: str, own_macros: set[str]) -> str:
    """References and acknowledgments made sections, journal macros spelled out, \\ref resolved."""
    from astro_cli.research.text.latex_bib import back_matter, expand_journals, inline_bbl
    from astro_cli.research.text.latex_refs import collect_labels, resolve_refs

    body = back_matter(expand_journals(inline_bbl(body, files, main), own_macros))
    return resolve_refs(body, collect_labels(body))


def _kept(sections: list[LatexSection]) -> list[LatexSection]:
    """Sections with text, and numbered parents whose text is all in their subsections."""
    kept = []
    for n, section in enumerate(sections):
        number = section.title.split(" ", 1)[0]
        parent = any(later.title.startswith(number + ".") for later in sections[n + 1:])
        short = len(section.text) < 200 and not section.text.startswith(("Affiliations:", "Keywords:"))
        if section.text and not (section.title == "Front matter" and short):
            kept.append(section)
        elif parent and section.title != "Front matter":
            kept.append(section)
    return kept
