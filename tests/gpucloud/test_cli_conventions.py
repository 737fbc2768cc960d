"""``gpucloud``'s command-line conventions: --version, --help with exit codes, usage errors, Ctrl-C, --json."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest

from gpu_cloud.planner.cli import EXIT_CODES, main
from tests.gpucloud.conftest import MakeProject


def test_version_is_the_distribution_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"gpucloud {metadata.version('gpu-cloud')}\n"


def test_help_lists_every_exit_status_and_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    assert sorted(EXIT_CODES) == [0, 1, 2, 64, 130]
    for code, meaning in EXIT_CODES.items():
        assert f"  {code:<4}{meaning}" in out
    assert "examples:" in out
    assert "gpucloud plan prod --policy-config policy-config.json" in out


@pytest.mark.parametrize(
    "argv",
    [[], ["plan", "--no-such-option"], ["plan", "--dir"], ["deploy"], ["cost", "dev", "extra"]],
    ids=["no-command", "unknown-option", "missing-value", "unknown-command", "extra-argument"],
)
def test_a_command_line_usage_error_exits_64_not_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 64
    assert "gpucloud" in capsys.readouterr().err


def test_invalid_input_still_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--dir", str(tmp_path)]) == 2
    assert "not a Pulumi project" in capsys.readouterr().err


def test_ctrl_c_during_the_program_exits_130(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project("raise KeyboardInterrupt\n")
    assert main(["plan", "--dir", str(root)]) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_policy_path_prints_the_installed_pack_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["policy-path"]) == 0
    folder = Path(capsys.readouterr().out.strip())
    assert folder.is_absolute()
    assert {"PulumiPolicy.yaml", "__main__.py", "requirements.txt"} <= {p.name for p in folder.iterdir()}


PROGRAM_WITH_DATA_SOURCES = """
    import pulumi
    import pulumi_aws as aws

    identity = aws.get_caller_identity()
    aws.ec2.get_vpc(default=True)
    pulumi.export("account", identity.account_id)
    pulumi.export("token", pulumi.Output.secret("s3cr3t"))
"""


def test_json_has_schema_version_outputs_warnings_and_canned_answers(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(PROGRAM_WITH_DATA_SOURCES)
    assert main(["plan", "--dir", str(root), "--json", "--no-policy"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["schemaVersion"] == 2
    assert document["outputs"] == {"account": "123456789012", "token": "[secret]"}
    assert document["warnings"] == [
        "data source aws:ec2/getVpc:getVpc has no canned answer; the plan used an empty result"
    ]
    assert document["cannedAnswers"] == ["aws:index/getCallerIdentity:getCallerIdentity"]


def test_cost_json_has_the_schema_version(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost", "--dir", str(make_project("import pulumi\n")), "--json"]) == 0
    assert list(json.loads(capsys.readouterr().out)) == ["schemaVersion", "project", "stack", "cost"]
