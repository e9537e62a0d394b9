"""What the repository tracks. A worktree's `.venv` made as a symlink to another checkout's
virtualenv was once committed (`.gitignore` named only a `.venv/` directory): merged, the
tracked symlink replaced the merging checkout's own virtualenv with a link to itself."""

from __future__ import annotations

import subprocess

from tests.project.test_docs_site import ROOT


def test_no_tracked_symlink_points_outside_the_checkout():
    listed = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True)
    links = [line.split("\t", 1)[1] for line in listed.stdout.splitlines() if line.startswith("120000 ")]
    outside = [link for link in links
               if not (ROOT / link).resolve(strict=False).is_relative_to(ROOT.resolve())]
    assert not outside, f"tracked symlinks leaving the checkout: {outside}"


def test_the_virtualenv_is_ignored_as_a_directory_or_a_link(tmp_path):
    # Asked of the .gitignore alone, in an empty repository: in this checkout git cannot be asked
    # about ".venv/" when .venv is a link (it refuses a path beyond a link), the very case asked.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text((ROOT / ".gitignore").read_text())
    for path in (".venv", ".venv/"):
        # --no-index: whether .gitignore ignores it, tracked or not
        ignored = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=tmp_path)
        assert ignored.returncode == 0, f"{path} is not ignored"
