"""The repository stands alone: no tracked file names a path outside it, and a clean clone of
the committed tree collects every test without an error."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# An absolute path under a home or work folder, or a test climbing two levels above its folder.
ABSOLUTE = re.compile(r"/work/|/root/|/home/|/Users/|[A-Z]:\\\\Users|parents\[[2-9]\]")
# A relative path that may climb out: checked against the folder of the file that names it.
RELATIVE = re.compile(r"(?:\.\./)+[\w.-]*")
# Files that hold such strings as data: hostile inputs of the path-encoding tests.
ALLOWED = {"tests/test_self_contained.py"}


def _tracked() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    return [name for name in out.decode().split("\0") if name]


def _leaves_repo(folder: Path, line: str) -> bool:
    if ABSOLUTE.search(line):
        return True
    for match in RELATIVE.finditer(line):
        if not (folder / match.group()).resolve().is_relative_to(ROOT):
            return True
    return False


def test_no_tracked_file_names_a_path_outside_the_repo():
    offenders = []
    for name in _tracked():
        if name in ALLOWED:
            continue
        path = ROOT / name
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary samples
        for number, line in enumerate(text.splitlines(), 1):
            if _leaves_repo(path.parent, line):
                offenders.append(f"{name}:{number}: {line.strip()[:120]}")
    assert not offenders, "paths outside the repo:\n" + "\n".join(offenders)


def test_a_clean_clone_collects_every_test(tmp_path):
    _tracked()
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)],
        check=True,
        capture_output=True,
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "tests"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    tail = (result.stdout + result.stderr)[-3000:]
    assert result.returncode == 0, tail
    assert "error" not in result.stdout.splitlines()[-1].lower(), tail
