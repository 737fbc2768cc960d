"""One extra per cloud: importing a cloud's components without its provider SDK names the extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(("cloud", "sdk"), [("aws", "pulumi_aws"), ("alicloud", "pulumi_alicloud")])
def test_importing_a_cloud_without_its_sdk_names_the_extra(cloud: str, sdk: str) -> None:
    # None in sys.modules makes `import <sdk>` fail as if the package were not installed.
    code = f"import sys; sys.modules[{sdk!r}] = None; import gpu_cloud.components.{cloud}.kms"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"ModuleNotFoundError: gpu_cloud.components.{cloud} needs the {sdk} package, which is not installed: "
        f"install gpu-cloud with the '{cloud}' extra (pip install 'gpu-cloud[{cloud}]')"
    )


def test_a_missing_dependency_of_the_sdk_itself_is_not_blamed_on_the_extra() -> None:
    code = "import sys; sys.modules['pulumi_aws.ec2'] = None; import gpu_cloud.components.aws"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert "extra" not in result.stderr.splitlines()[-1]
