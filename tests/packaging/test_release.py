"""Release hygiene (docs/releasing.md): the version in pyproject.toml is the one gpucloud --version prints and the
newest release of the changelog, dated, under an [Unreleased] section; the README pins that release's tag."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.packaging.conftest import ROOT

VERSION: str = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def test_gpucloud_prints_the_projects_version() -> None:
    gpucloud = Path(sys.prefix) / "bin" / "gpucloud"
    result = subprocess.run([str(gpucloud), "--version"], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == f"gpucloud {VERSION}"


def test_the_changelog_has_an_unreleased_section_then_the_version_dated() -> None:
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings[0] == ("Unreleased", "")
    assert headings[1][0] == VERSION
    assert headings[1][1], "a release is dated"


def test_the_readme_and_the_provider_docs_pin_this_releases_tag() -> None:
    for page in ("README.md", "docs/provider.md", "docs/releasing.md"):
        tags = set(re.findall(r"@(v\d+\.\d+\.\d+)", (ROOT / page).read_text(encoding="utf-8")))
        assert tags == {f"v{VERSION}"}, page


def test_the_provider_urls_mark_where_the_repository_ends() -> None:
    # pulumi package add reads a Git URL's first two path segments as owner and repository unless ".git" marks the
    # end of the repository (pulumi/pulumi 1b594989, sdk/go/common/util/gitutil/git.go ParseGitRepoURL).
    for page in ("README.md", "docs/provider.md", "docs/releasing.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        urls = re.findall(r"https://\S+/provider@v\d", text)
        assert urls, page
        assert all("/gpu-cloud.git/provider@" in url for url in urls), (page, urls)
