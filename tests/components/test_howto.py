"""docs/howto.md's recipes, applied to the dev environment as the page says (each YAML block's keys added to
stacks/Pulumi.dev.yaml, a list keeping the items it had), give a valid config that plans with what each recipe
promises and no mandatory policy violation."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import yaml

from gpu_cloud.planner.cli import POLICY_PACK
from gpu_cloud.planner.engine import run_program
from gpu_cloud.planner.offline import load_offline_answers
from gpu_cloud.planner.policy import load_policy_config, run_policy_pack
from gpu_cloud.planner.project import load_project, load_stack

ROOT = Path(__file__).resolve().parents[2]
HOWTO = ROOT / "docs" / "howto.md"


def _recipes() -> list[dict[str, Any]]:
    blocks = re.findall(r"```yaml\n(.*?)```", HOWTO.read_text(encoding="utf-8"), re.DOTALL)
    return [yaml.safe_load(block) for block in blocks]


def test_the_recipes_plan_on_the_dev_environment() -> None:
    recipes = _recipes()
    assert len(recipes) == 4
    project = load_project(ROOT)
    settings = load_stack(project, "dev")
    config = dict(settings.config)
    for recipe in recipes:
        for key, value in recipe.items():
            had = json.loads(config[key]) if key in config else None
            merged = [*had, *value] if isinstance(had, list) else value
            config[key] = json.dumps(merged)
    plan = run_program(project, dataclasses.replace(settings, config=config), load_offline_answers(project.config_dir))
    names = {(r.type, r.name) for r in plan.resources}
    assert ("gpucloud:aws:GpuNodePool", "dev-inference-l4") in names
    assert ("gpucloud:aws:SpotGpuGroup", "dev-training-spot") in names
    assert ("gpucloud:k8s:InferenceService", "dev-chat") in names
    assert ("gpucloud:k8s:TrainingJob", "dev-bert-finetune") in names
    policy_config = load_policy_config(ROOT / "stacks" / "policy-config.json")  # as make plan gives it
    report = run_policy_pack(
        POLICY_PACK, plan.resources, project=plan.project, stack="dev", stack_config=config, config=policy_config
    )
    assert not [v for v in report.violations if v.level == "mandatory"], report.violations
