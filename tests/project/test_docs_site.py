"""The documentation: the README stays a five-minute read whose links all lead somewhere, and the
MkDocs site under docs/ builds with --strict, so a broken link, a broken anchor or a nav entry
without its page fails here rather than on a reader."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README_MOST_LINES = 150
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _build(root: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=root, capture_output=True, text=True, timeout=300,
    )


def _copy_of_the_site(tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "docs", copy / "docs")
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    return copy


def _anchors(markdown: str) -> set[str]:
    """The ids MkDocs' toc gives the headings: lower case, punctuation dropped, spaces as '-'."""
    titles = re.findall(r"^#{1,6}\s+(.*?)\s*$", markdown, flags=re.M)
    return {re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", title.lower())).strip("-") for title in titles}


def test_the_site_builds_with_strict(tmp_path):
    built = _build(ROOT, tmp_path / "site")
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "index.html").exists()
    assert (tmp_path / "site" / "games" / "scavenge" / "index.html").exists()
    fetched = {page.name for page in (tmp_path / "site").rglob("*.html")
               if re.search(r"<(script|link)[^>]+(src|href)=\"https?://", page.read_text())}
    assert not fetched, f"pages that load scripts or styles from elsewhere: {fetched}"


def test_a_broken_link_a_missing_heading_or_a_nav_entry_without_its_page_fails_the_build(tmp_path):
    """Each of the three breaks is a warning of its own, and --strict fails on any warning (one build
    for the three: the site takes seconds to build)."""
    copy = _copy_of_the_site(tmp_path)
    with (copy / "docs" / "api.md").open("a") as page:
        page.write("\nSee [the missing page](no-such-page.md) and [a heading](scaling.md#no-such-heading).\n")
    config = copy / "mkdocs.yml"
    licence = "  - Licence: licence.md\n"
    assert licence in config.read_text()
    config.write_text(config.read_text().replace(licence, licence + "  - Gone: gone.md\n"))
    built = _build(copy, tmp_path / "site")
    assert built.returncode != 0
    warnings = [line for line in built.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 3, built.stderr
    for named in ("no-such-page.md", "no-such-heading", "gone.md"):
        assert any(named in line for line in warnings), (named, built.stderr)


def test_a_page_not_yet_in_the_nav_still_builds(tmp_path):
    """A new page builds before it is listed: the nav is the lead's to order."""
    copy = _copy_of_the_site(tmp_path)
    (copy / "docs" / "unlisted.md").write_text("# Unlisted\n\nBack [home](index.md).\n")
    built = _build(copy, tmp_path / "site")
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "unlisted" / "index.html").exists()


def test_the_readme_is_a_five_minute_read():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MOST_LINES, f"README.md has {len(lines)} lines; move the detail to docs/"


def test_every_relative_link_in_the_readme_resolves():
    readme = (ROOT / "README.md").read_text()
    targets = [t for t in LINK.findall(readme) if not re.match(r"[a-z]+:", t)]
    assert targets, "the README links to its docs"
    for target in targets:
        path, _, anchor = target.partition("#")
        file = ROOT / path if path else ROOT / "README.md"
        assert file.exists(), f"README links to {target}, which does not exist"
        if anchor:
            assert anchor in _anchors(file.read_text()), f"README links to {target}: no such heading"


def test_the_readme_links_every_page_of_the_nav():
    """Every page the site lists at the top of its nav, and each folder's index, is one click from
    the README, so a newcomer who reads only the README can still find it (the games' own pages
    through docs/games.md, each decision record through docs/decisions/index.md)."""
    nav = re.findall(r"[\w/-]+\.md", (ROOT / "mkdocs.yml").read_text().split("\nnav:", 1)[1])
    readme = (ROOT / "README.md").read_text()
    wanted = [page for page in nav if "/" not in page or page.endswith("/index.md")]
    assert "index.md" in wanted and "decisions/index.md" in wanted
    missing = [page for page in wanted if f"docs/{page}" not in readme]
    assert not missing, f"README does not link {missing}"


def _tracked_directories() -> set[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return {path.split("/", 1)[0] for path in listed.stdout.splitlines() if "/" in path}


def test_the_readme_gives_every_directory_a_line():
    """The directory list is the newcomer's map: a directory the code keeps but the list leaves out
    is one they have to find by themselves."""
    readme = (ROOT / "README.md").read_text()
    listed = set(re.findall(r"^- `([^`/]+)/`", readme, flags=re.M))
    missing = sorted(_tracked_directories() - listed)
    assert not missing, f"README's list of directories has no line for {missing}"


def _section(markdown: str, title: str) -> str:
    return markdown.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _read_by_the_server(name: str) -> bool:
    """A Django setting, or an environment variable the server's own files read (the Makefile,
    project/serve.py): not only named in the docs, the tests or the benchmarks."""
    from django.conf import settings

    if hasattr(settings, name):
        return True
    listed = subprocess.run(["git", "grep", "-l", "-w", name, "--", ".", ":!docs", ":!tests", ":!bench", ":!*.md"],
                            cwd=ROOT, capture_output=True, text=True)
    return bool(listed.stdout.strip())


def test_the_speed_settings_the_readme_names_are_read_still():
    """The README says which speed settings remain: a flag retired from the code must leave that
    list too, or a reader sets what no longer does anything."""
    named = set(re.findall(r"`(SCRAPYARD_\w+)`", _section((ROOT / "README.md").read_text(), "Speed settings")))
    assert named, "the README names the speed settings that remain"
    retired = sorted(name for name in named if not _read_by_the_server(name))
    assert not retired, f"README names speed settings that are gone: {retired}"
