"""``gpucloud``'s command-line conventions: --version, --help with exit codes, usage errors, Ctrl-C, --json."""

from __future__ import annotations

import gc
import json
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from gpu_cloud.planner import cli
from gpu_cloud.planner.cli import EXIT_CODES, main
from tests.gpucloud.conftest import MakeProject


def test_version_is_the_distribution_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"gpucloud {metadata.version('gpu-cloud')}\n"


def test_the_command_exits_with_mains_status_its_objects_frozen_out_of_the_exits_collections(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli, "main", lambda: 1)
    thresholds = gc.get_threshold()
    try:
        with pytest.raises(SystemExit) as exit_:
            cli.run()
        assert (exit_.value.code, gc.get_freeze_count() > 0, gc.get_threshold()) == (1, True, cli.GC_THRESHOLDS)
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


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


def _policy_path(capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["policy-path"]) == 0
    return Path(capsys.readouterr().out.strip())


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_policy_path_is_a_copy_of_the_pack_in_the_cache_not_in_the_installation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # F13: the CLI creates the pack's virtualenv in the folder it is given; it must not be the installed package.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = _policy_path(capsys)
    assert folder.parent == tmp_path / "cache" / "gpu-cloud" / "policy-packs"
    assert folder.name.startswith(f"{metadata.version('gpu-cloud')}-")
    installed = _files(cli.POLICY_PACK)
    copied = _files(folder)
    assert {"PulumiPolicy.yaml", "__main__.py", "requirements.txt", "gpucloud_rules/sdk.py"} <= set(copied)
    assert copied == {name: data for name, data in installed.items() if name in copied}
    assert not [name for name in copied if name.startswith(("venv/", "scripts/")) or "__pycache__" in name]
    # The CLI's virtualenv in the copy stays for the same pack; a changed pack (an upgrade) gets a folder of its own.
    (folder / "venv").mkdir()
    assert _policy_path(capsys) == folder
    pack = tmp_path / "pack"
    shutil.copytree(cli.POLICY_PACK, pack, ignore=shutil.ignore_patterns("venv", "__pycache__"))
    (pack / "requirements.txt").write_text("pulumi-policy==1.22.0\n")
    monkeypatch.setattr(cli, "POLICY_PACK", pack)
    upgraded = _policy_path(capsys)
    assert upgraded != folder
    assert (upgraded / "requirements.txt").read_text() == "pulumi-policy==1.22.0\n"
    assert not (upgraded / "venv").exists()


def test_policy_path_in_an_unwritable_cache_says_which_folder_and_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cache").write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["policy-path"]) == 2
    err = capsys.readouterr().err
    assert f"cannot copy the policy pack to {tmp_path / 'cache' / 'gpu-cloud' / 'policy-packs'}" in err
    assert "set XDG_CACHE_HOME to a writable folder" in err


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


def test_a_failure_with_json_is_also_a_json_document_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", "prod", "--dir", str(tmp_path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"error: {tmp_path}: not a Pulumi project (no Pulumi.yaml)\n"
    assert json.loads(captured.out) == {
        "schemaVersion": 2,
        "command": "plan",
        "stack": "prod",
        "error": {"exitStatus": 2, "message": f"{tmp_path}: not a Pulumi project (no Pulumi.yaml)"},
    }


def test_ctrl_c_with_json_is_a_json_document_too(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project("raise KeyboardInterrupt\n")
    assert main(["cost", "--dir", str(root), "--json"]) == 130
    document = json.loads(capsys.readouterr().out)
    assert document["error"] == {"exitStatus": 130, "message": "interrupted"}
    assert (document["command"], document["stack"]) == ("cost", "dev")


def test_the_command_line_alone_loads_no_pulumi_sdk() -> None:
    # --help, --version, policy-path and a run handed to the project's interpreter import no SDK (gpucloud.commands).
    code = (
        "import sys; from gpu_cloud.planner import cli; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pulumi', 'grpc') or m.endswith('.engine')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout == "[]\n"


def test_a_plan_on_a_terminal_says_what_it_is_doing(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project("import pulumi\npulumi.ComponentResource('test:index:Group', 'group')\n")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["plan", "--dir", str(root), "--json"]) == 0
    assert capsys.readouterr().err.splitlines() == [
        "gpucloud: running __main__.py for stack dev",
        "gpucloud: the program registered 2 resources",
        f"gpucloud: checking them with the policy pack {cli.POLICY_PACK}",
    ]
