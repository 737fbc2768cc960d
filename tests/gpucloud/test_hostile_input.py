"""``gpucloud plan`` given careless or hostile input: one clear error and exit 2, never a traceback or a hang."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpu_cloud.planner.cli import main
from tests.gpucloud.conftest import MakeProject
from tests.gpucloud.test_cli import PROGRAM

REPO = Path(__file__).resolve().parents[2]


def _invalid(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status = main(["plan", *argv])
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert "Traceback" not in err
    return err


def test_a_config_file_with_a_stray_byte(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(PROGRAM, {"dev": "config:\n  tiny:a: b\n"})
    (root / "Pulumi.dev.yaml").write_bytes(b"config:\n  tiny:a: caf\xe9\n")
    err = _invalid(capsys, "--dir", str(root))
    assert err == f"error: {root}/Pulumi.dev.yaml: not UTF-8 text (byte 0xe9 at offset 21)\n"


def test_a_project_file_in_utf16(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(PROGRAM)
    (root / "Pulumi.yaml").write_bytes("name: tiny\nruntime: python\n".encode("utf-16"))
    err = _invalid(capsys, "--dir", str(root))
    assert err == f"error: {root}/Pulumi.yaml: not UTF-8 text (byte 0xff at offset 0)\n"


@pytest.mark.parametrize("option", ["--policy-config", "--offline-answers", "--prices"])
def test_an_input_file_that_is_not_utf8(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str
) -> None:
    bad = tmp_path / "input.json"
    bad.write_bytes(b'{"x\x80": 1}')
    err = _invalid(capsys, "--dir", str(make_project(PROGRAM)), option, str(bad))
    assert err == f"error: {bad}: not UTF-8 text (byte 0x80 at offset 3)\n"


def test_deeply_nested_yaml(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(PROGRAM, {"dev": "config:\n  tiny:a: " + "[" * 5000 + "]" * 5000 + "\n"})
    err = _invalid(capsys, "--dir", str(root))
    assert err == f"error: {root}/Pulumi.dev.yaml:2:73: not valid YAML: nested deeper than 64 levels\n"


def test_deeply_nested_json_policy_config(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    deep = tmp_path / "policy.json"
    deep.write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    err = _invalid(capsys, "--dir", str(make_project(PROGRAM)), "--policy-config", str(deep))
    assert err == f"error: {deep}: not valid JSON: nested deeper than 64 levels\n"


BOMB = "".join(
    ["config:\n  tiny:a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"]
    + [f"  tiny:a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)]
)


def test_a_yaml_alias_bomb_is_refused_quickly(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(PROGRAM, {"dev": BOMB})
    err = _invalid(capsys, "--dir", str(root))
    assert (
        err
        == f"error: {root}/Pulumi.dev.yaml:1:1: not valid YAML: expands to more than 1000000 nodes (an alias bomb?)\n"
    )


def test_too_many_aliases(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(PROGRAM, {"dev": "config:\n  tiny:a: &x 1\n  tiny:b: [" + ", ".join(["*x"] * 101) + "]\n"})
    assert "not valid YAML: more than 100 aliases" in _invalid(capsys, "--dir", str(root))


def test_a_duplicate_key_is_an_error(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(PROGRAM, {"dev": "config:\n  tiny:a: {x: 1, y: 2, x: 3}\n"})
    err = _invalid(capsys, "--dir", str(root))
    assert err == (
        f"error: {root}/Pulumi.dev.yaml:2:24: not valid YAML: "
        "duplicate key 'x' (a second value would replace the first)\n"
    )


def test_a_key_with_and_without_its_namespace_is_an_error(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(PROGRAM, {"dev": "config:\n  tiny:network: a\n  network: b\n"})
    err = _invalid(capsys, "--dir", str(root))
    assert (
        err == f"error: {root}/Pulumi.dev.yaml: config: 'tiny:network' and 'network' are the same key 'tiny:network'\n"
    )


def test_a_secure_value_that_is_not_ciphertext(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(PROGRAM, {"dev": "config:\n  tiny:db:\n    password: {secure: 42}\n"})
    err = _invalid(capsys, "--dir", str(root))
    assert err == f"error: {root}/Pulumi.dev.yaml: tiny:db.password: a secure value must be ciphertext text (got 42)\n"


def test_a_stack_name_pulumi_would_refuse(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    name = "s" * 300
    err = _invalid(capsys, name, "--dir", str(make_project(PROGRAM, {"dev": "config: {}\n"})))
    assert err == (
        f"error: stack {name[:120]!r}: not a stack name Pulumi accepts (1 to 100 letters, digits, '_', '.', '-')\n"
    )


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_in_the_policy_config(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], tmp_path: Path, constant: str
) -> None:
    config = tmp_path / "policy.json"
    config.write_text('{"gpu-cost-guard": {"maxMonthlyUsd": ' + constant + "}}")
    err = _invalid(capsys, "--dir", str(make_project(PROGRAM)), "--policy-config", str(config))
    assert err == f"error: {config}: not valid JSON: {constant} is not a JSON number\n"


def test_a_policy_config_naming_an_unknown_policy_or_property(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"no-such-policy": "mandatory", "no-public-ip": {"strictness": 3}}))
    err = _invalid(capsys, "--dir", str(make_project(PROGRAM)), "--policy-config", str(config))
    assert err == (
        "error: policy config is invalid:\n"
        "  no-public-ip: (root): Additional properties are not allowed ('strictness' was unexpected)\n"
        "  no-such-policy: not a policy of the pack\n"
    )


@pytest.mark.parametrize("name", ["Pulumi.dev.yaml", "Pulumi.yaml"])
def test_graph_refuses_to_overwrite_the_project_files(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    root = make_project(PROGRAM, {"dev": "config: {}\n"})
    before = (root / name).read_text()
    err = _invalid(capsys, "--dir", str(root), "--graph", str(root / name))
    assert err.startswith(f"error: --graph {root / name}: ") and err.endswith("; refusing to overwrite it\n")
    assert (root / name).read_text() == before


def test_graph_refuses_to_overwrite_a_tracked_file(capsys: pytest.CaptureFixture[str]) -> None:
    target = REPO / "README.md"
    err = _invalid(capsys, "--dir", str(REPO), "--graph", str(target))
    assert err == f"error: --graph {target}: a file tracked by git; refusing to overwrite it\n"


def _gpucloud(*argv: str, **kwargs: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "gpu_cloud.planner", *argv],
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,  # type: ignore[call-overload]
    )


@pytest.mark.parametrize(
    ("stdout", "message"),
    [
        ("closed", "error: cannot write the report: standard output is closed\n"),
        ("/dev/full", "error: cannot write the report to standard output: No space left on device\n"),
    ],
)
def test_stdout_closed_or_full(make_project: MakeProject, stdout: str, message: str) -> None:
    argv = ("plan", "--dir", str(make_project(PROGRAM)), "--no-policy")
    if stdout == "closed":
        # Close fd 1 in the child before it starts, as the shell's ">&-" does.
        process = _gpucloud(*argv, preexec_fn=lambda: os.close(1))
        _, err = process.communicate(timeout=120)
    else:
        with open(stdout, "w") as full:
            process = _gpucloud(*argv, stdout=full)
            _, err = process.communicate(timeout=120)
    assert (process.returncode, err) == (2, message)


def _children(pid: int) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def test_ctrl_c_stops_the_program_and_the_pack(make_project: MakeProject, tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    program = f"""
        import pathlib, time
        pathlib.Path({str(ready)!r}).write_text("running")
        time.sleep(120)
    """
    process = _gpucloud("plan", "--dir", str(make_project(program)), stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    pack = _children(process.pid)
    assert ready.exists() and pack, "the program and the pack are running"
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert (process.returncode, err) == (130, "interrupted\n")
    assert time.monotonic() - started < 10
    assert not [pid for pid in pack if Path(f"/proc/{pid}").exists()]


def test_a_config_larger_than_one_environment_variable_reaches_the_pack(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str]
) -> None:
    tags = "{tags: {environment: dev, owner: me, cost-center: '1'}}"
    config = f"config:\n  aws:defaultTags: {tags}\n  tiny:blob: {'x' * 200_000}\n"
    root = make_project(PROGRAM, {"dev": config})
    status = main(["plan", "--dir", str(root), "--json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    # The pack read aws:defaultTags from the config: no resource lacks the required tags.
    assert [v for v in json.loads(out)["violations"] if v["policy"] == "required-tags"] == []
