"""Issue 15: a LaTeX source's back matter and cross-references, on the real emcee source and on a
small arXiv-like source written here (a .bbl as arXiv ships it, align rows, figures, an
acknowledgements environment)."""

from __future__ import annotations

import pytest

from astro_cli.research.text.latex import latex_sections
from tests.library_support import EMCEE_TEX, parse_emcee, section_text


@pytest.fixture(scope="module")
def emcee(tmp_path_factory):
    app, report, rows = parse_emcee(tmp_path_factory.mktemp("latex") / "ws")
    yield report, rows
    app.close()


def test_references_and_acknowledgments_are_sections_of_their_own(emcee):
    report, rows = emcee
    assert [name for name, _ in report.sections] == [
        "Abstract", "Front matter", "1 Introduction", "2 The Algorithm", "3 Tests", "4 Discussion & Tips",
        "Acknowledgments", "References", "A Installation", "B Issues & Contributions", "C Online Documentation",
    ]
    tips = section_text(rows, "4 Discussion & Tips")
    assert "\\bibitem" not in tips and "It is a pleasure to thank" not in tips and "Akeret" not in tips
    assert tips.rstrip().endswith("please push us changes!")
    thanks = section_text(rows, "Acknowledgments")
    assert thanks.startswith("It is a pleasure to thank") and "NSF (grant AST-0908357)" in thanks
    references = section_text(rows, "References")
    assert references.startswith("[akeret2012] Akeret, J., Seehars, S., Amara, A., Refregier, A., & Csillaghy, A. "
                                 "2012, arXiv:1212.1721")
    # Journal macros spelled out, BibTeX accents composed, one entry per paragraph.
    assert "\n\n[bovy2012] Bovy, J., Rix, H.-W., Liu, C., et al. 2012, ApJ, 753, 148\n\n" in references
    assert "Brammer, G. B., Sánchez-Janssen, R., Labbé, I., et al. 2012, ApJL, 758, L17" in references
    assert "2005, MNRAS, 356, 925" in references
    text = "\n".join(r["text"] for r in rows)
    assert "\\apj" not in text and "\\mnras" not in text and "\\bibitem" not in text
    kinds = {r["section"]: r["kind"] for r in rows}
    assert kinds["References"] == "references" and kinds["Acknowledgments"] == "acknowledgments"
    assert kinds["4 Discussion & Tips"] == "body" and kinds["A Installation"] == "body"


def test_refs_print_the_numbers_latex_would(emcee):
    _report, rows = emcee
    text = "\n".join(r["text"] for r in rows)
    for broken in ("Section )", "Equation ()", "Algorithm .", "Algorithm )", "on page", "\\ref", "\\pageref"):
        assert broken not in text, broken
    flat = " ".join(text.split())
    assert "the proposal of Equation (7) is symmetric" in flat
    assert "the procedure shown in Algorithm 2." in flat
    assert "(starting at line 2 in Algorithm 3)" in flat
    assert "start at Appendix A or visit the online documentation" in flat
    assert "there is some advice in Section 4." in flat
    assert "$z \\gets Z \\sim g(z)$, Equation (10)" in flat  # inside an algorithm too


def _write(folder, name, text):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_labels_of_rows_figures_and_parents_and_a_shipped_bbl(tmp_path):
    source = tmp_path / "src"
    _write(source, "paper.tex", r"""\documentclass{aastex631}
\begin{document}
\title{Dust}
\section{Model}
\subsection{Grains}\label{sec:grains}
We model grains.
\begin{align}
a &= b \label{eq:first} \\
c &= d \nonumber \\
e &= f \label{eq:third} \\
\end{align}
\begin{equation*} x = y \end{equation*}
\begin{equation} g = h \label{eq:fourth} \end{equation}
\begin{figure}\caption{Grains.\label{fig:grains}}\end{figure}
As \autoref{fig:grains} and \eqref{eq:third} show, see \cref{eq:fourth} and Section~\ref{sec:grains};
also \ref{eq:first} and the lost \ref{fig:missing}.
\begin{acknowledgements}
We thank the referee.
\end{acknowledgements}
\bibliographystyle{aasjournal}
\bibliography{refs}
\end{document}
""")
    _write(source, "paper.bbl", r"""\begin{thebibliography}{}
\bibitem[{Draine} \& {Lee}(1984)]{Draine1984}
{Draine}, B.~T., \& {Lee}, H.~M. 1984, \apj, 285, 89
\bibitem[{Weingartner} \& {Draine}(2001)]{WD01}
{Weingartner}, J.~C., \& {Draine}, B.~T. 2001, \apj, 548, 296
\end{thebibliography}
""")
    _title, sections = latex_sections(source)
    by_name = {s.title: s.text for s in sections}
    assert list(by_name) == ["1 Model", "1.1 Grains", "Acknowledgments", "References"]
    assert by_name["1 Model"] == ""  # a parent whose text is all in its subsection stays in the outline
    grains = " ".join(by_name["1.1 Grains"].split())
    assert "As Figure 1 and (2) show, see Eq. (3) and Section 1.1; also 1 and the lost [fig:missing]." in grains
    assert by_name["Acknowledgments"] == "We thank the referee."
    assert by_name["References"] == ("[Draine1984] Draine, B. T., & Lee, H. M. 1984, ApJ, 285, 89\n\n"
                                     "[WD01] Weingartner, J. C., & Draine, B. T. 2001, ApJ, 548, 296")


def test_the_emcee_source_alone_still_reads(tmp_path):
    title, sections = latex_sections(EMCEE_TEX)
    assert title == "emcee: The MCMC Hammer" and sections[0].title == "Abstract"


def test_an_accent_on_a_dotless_i_is_composed(tmp_path):
    """Issue 42 (stop 52): Planck 2018 VI's affiliations write `F\\'{\\i}sica`; the accent was left as
    `F\\'isica` in its chunks, so "Física" was neither found nor shown as the paper prints it."""
    source = tmp_path / "ms.tex"
    source.write_text("\\documentclass{aa}\n\\begin{document}\n\\section{Teams}\n"
                      "Departamento de F\\'{\\i}sica and Garc\\'\\i a, na\\\"{\\i}ve, Universit\\`{a} di Roma.\n"
                      "\\end{document}\n")
    _title, sections = latex_sections(source)
    text = "\n".join(section.text for section in sections)
    assert "Departamento de Física and García, naïve, Università di Roma." in text, text
    assert "\\'" not in text


def test_a_macro_drawn_with_tex_boxes_prints_its_argument(tmp_path):
    """Issue 42 (stop 52): Planck 2018 VI's own `\\pmb` (a poor man's bold: its argument set in a box and
    printed three times, shifted by `\\kern`) leaked `\\setbox0=\\hbox{$$}\\copy0\\kern-\\wd0` into a chunk."""
    source = tmp_path / "ms.tex"
    source.write_text("\\documentclass{aa}\n\\def\\pmb#1{\\setbox0=\\hbox{#1}%\n    \\kern-.025em\\copy0\\kern-\\wd0\n"
                      "    \\kern.05em\\copy0\\kern-\\wd0\n    \\kern-.025em\\raise.0433em\\box0}\n\\begin{document}\n"
                      "\\section{Tests}\nThe \\pmb{shifted} parameters enter\n\\begin{equation}\n"
                      "\\chi^2_p = \\pmb{x}^{\\sf T} C^{-1} \\pmb{x}\n\\end{equation}\nas a quadratic form.\n\\end{document}\n")
    _title, sections = latex_sections(source)
    text = "\n".join(section.text for section in sections)
    assert "shifted" in text and "\\chi^2_p =" in text, text
    for primitive in ("\\setbox", "\\copy", "\\kern", "\\wd", "\\raise", "\\box"):
        assert primitive not in text, (primitive, text)
