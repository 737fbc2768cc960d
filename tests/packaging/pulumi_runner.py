"""Run a Pulumi program as the Pulumi CLI's Python runner does, then the policy pack as ``--policy-pack`` would.

pulumi-language-python-exec (sdk/python/cmd, https://github.com/pulumi/pulumi at v3.259.0, read 2026-12-03) sets
the stack's config, configures the runtime and calls ``runpy.run_path(PROGRAM, run_name="__main__")`` from the
project folder, PROGRAM being the program folder: so that folder comes first on ``sys.path``, before the
installed packages. Here the engine is gpu-cloud's offline one; the pack is the installed one
(``gpucloud policy-path``), run with the interpreter of its own virtualenv. Prints the plan and the verdicts as
JSON. Usage, from the project folder: ``python pulumi_runner.py STACK``.
"""

import json
import runpy
import subprocess
import sys
from pathlib import Path

from gpu_cloud.planner.engine import record
from gpu_cloud.planner.policy import PolicyPack
from gpu_cloud.planner.project import load_project, load_stack

project = load_project(Path.cwd())
stack = load_stack(project, sys.argv[1])
plan = record(
    lambda: runpy.run_path(".", run_name="__main__"),
    project=project.name,
    stack=stack.name,
    config=stack.config,
    secret_keys=stack.secret_keys,
    root=project.root,
)
pack = Path(subprocess.run(["gpucloud", "policy-path"], capture_output=True, text=True, check=True).stdout.strip())
with PolicyPack.start(pack, project=project.name, stack=stack.name, stack_config=stack.config) as running:
    report = running.analyze(plan.resources)
document = {
    "resources": [{"type": r.type, "name": r.name} for r in plan.resources],
    "violations": [{"policy": v.policy, "level": v.level, "name": v.name} for v in report.violations],
    "outputs": plan.outputs,
    "modules": {name: sys.modules[name].__file__ for name in ("components", "policies", "gpu_cloud")},
}
print(json.dumps(document))
