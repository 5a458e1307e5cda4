"""The built site: ``mkdocs build --strict`` passes, every registered worker has its page, and in
a headless Chromium the search finds a worker's page and a page of each section renders without
a console error. Skipped, saying so, where Debian's chromium is not installed (CI installs it)."""

from __future__ import annotations

import functools
import http.server
import os
import posixpath
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from browser import browser, chromium
from docsite import CONFIG
from hotplex import registry

pytestmark = pytest.mark.slow  # a build of the site, and a browser

# One page of each section of the nav.
SECTIONS = [
    "",
    "getting-started/",
    "guides/pre-commit/",
    "concepts/manifest/",
    "workers/",
    "reference/workers/codex/",
    "reference/manifest/",
    "reference/cli/",
    "security/",
    "benchmarks/",
    "contributing/",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    built = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(CONFIG), "-d", str(built)],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return built


@pytest.fixture(scope="module")
def served(site: Path):
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None


def test_every_registered_worker_has_its_page(site: Path):
    pages = sorted(p.parent.name for p in (site / "reference/workers").glob("*/index.html"))
    assert pages == sorted(registry.names())


needs_chromium = pytest.mark.skipif(
    chromium() is None and not os.environ.get("CI"),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)


@needs_chromium
def test_the_search_finds_a_worker_page(served: str):
    with browser(chromium()) as page:
        page.open(served + "?q=codex")
        links = page.wait_for(
            "[...document.querySelectorAll('.md-search-result__item a')].map(a => a.href)"
        )
        assert served + "reference/workers/codex/" in links
        assert not [m for m in page.console if m.startswith(("error", "exception"))]


@needs_chromium
def test_a_page_of_each_section_renders_without_console_errors(served: str):
    with browser(chromium()) as page:
        for path in SECTIONS:
            page.open(served + path)
            title = page.wait_for("document.querySelector('article h1')?.textContent")
            assert title.strip(), path
            errors = [m for m in page.console if m.startswith(("error", "exception"))]
            assert errors == [], path


# What a newcomer on the front page looks for, and the page (and section) where it is.
WANTED = {
    "how to add the pre-commit hook": "guides/pre-commit/",
    "how a Go gateway compiles a user's prompt": "guides/serve/#from-go",
    "what Codex receives": "reference/workers/codex/",
}
ARTICLE = re.compile(r"<article\b.*?</article>", re.S)
HREF = re.compile(r'<a\b[^>]*\bhref="([^"]+)"')


def _article_links(site: Path, page: str) -> set[str]:
    """The pages (with their anchors) the text of a built page links to, not its nav or sidebar:
    what a reader of the page itself can click."""
    html = (site / page.partition("#")[0] / "index.html").read_text(encoding="utf-8")
    links = set()
    for href in HREF.findall(ARTICLE.search(html).group(0)):
        if "://" in href or href.startswith(("mailto:", "#")):
            continue
        target = posixpath.normpath(posixpath.join(page.partition("#")[0] or ".", href))
        path, _, anchor = target.partition("#")
        path = "" if path == "." else path.rstrip("/") + "/"
        links.add(path + (f"#{anchor}" if anchor else ""))
    return links


@pytest.mark.parametrize("wanted", sorted(WANTED))
def test_a_newcomer_on_the_front_page_finds_it_in_two_clicks(site: Path, wanted: str):
    """Clicking only in the front page's text and then in the page it opens, as a reader would
    who ignores the navigation; the place's anchor must exist on its page."""
    first = _article_links(site, "")
    pages = [p for p in first if (site / p.partition("#")[0] / "index.html").is_file()]
    second = {link for page in pages for link in _article_links(site, page)}
    place = WANTED[wanted]
    assert place in first | second, wanted
    page, _, anchor = place.partition("#")
    if anchor:
        assert f'id="{anchor}"' in (site / page / "index.html").read_text(encoding="utf-8")
