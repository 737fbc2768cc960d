"""A project of its own that uses gpu-cloud: its config namespace stays its own, and an error a component raises
for an argument given in code is a program error at the line that gave it, not "invalid config"."""

from __future__ import annotations

import json
import textwrap

import pytest

from gpu_cloud.planner.cli import main
from tests.gpucloud.conftest import MakeProject
from tests.gpucloud.test_cli import VALID_CONFIG

CONSUMER = "name: team-platform\nruntime: python\n"

READS_BOTH = """
    import pulumi
    from gpu_cloud.components.spec import load_stack_config

    config = load_stack_config()
    own = pulumi.Config()
    pulumi.export("region", config.region)
    pulumi.export("slackChannel", own.require("slackChannel"))
    pulumi.export("ownRegion", own.require("region"))
"""

# The consumer's own keys, one of them named like a gpu-cloud field (region) and one unknown to gpu-cloud.
OWN_KEYS = '      team-platform:slackChannel: "#gpu-oncall"\n      team-platform:region: eu-central-1\n'


def _plan(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["plan", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_consumer_project_keeps_its_own_config_namespace(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(READS_BOTH, {"dev": VALID_CONFIG + OWN_KEYS}, pulumi_yaml=CONSUMER)
    monkeypatch.chdir(root)
    status, out, err = _plan(capsys, "--dir", str(root), "--json", "--no-policy")
    assert (status, err) == (0, "")
    outputs = json.loads(out)["outputs"]
    assert outputs == {"region": "us-east-1", "slackChannel": "#gpu-oncall", "ownRegion": "eu-central-1"}


def test_an_unknown_gpu_cloud_key_of_a_consumer_project_is_still_invalid_config(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = VALID_CONFIG + OWN_KEYS + "      gpu-cloud:nodepools: []\n"
    root = make_project(READS_BOTH, {"dev": config}, pulumi_yaml=CONSUMER)
    monkeypatch.chdir(root)
    status, out, err = _plan(capsys, "--dir", str(root), "--no-policy")
    assert (status, out) == (2, "")
    problem = "gpu-cloud:nodepools: extra inputs are not permitted; did you mean nodePools? (got [])"
    assert err == f"error: invalid config in Pulumi.dev.yaml:\n  {problem}\n"


def test_gpu_cloud_keys_under_the_consumer_namespace_are_not_read(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The whole gpu-cloud config under the project's own name: gpu-cloud does not find it there.
    root = make_project(READS_BOTH, {"dev": VALID_CONFIG.replace("gpu-cloud:", "team-platform:")}, CONSUMER)
    monkeypatch.chdir(root)
    status, out, err = _plan(capsys, "--dir", str(root), "--no-policy")
    assert (status, out) == (2, "")
    required = ("cloud", "region", "environment", "tags", "network", "access", "deploy")
    assert err == "error: invalid config in Pulumi.dev.yaml:\n" + "".join(
        f"  gpu-cloud:{key}: field required (got null)\n" for key in required
    )


BAD_ALIAS = """
    import pulumi
    from gpu_cloud.components.aws import KmsKey, KmsKeyArgs
    from gpu_cloud.components.spec import KmsKeySpec

    KmsKey(
        "team-kms",
        KmsKeyArgs(spec=KmsKeySpec(), alias="aws/not-allowed", user_role_arns=["team-admin"]),
    )
"""


def test_a_component_error_for_an_argument_in_code_is_a_program_error_at_its_line(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(BAD_ALIAS, {"dev": VALID_CONFIG + OWN_KEYS}, pulumi_yaml=CONSUMER)
    monkeypatch.chdir(root)
    status, out, err = _plan(capsys, "--dir", str(root))
    assert (status, out) == (2, "")
    line = textwrap.dedent(BAD_ALIAS).splitlines().index("KmsKey(") + 1
    assert err == (
        f"error: __main__.py:{line}: ConfigError: alias: not a KMS alias name (letters, digits, /_-; not aws/) "
        "(got aws/not-allowed)\n"
        "  userRoleArns.0: not an IAM role ARN (got team-admin)\n"
    )
