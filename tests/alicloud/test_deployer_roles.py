"""prod-cn's deployer roles come from the bootstrap's DEPLOYER_ROLE_ARNS parameter (stacks/references.py
BootstrapFacts.deployer_roles): each is made ACK's admin on the cluster, and a bootstrap that published none refuses
the plan naming the parameter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_cloud.components import bootstrap_facts
from gpu_cloud.planner.cli import main

REPO = Path(__file__).resolve().parents[2]
STACKS = REPO / "stacks"
REGION = "alicloud:cn-hangzhou"
GRANT = "alicloud:cs/kubernetesPermission:KubernetesPermission"


def _project(tmp_path: Path, roles: str | None) -> Path:
    (tmp_path / "Pulumi.yaml").write_text(f"name: gpu-cloud\nmain: {STACKS}\nruntime: python\n")
    (tmp_path / "Pulumi.prod-cn.yaml").write_text((STACKS / "Pulumi.prod-cn.yaml").read_text())
    answers = yaml.safe_load((STACKS / "offline-answers.yaml").read_text())
    published = answers["parameters"][REGION]
    if roles is None:
        del published[bootstrap_facts.DEPLOYER_ROLE_ARNS]
    else:
        published[bootstrap_facts.DEPLOYER_ROLE_ARNS] = roles
    (tmp_path / "offline-answers.yaml").write_text(yaml.safe_dump(answers))
    return tmp_path


def _plan(project: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    status = main(["plan", "prod-cn", "--dir", str(project), "--no-policy", "--json"])
    out, err = capsys.readouterr()
    return status, yaml.safe_load(out), err


def test_the_shipped_answers_publish_the_shared_cn_deployer_role() -> None:
    answers = yaml.safe_load((STACKS / "offline-answers.yaml").read_text())
    bootstrap = yaml.safe_load((REPO / "bootstrap" / "Pulumi.shared-cn.yaml").read_text())
    published = answers["parameters"][REGION][bootstrap_facts.DEPLOYER_ROLE_ARNS]
    assert published.split(",") == bootstrap["config"]["gpu-cloud-bootstrap:deployerRoleArns"]


def test_every_published_deployer_role_is_made_cluster_admin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    roles = "acs:ram::1234567890123456:role/ml-platform-deployer,acs:ram::1234567890123456:role/ci-deployer"
    status, document, err = _plan(_project(tmp_path, roles), capsys)
    assert status == 0, err
    grants = {
        r["name"]: [(p["roleName"], p["roleType"]) for p in r["inputs"]["permissions"]]
        for r in document["resources"]
        if r["type"] == GRANT and "-admins-" in r["name"]
    }
    assert grants == {
        "prod-cn-admins-ml-platform-deployer": [("admin", "cluster")],
        "prod-cn-admins-ci-deployer": [("admin", "cluster")],
    }


def test_a_bootstrap_that_published_no_deployer_roles_refuses_the_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = _plan(_project(tmp_path, None), capsys)
    assert status == 2
    assert f"'{bootstrap_facts.DEPLOYER_ROLE_ARNS}' in cn-hangzhou: no such parameter there" in err
