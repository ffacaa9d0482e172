"""The documentation site builds without a warning, and the README stays a front page.

``mkdocs build --strict`` (``mkdocs.yml``: every broken link or anchor is a warning)
writes every page of the navigation; the README's links reach pages and headings
that exist; the README is at most 200 lines and opens with its two commands
(docs/development.md, "The documentation site").
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mkdocs.config import load_config

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FIRST_COMMANDS = (
    "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/mailbot demo",
    "scripts/test",
)


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of ``config`` into ``site``, its output captured.

    Not with ``-q``: MkDocs 1.6 then builds through the warnings that ``--strict``
    should stop at, and exits 0.
    """
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config)]
    return subprocess.run(
        [*command, "--site-dir", str(site)],
        cwd=config.parent,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def nav_pages(nav: object) -> list[str]:
    """The Markdown files a ``nav`` names, in order.

    >>> nav_pages([{"Home": "index.md"}, {"Guides": [{"A": "a.md"}, "b.md"]}])
    ['index.md', 'a.md', 'b.md']
    """
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    if isinstance(nav, list):
        return [page for item in nav for page in nav_pages(item)]
    return []


def written(site: Path, page: str) -> Path:
    """Where MkDocs writes ``page`` (directory URLs: ``x.md`` is ``x/index.html``).

    >>> written(Path("s"), "index.md"), written(Path("s"), "operators.md")
    (PosixPath('s/index.html'), PosixPath('s/operators/index.html'))
    """
    stem = page.removesuffix(".md")
    return site / "index.html" if stem in ("index", "README") else site / stem / "index.html"


@pytest.mark.slow
def test_the_site_builds_strict_and_writes_every_page_of_the_navigation(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = build(ROOT / "mkdocs.yml", site)
    assert done.returncode == 0, done.stdout + done.stderr
    pages = nav_pages(load_config(str(ROOT / "mkdocs.yml"))["nav"])
    assert {"index.md", "operators.md", "players.md", "directors.md"} <= set(pages)
    assert {"rules.md", "contract.md", "architecture.md", "install.md"} <= set(pages)
    for page in pages:
        html = written(site, page)
        assert html.is_file(), page
        assert "<h1" in html.read_text(encoding="utf-8"), page
    assert not (ROOT / "site").exists()  # built elsewhere, nothing left in the clone
    # no page of docs/ is left out of the navigation
    assert sorted(p.name for p in (ROOT / "docs").glob("*.md")) == sorted(pages)
    readme_links_reach_real_headings(site)


def readme_links_reach_real_headings(site: Path) -> None:
    """Every relative link of the README names a file of the repository and, for a
    page of docs/, a heading the built site has (GitHub makes the same anchors)."""
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        if re.match(r"[a-z]+:", link):
            continue
        path, _, anchor = link.partition("#")
        assert (ROOT / path).exists(), link
        if anchor:
            assert path.startswith("docs/") and path.endswith(".md"), link
            html = written(site, path.removeprefix("docs/")).read_text(encoding="utf-8")
            assert f'id="{anchor}"' in html, link


@pytest.mark.slow
def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    """The build is strict about anchors and pages, so a link that breaks fails CI."""
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    players = tmp_path / "docs" / "players.md"
    with players.open("a", encoding="utf-8") as out:
        out.write("\nSee [the health check](operators.md#no-such-heading).\n")
    done = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-heading" in done.stdout + done.stderr


def test_the_readme_is_short_and_opens_with_its_two_commands() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, len(lines)
    assert lines[0] == "# Mailbot"
    fence = lines.index("```sh")
    assert fence <= 3
    first, second, end = lines[fence + 1 : fence + 4]
    assert first.split("#")[0].rstrip() == FIRST_COMMANDS[0]
    assert second.split("#")[0].rstrip() == FIRST_COMMANDS[1]
    assert end == "```"
