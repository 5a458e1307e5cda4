"""The built site: ``mkdocs build --strict`` passes, every registered worker has its page, and in
a headless Chromium the search finds a worker's page and a page of each section renders without
a console error. Skipped, saying so, where Debian's chromium is not installed (CI installs it)."""

from __future__ import annotations

import functools
import http.server
import os
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
