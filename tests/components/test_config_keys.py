"""load_stack_config sees every key of gpu-cloud's namespace, whether the Pulumi CLI passed the config (the
PULUMI_CONFIG environment variable) or a host set it (set_all_config: gpucloud plan, a component provider), so an
unknown key is reported."""

from __future__ import annotations

import json

import pytest

from gpu_cloud.components.spec import StackConfigError, load_stack_config
from gpu_cloud.planner.engine import record


def _problems(config: dict[str, str]) -> list[str]:
    with pytest.raises(StackConfigError) as caught:
        record(load_stack_config, config=config)
    return [str(p) for p in caught.value.problems]


def test_an_unknown_key_set_by_the_host_is_reported() -> None:
    problem = "gpu-cloud:netwrok: extra inputs are not permitted; did you mean network?"
    problem += ' (got {"vpcCidr": "10.0.0.0/16"})'
    assert problem in _problems({"gpu-cloud:netwrok": '{"vpcCidr": "10.0.0.0/16"}'})


def test_an_unknown_key_the_cli_passed_in_the_environment_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PULUMI_CONFIG", json.dumps({"gpu-cloud:regoin": "us-east-1"}))
    assert "gpu-cloud:regoin: extra inputs are not permitted; did you mean region? (got us-east-1)" in _problems({})
