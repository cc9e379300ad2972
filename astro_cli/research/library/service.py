"""The paper library as the app's one service: `Library.of(app)`, with the steps as its methods.

`add` fetches a paper (download.py: the arXiv fetcher, which returns the stored `Paper`), `parse`
indexes the paper it is handed (parse.py), `embed` makes the vectors of what was indexed
(search/embed.py), `search` ranks passages (search/passages.py) and `content` reads a paper's text
by section or pages (content.py). Each step is a module that takes the library's core
(papers.py) and never the app; this class only ties them together, so no step imports it. It holds
its parts (`LibraryParts`), never the app: `Library.of(app)` builds the app's one from the app's parts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from astro_cli.research.library.papers import LibraryCore, LibraryParts

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.research.library.content import Content
    from astro_cli.research.library.download import Downloaded, Progress
    from astro_cli.research.library.parse import ParseReport
    from astro_cli.research.records import Paper
    from astro_cli.research.search.passages import SearchResult


class Library(LibraryCore):
    """The paper library of one workspace, built once per app (`Library.of(app)`); papers travel
    between its steps as `Paper` records, never as ids to read again."""

    @staticmethod
    def of(app: AppContext) -> Library:
        """The app's one library, built from the app's parts on first use: the one place that reads the app
        for it (the feature's install provides it to the tools that declare `needs=Library`)."""
        return app.service(Library, lambda: Library.from_app(app))

    @staticmethod
    def from_app(app: AppContext) -> Library:
        """A library of this app's settings, store, files, web, redactor, encoders and readers."""
        from astro_cli.extensions import extension_points
        from astro_cli.research.library.files import PaperFiles
        from astro_cli.research.library.storage import LibraryStore, open_store
        from astro_cli.research.search.local_embed import LocalModels
        from astro_cli.research.sources.web import Web

        store = app.service(LibraryStore, lambda: open_store(
            app.settings, app.workspace, app.keys, lambda: app.db, lambda: app.redactor, app.on_close))
        return Library(LibraryParts(
            settings=app.settings, workspace=app.workspace, home=app.home, store=store,
            files=PaperFiles(app.settings, app.workspace, lambda: app.confinement),
            web=lambda: Web.of(app), redactor=lambda: app.redactor, confinement=lambda: app.confinement,
            encoders=lambda: app.service(LocalModels),
            # the features' install runs here when a command (`library add`) has not run it yet
            readers=lambda: extension_points(app.install_features()), on_close=app.on_close))

    def add(self, identifier: str, *, with_source: bool = True, progress: Progress | None = None,
            cancel: threading.Event | None = None, on_wait: Callable[[str], None] | None = None) -> Downloaded:
        """Fetch a paper (arXiv PDF and LaTeX source, metadata from arXiv and ADS) into the library."""
        from astro_cli.research.library.download import download

        return download(self, identifier, with_source=with_source, progress=progress, cancel=cancel,
                        on_wait=on_wait)

    def parse(self, paper: Paper | str, force: bool = False, vectors: str = "auto") -> ParseReport:
        """Index a paper's text (its LaTeX source, else its PDF) into chunks; see parse.py."""
        from astro_cli.research.library.parse import parse_paper

        return parse_paper(self, paper, force=force, vectors=vectors)

    def embed(self, paper_id: str | None = None, note_id: int | None = None) -> int:
        """Vectors for a paper's (or note's) chunks that lack them; how many were made."""
        from astro_cli.research.search.embed import embed_paper

        return embed_paper(self, paper_id=paper_id, note_id=note_id)

    def search(self, question: str | Sequence[str], k: int = 8, papers: list[str] | str | None = None, *,
               include_references: bool = False, synonyms: bool | None = None) -> SearchResult:
        """The best k passages for a question, from papers and notes; see search/passages.py."""
        from astro_cli.research.search.passages import search_library

        return search_library(self, question, k, papers, include_references=include_references, synonyms=synonyms)

    def content(self, paper: Paper, section: str | None = None, pages: str | int | list[int] | None = None,
                budget: int | None = None) -> Content:
        """A paper's indexed text by section or pages, cut to a budget; see content.py."""
        from astro_cli.research.library.content import paper_content

        return paper_content(self, paper, section=section, pages=pages, budget=budget)
