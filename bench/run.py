"""Benchmarks of gpucloud plan: floor, plan per environment, scale, policy throughput.

Run from the repository root with the project's virtual environment:

    .venv/bin/python bench/run.py                 # everything
    .venv/bin/python bench/run.py --sizes 10 100  # a quicker scale run
    .venv/bin/python bench/run.py --repeat 5      # more repetitions (the median is reported)

Every figure is measured in a fresh child process (wall time with time.perf_counter around the child,
peak memory as the child's maximum resident set size from os.wait4). Results are printed, never
asserted: see bench/README.md for how to read them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STACKS = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


@dataclass(frozen=True)
class Run:
    """One child process: wall seconds, peak RSS in MiB, and what it printed on stdout."""

    seconds: float
    peak_mib: float
    stdout: str


def _measure(args: list[str], repeat: int, cwd: Path = ROOT) -> Run:
    """The median wall time over ``repeat`` runs; peak memory is the largest seen."""
    runs = [_timed(args, cwd) for _ in range(repeat)]
    return Run(statistics.median(r.seconds for r in runs), max(r.peak_mib for r in runs), runs[-1].stdout)


def _timed(args: list[str], cwd: Path) -> Run:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    process = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stderr is not None
    stdout = process.stdout.read()
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    process.returncode = code
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed ({code}):\n{stderr[-2000:]}")
    return Run(seconds, usage.ru_maxrss / 1024, stdout)


def sdk_modules(resource_types: list[str]) -> list[str]:
    """The SDK modules that declare ``resource_types`` (``aws:ec2/vpc:Vpc`` -> ``pulumi_aws.ec2``)."""
    packages = {"aws": "pulumi_aws", "alicloud": "pulumi_alicloud", "kubernetes": "pulumi_kubernetes"}
    modules = {"pulumi", "pulumi_policy"}
    for token in resource_types:
        package, module, name = token.split(":", 2)
        if package == "pulumi" and module == "providers" and name in packages:
            modules.add(packages[name])
        elif package == "kubernetes":
            group, _, version = module.rpartition("/")
            candidate = f"pulumi_kubernetes.{group.split('.')[0]}.{version}" if group else ""
            # Custom resources (e.g. monitoring.coreos.com/v1) come from pulumi_kubernetes.apiextensions.
            modules.add(candidate if candidate and _exists(candidate) else "pulumi_kubernetes.apiextensions")
        elif package in packages:
            submodule = module.split("/")[0]
            modules.add(packages[package] if submodule == "index" else f"{packages[package]}.{submodule}")
    return sorted(modules)


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def floor(modules: list[str], repeat: int) -> Run:
    """A bare interpreter that only imports the SDK modules: nothing can plan faster."""
    return _measure([sys.executable, "-c", "import " + ", ".join(modules)], repeat)


def plan(stack: str, repeat: int) -> Run:
    """``gpucloud plan <stack> --json``, policies included."""
    return _measure([sys.executable, "-m", "gpucloud", "plan", stack, "--json"], repeat)


SYNTHETIC = """
import json
import pulumi
import pulumi_aws as aws

N = {n}
assume = json.dumps({{"Version": "2012-10-17", "Statement": [{{"Effect": "Allow", "Action": "sts:AssumeRole",
    "Principal": {{"Service": "ec2.amazonaws.com"}}}}]}})
for i in range(N):
    role = aws.iam.Role(f"pool-{{i}}-node", assume_role_policy=assume)
    aws.iam.RolePolicyAttachment(f"pool-{{i}}-worker", role=role.name,
        policy_arn="arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy")
    template = aws.ec2.LaunchTemplate(
        f"pool-{{i}}-lt",
        metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(http_tokens="required"),
        network_interfaces=[aws.ec2.LaunchTemplateNetworkInterfaceArgs(associate_public_ip_address="false")],
        block_device_mappings=[aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
            device_name="/dev/xvda",
            ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(encrypted="true", volume_size=200, volume_type="gp3"),
        )],
    )
    aws.eks.NodeGroup(
        f"pool-{{i}}",
        cluster_name="bench",
        node_role_arn=role.arn,
        subnet_ids=["subnet-0a", "subnet-0b"],
        instance_types=["g5.xlarge"],
        ami_type="AL2023_x86_64_NVIDIA",
        scaling_config=aws.eks.NodeGroupScalingConfigArgs(min_size=0, desired_size=0, max_size=4),
        launch_template=aws.eks.NodeGroupLaunchTemplateArgs(id=template.id, version=template.latest_version),
        taints=[aws.eks.NodeGroupTaintArgs(key="nvidia.com/gpu", value="true", effect="NO_SCHEDULE")],
        tags={{"environment": "bench", "owner": "bench", "cost-center": "bench"}},
    )
"""

WORKER = """
import json, sys, time
from pathlib import Path
from gpucloud.engine import run_program
from gpucloud.policy import run_policy_pack
from gpucloud.project import load_project, load_stack
start = time.perf_counter()
project = load_project(Path(sys.argv[1]))
plan = run_program(project, load_stack(project, "bench"))
engine = time.perf_counter() - start
start = time.perf_counter()
report = run_policy_pack(Path(sys.argv[2]), plan.resources, project=plan.project, stack=plan.stack)
policy = time.perf_counter() - start
print(json.dumps({"resources": len(plan.resources), "engine": engine, "policy": policy,
                  "violations": len(report.violations)}))
"""


def scale(n: int, repeat: int, workdir: Path) -> tuple[Run, dict[str, float]]:
    """A synthetic program of ``n`` GPU node pools (role, attachment, launch template, tainted node group)."""
    project = workdir / f"synthetic-{n}"
    project.mkdir(exist_ok=True)
    (project / "Pulumi.yaml").write_text("name: synthetic\nruntime: python\n")
    (project / "__main__.py").write_text(textwrap.dedent(SYNTHETIC.format(n=n)))
    run = _measure([sys.executable, "-c", WORKER, str(project), str(ROOT / "policies")], repeat)
    return run, json.loads(run.stdout)


def main() -> None:
    """Run every benchmark and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median reported)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000], help="synthetic pool counts")
    parser.add_argument("--stacks", nargs="+", default=STACKS, help="environments to plan")
    args = parser.parse_args()

    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, median of {args.repeat} runs\n")
    print(
        f"{'environment':<12}{'resources':>10}{'floor s':>9}{'plan s':>9}{'ratio':>7}{'floor MiB':>11}{'plan MiB':>10}"
    )
    for stack in args.stacks:
        planned = plan(stack, args.repeat)
        document = json.loads(planned.stdout)
        modules = sdk_modules(sorted({r["type"] for r in document["resources"]}))
        base = floor(modules, args.repeat)
        print(
            f"{stack:<12}{len(document['resources']):>10}{base.seconds:>9.2f}{planned.seconds:>9.2f}"
            f"{planned.seconds / base.seconds:>7.2f}{base.peak_mib:>11.0f}{planned.peak_mib:>10.0f}"
        )

    print(
        f"\n{'pools':>6}{'resources':>10}{'total s':>9}{'engine s':>9}{'policy s':>9}{'policy %':>9}"
        f"{'res/s':>8}{'policy res/s':>13}{'MiB':>7}{'growth':>8}"
    )
    previous: tuple[int, float] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            run, figures = scale(n, args.repeat, Path(tmp))
            count = figures["resources"]
            growth = f"{run.seconds / previous[1]:.1f}x" if previous else "-"
            print(
                f"{n:>6}{count:>10}{run.seconds:>9.2f}{figures['engine']:>9.2f}{figures['policy']:>9.2f}"
                f"{100 * figures['policy'] / run.seconds:>8.0f}%{count / run.seconds:>8.0f}"
                f"{count / figures['policy']:>13.0f}{run.peak_mib:>7.0f}{growth:>8}"
            )
            previous = (n, run.seconds)


if __name__ == "__main__":
    main()
