"""Issue 44, stop 53: running heads and footers of the journal classes are known by their form on
papers cut to a few pages, where pdftext.running_heads has too few pages to count (pdfheads.py)."""

from __future__ import annotations

from astro_cli.research.text.pdfheads import class_head
from astro_cli.research.text.pdfread import read_pages
from astro_cli.research.text.pdftext import COMMON, pdf_layout
from tests.paths import FIXTURES_DIR

PAPERTEXT = FIXTURES_DIR / "papertext"
NAMES = frozenset(COMMON.values())


def _lines(path: str) -> list[str]:
    return [line.text for line in pdf_layout(read_pages(PAPERTEXT / path)).lines]


def test_heads_of_aastex_mnras_and_the_preprint_style_leave_the_text():
    # AASTeX (timmy2020: `TOI 837 IN IC 2602 | 9` opened a chunk before `Table 2 (continued)`),
    # MNRAS (lensingssc2024), the AASTeX preprint style's `– 8 –` (stardate2019)
    assert not any("TOI 837 IN IC 2602" in line for line in _lines("unseen/timmy2020_p9-17-20.pdf"))
    lensing = _lines("unseen3/lensingssc2024_p1-2.pdf")
    for head in ("MNRAS 000, 1–3 (2024)", "© 2024 The Authors", "2 A. Tokiwa et al."):
        assert not any(line.startswith(head) for line in lensing)
    assert not any(line.startswith("– 8 –") for line in _lines("unseen/stardate2019_p8-14.pdf"))


def test_a_head_is_no_heading_and_a_heading_is_no_head():
    # solar2026's page opened `2 Laughlin` (its even-page head), taken for the heading of section 2;
    # `2. METHODS` below it is the heading
    outline = [name for name, _ in pdf_layout(read_pages(PAPERTEXT / "unseen3" / "solar2026_p2-3.pdf")).outline]
    assert "2 Methods" in outline and not any("Laughlin" in name for name in outline)
    for heading in ("3 STATISTICS", "4. Results", "3 Observations", "TABLE 6", "Table 2", "II. METHODS"):
        assert not class_head(heading, NAMES, top=True)
    for head in ("6 BOUMA ET AL.", "KEPLER AND THE BEHEMOTH 7", "Rotating Stars 5", "4 Davenport & Covey",
                 "Article number, page 5 of 12", "Draft version January 23, 2018", "©ESO 2024"):
        assert class_head(head, NAMES, top=True)
    assert not class_head("KEPLER AND THE BEHEMOTH 7", NAMES, top=False)  # a title and a number: page tops only


def test_a_class_line_under_the_arxiv_stamp_is_a_head():
    # 1001.0012 (emulateapj): `Draft version December 21, 2010` and, third on the page after arXiv's
    # stamp, `Preprint typeset using LATEX style emulateapj v. 8/13/10` opened the paper's text
    cowan = pdf_layout(read_pages(FIXTURES_DIR / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf", max_pages=1))
    assert not any(line.text.startswith(("Draft version", "Preprint typeset")) for line in cowan.lines)
    assert any(line.text.startswith("THE STATISTICS OF ALBEDO") for line in cowan.lines)
