"""Issue 29: LaTeX markup that carries meaning survives, on the real emcee source (AASTeX) and on small
A&A- and MNRAS-style front matters written here: affiliations and keywords, the optional text of
citations, algorithmic blocks as numbered steps."""

from __future__ import annotations

import pytest

from astro_cli.research.text.latex import latex_sections, to_text
from tests.library_support import parse_emcee, section_text


@pytest.fixture(scope="module")
def emcee(tmp_path_factory):
    app, report, rows = parse_emcee(tmp_path_factory.mktemp("markup") / "ws")
    yield report, rows
    app.close()


def test_affiliations_and_keywords_open_the_front_matter(emcee):
    report, rows = emcee
    assert report.paper["parsed_from"] == "latex"  # the paper's record says where the text came from
    front = section_text(rows, "Front matter")
    assert front.startswith("Affiliations: [1] To whom correspondence")
    assert ("Affiliations: [1] To whom correspondence should be addressed: danfm@nyu.edu; [2] Center for "
            "Cosmology and Particle Physics, Department of Physics, New York University") in front
    assert "[3] Max-Planck-Institut für Astronomie, Königstuhl 17, D-69117 Heidelberg, Germany" in front
    assert "Keywords: methods: data analysis; methods: numerical; methods: statistical" in front


def test_citations_keep_their_optional_text(emcee):
    _, rows = emcee
    intro = section_text(rows, "1 Introduction")
    assert "provide a dramatic example [for example, Dunkley:2005]." in " ".join(intro.split())
    assert "[Goodman:2010, hereafter [Goodman:2010]] proposed an" in intro
    assert to_text(r"as shown \citep[e.g.][p.~3]{smith2010,jones2011}.") == "as shown [e.g. smith2010, jones2011, p. 3]."
    assert to_text(r"\citet[Sect.~2]{smith2010} and \cite{a}") == "[smith2010, Sect. 2] and [a]"


def test_algorithmic_blocks_are_numbered_readable_steps(emcee):
    _, rows = emcee
    algorithm = section_text(rows, "2 The Algorithm")
    assert "\\STATE" not in algorithm and "\\IF" not in algorithm and "\\ENDFOR" not in algorithm
    steps = ("1: Draw a proposal $Y \\sim Q (Y; X(t))$\n"
             "2: $q \\gets [p(Y) \\, Q(X(t); Y)] / [p(X(t)) \\, Q(Y;X(t))]$ // This line is generally expensive\n"
             "3: $r \\gets R \\sim [0, 1]$\n"
             "4: if $r \\le q$ then\n"
             "5: \u2003$X(t+1) \\gets Y$\n"
             "6: else\n"
             "7: \u2003$X(t+1) \\gets X(t)$\n"
             "8: end if")
    assert steps in algorithm
    assert "12: end for" in algorithm and "7: \u2003if $r \\le q$, Equation (9) then" in algorithm


def test_aa_and_mnras_front_matter(tmp_path):
    aa = tmp_path / "aa.tex"
    aa.write_text(r"""\documentclass{aa}
\begin{document}
\title{A test of the A\&A front matter}
\author{A. Author\inst{1} \and B. Author\inst{2}}
\institute{Observatoire de Paris, LESIA, France \and Leiden Observatory, The Netherlands}
\abstract{We test.}
\keywords{Stars: formation -- ISM: clouds -- Methods: numerical}
\maketitle
\section{Introduction}
""" + "Some prose about the formation of stars. " * 60 + "\n\\end{document}\n")
    _, sections = latex_sections(aa)
    front = next(s.text for s in sections if s.title == "Front matter")
    assert "Affiliations: Observatoire de Paris, LESIA, France; Leiden Observatory, The Netherlands" in front
    assert "Keywords: Stars: formation; ISM: clouds; Methods: numerical" in front

    mnras = tmp_path / "mnras.tex"
    mnras.write_text(r"""\documentclass{mnras}
\title{An MNRAS front matter}
\author{C. Author,$^{1}$\thanks{E-mail: c@example.org} D. Author$^{2}$
\\ $^{1}$Institute of Astronomy, Madingley Road, Cambridge CB3 0HA, UK}
\begin{document}
\maketitle
\begin{keywords}
galaxies: evolution -- galaxies: high-redshift
\end{keywords}
\section{Introduction}
""" + "Some prose about galaxies at high redshift. " * 60 + "\n\\end{document}\n")
    _, sections = latex_sections(mnras)
    front = next(s.text for s in sections if s.title == "Front matter")
    assert "Keywords: galaxies: evolution; galaxies: high-redshift" in front


def test_an_algorithm_float_waits_for_the_end_of_its_section(emcee):
    _, rows = emcee
    algorithm = section_text(rows, "2 The Algorithm")
    assert "The stretch move — [Goodman:2010] proposed an affine-invariant ensemble sampling" in algorithm
    # the prose that Algorithm 1 interrupted reads on; the steps follow the section's last paragraph
    assert algorithm.index("A more efficient chain has a shorter") < algorithm.index("The stretch move —")
    assert algorithm.index("extremely powerful.") < algorithm.index("1: Draw a proposal")


def test_a_float_that_opens_a_section_is_a_chunk_of_its_own(tmp_path):
    # A figure placed right after \subsection (the usual place) began the section's text: its marks
    # were control characters Python counts as whitespace, so strip() took them, the caption was lost
    # ("0 1" was indexed instead) and the whole prose after it was chunked as one 8,000-character float.
    from astro_cli.research.library.parse import latex_chunks

    source = tmp_path / "ms.tex"
    source.write_text(r"""\documentclass{article}
\begin{document}
\section{Results}
\subsection{Optical depth}
\begin{figure}\includegraphics{a.pdf}
\caption{Marginalized constraint contours for the matter density.}\end{figure}
\begin{table}\caption{Parameters of the fit.}
\begin{tabular}{lc} Parameter & Value \\ $\tau$ & $0.054\pm 0.007$ \\ \end{tabular}\end{table}
""" + "The optical depth is well constrained by large-scale polarization. " * 80 + r"""
\end{document}
""")
    _, sections = latex_sections(source)
    chunks = latex_chunks(sections, 1500)
    texts = [c.text for c in chunks if c.section == "1.1 Optical depth"]
    assert "[Caption: Marginalized constraint contours for the matter density.]" in texts
    assert any(t.startswith("[Caption: Parameters of the fit.]") and "τ | 0.054 ± 0.007" in t for t in texts), texts
    assert all(len(t) <= 1500 for t in texts)  # the prose is cut like any prose, not kept whole as a "float"
    assert not any(t.strip() in {"0", "1", "0 1"} for t in texts)
