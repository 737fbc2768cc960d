"""Benchmarks of gpucloud plan: floor, plan per environment, scale, policy throughput.

Run from the repository root with the project's virtual environment:

    .venv/bin/python bench/run.py                   # everything
    .venv/bin/python bench/run.py --sizes 10 100    # a quicker scale run
    .venv/bin/python bench/run.py --stacks prod     # one environment
    .venv/bin/python bench/run.py --repeat 5        # more repetitions (the median is reported)
    .venv/bin/python bench/run.py --rounds 9        # more interleaved pack / no-op analyzer rounds
    .venv/bin/python bench/run.py --dir ../other    # another Pulumi project's stacks

Every figure comes from fresh child processes: wall time with time.perf_counter around the child, peak
memory as the child's maximum resident set size from os.wait4 (on Linux the largest process of the
child's tree -- the plan or its policy-pack process -- not their sum). Results are printed, never
asserted: see bench/README.md for how to read them.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).absolute().parent.parent
"""The repository root: gpucloud and the policy pack are imported from here."""

_PACKAGES = {"kubernetes": "pulumi_kubernetes"}
"""Pulumi packages whose Python module is not ``pulumi_<package>``."""

# Targets of issue 9 on a 2-core machine (printed beside the figures, never asserted).
TARGET_FLOOR_RATIO = 2.5
TARGET_POLICY_RATE = 5000
TARGET_GROWTH_100_TO_1000 = 11.0
# Issue 29 (17 asked 0.5): the pack's rate through the protocol as a fraction of the no-op analyzer's, same run.
TARGET_CEILING_FRACTION = 0.7


class ChildFailed(Exception):
    """A measured child process exited with a status other than 0 or 1."""


@dataclass(frozen=True)
class Run:
    """One measured child process: wall seconds, CPU seconds (user + system, the child's and those of the children
    it waited for, e.g. a plan's policy pack), peak RSS in MiB, and what it printed on stdout."""

    seconds: float
    peak_mib: float
    stdout: str
    cpu_seconds: float = 0.0


def measure(args: Sequence[str], repeat: int) -> Run:
    """The median wall time over ``repeat`` runs; peak memory is the largest seen."""
    runs = [timed(args) for _ in range(repeat)]
    return Run(
        statistics.median(r.seconds for r in runs),
        max(r.peak_mib for r in runs),
        runs[-1].stdout,
        statistics.median(r.cpu_seconds for r in runs),
    )


def timed(args: Sequence[str], env: dict[str, str] | None = None, ok: Sequence[int] = (0, 1)) -> Run:
    """Run ``args`` once from the repository root (``PYTHONPATH`` set to it unless ``env`` is given).

    Raises:
        ChildFailed: the exit status is not in ``ok`` (a plan exits 1 for a mandatory violation: still complete).
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            args, cwd=ROOT, env=env or dict(os.environ, PYTHONPATH=str(ROOT)), stdout=out, stderr=err, text=True
        )
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if code not in ok:
            lines = [line for line in err.read().splitlines() if line.strip()]
            raise ChildFailed(f"exit status {code}: {' / '.join(lines[-3:]) or 'no output'}")
        return Run(seconds, usage.ru_maxrss / 1024, out.read(), usage.ru_utime + usage.ru_stime)


def sdk_modules(resource_types: Sequence[str]) -> list[str]:
    """The modules a bare interpreter must import to know ``resource_types``.

    ``pulumi`` and ``pulumi_policy`` always; for ``aws:ec2/vpc:Vpc`` ``pulumi_aws.ec2``, for
    ``kubernetes:apps/v1:Deployment`` ``pulumi_kubernetes.apps.v1``, for ``pulumi:providers:aws``
    ``pulumi_aws``. Components (``gpucloud:...``) and the stack come from no SDK.
    """
    modules = {"pulumi", "pulumi_policy"}
    for token in resource_types:
        package, module, name = [*token.split(":", 2), "", ""][:3]
        if package == "pulumi" and module == "providers":
            candidates = [_package_module(name)]
        elif package == "kubernetes":
            group, _, version = module.rpartition("/")
            # Custom resources (e.g. monitoring.coreos.com/v1) come from pulumi_kubernetes.apiextensions.
            candidates = [f"pulumi_kubernetes.{group.split('.')[0]}.{version}", "pulumi_kubernetes.apiextensions"]
        else:
            root = _package_module(package)
            submodule = module.split("/")[0]
            candidates = [root if submodule in ("index", "") else f"{root}.{submodule}", root]
        modules.update(next(([c] for c in candidates if _exists(c)), []))
    return sorted(modules)


def _package_module(package: str) -> str:
    return _PACKAGES.get(package, "pulumi_" + package.replace("-", "_"))


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ModuleNotFoundError, ValueError):
        return False


FLOOR = """
import importlib
for name in {modules!r}:
    # Provider SDK modules are lazy (pulumi._utils._LazyModule): an attribute access loads them, as the
    # program's first ``aws.ec2.Vpc(...)`` does.
    getattr(importlib.import_module(name), "__all__", None)
"""


def floor(modules: Sequence[str], repeat: int) -> Run:
    """A bare interpreter that only loads the SDK modules: nothing can plan faster."""
    return measure([sys.executable, "-c", FLOOR.format(modules=list(modules))], repeat)


def plan(project: Path, stack: str, repeat: int, policy: bool = True) -> Run:
    """``gpucloud plan <stack> --json`` of ``project``, with or without the policy pack."""
    args = [sys.executable, "-m", "gpu_cloud.planner", "plan", stack, "--dir", str(project), "--json"]
    return measure(args if policy else [*args, "--no-policy"], repeat)


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

THROUGHPUT = """
import json, sys, time
from pathlib import Path
from gpu_cloud.planner.engine import run_program
from gpu_cloud.planner.policy import run_policy_pack
from gpu_cloud.planner.project import load_project, load_stack

project = load_project(Path(sys.argv[1]))
plan = run_program(project, load_stack(project, "bench"))

def seconds(resources):
    start = time.perf_counter()
    run_policy_pack(Path(sys.argv[2]), resources, project=plan.project, stack=plan.stack)
    return time.perf_counter() - start

empty = min(seconds(()) for _ in range(int(sys.argv[3])))
full = min(seconds(plan.resources) for _ in range(int(sys.argv[3])))
print(json.dumps({"resources": len(plan.resources), "start_stop": empty, "analyze": full - empty}))
"""


NO_OP_ANALYZER = """
import time
from concurrent import futures
import grpc
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc
class NoOp(analyzer_pb2_grpc.AnalyzerServicer):
    def Analyze(self, request, context):
        return analyzer_pb2.AnalyzeResponse()
    AnalyzeStack = Analyze
server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))  # as pulumi_policy.PolicyPack serves
analyzer_pb2_grpc.add_AnalyzerServicer_to_server(NoOp(), server)
print(server.add_insecure_port("127.0.0.1:0"), flush=True)
server.start()
time.sleep(3600)
"""

CEILING = """
import json, subprocess, sys, time
from pathlib import Path
import grpc
from pulumi.runtime.proto import analyzer_pb2_grpc
from gpu_cloud.planner.engine import run_program
from gpu_cloud.planner.policy import _GRPC_OPTIONS, PolicyPack, _Session
from gpu_cloud.planner.project import load_project, load_stack

project = load_project(Path(sys.argv[1]))
plan = run_program(project, load_stack(project, "bench"))
resources = list(plan.resources)
chunk = int(sys.argv[5])

def session(port):
    channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=_GRPC_OPTIONS)
    grpc.channel_ready_future(channel).result(timeout=60)
    return channel, _Session(analyzer_pb2_grpc.AnalyzerStub(channel), resources)

def timed(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start

rounds = []
for i in range(int(sys.argv[4])):
    # A fresh pack and a fresh no-op server each round, both up at once; the same client calls go to one, then
    # the other, a chunk of resources at a time, the order alternating (AB BA AB ...), then AnalyzeStack to each:
    # a change of load falls on both within seconds.
    server = subprocess.Popen([sys.executable, "-c", sys.argv[3]], stdout=subprocess.PIPE, text=True)
    with PolicyPack.start(Path(sys.argv[2]), project=plan.project, stack=plan.stack) as started:
        pack_channel, pack = session(started._process.wait_for_port())
        pack.start(started._engine_address, started._pack_dir, started._target, {})
        noop_channel, noop = session(int(server.stdout.readline()))
        seconds = {"pack": 0.0, "ceiling": 0.0}
        for n, first in enumerate(range(0, len(resources), chunk)):
            part = resources[first : first + chunk]
            order = (("pack", pack), ("ceiling", noop)) if n % 2 == 0 else (("ceiling", noop), ("pack", pack))
            for name, client in order:
                seconds[name] += timed(lambda: client.analyze_each(part))
        for name, client in (("pack", pack), ("ceiling", noop)) if i % 2 == 0 else (("ceiling", noop), ("pack", pack)):
            seconds[name] += timed(client.analyze_stack)
        pack_channel.close()
        noop_channel.close()
    server.kill()
    server.wait()
    rounds.append(seconds)
print(json.dumps({"resources": len(resources), "rounds": rounds}))
"""


@dataclass(frozen=True)
class Ceiling:
    """The pack against the protocol ceiling, interleaved: per round, resources per second of each.

    Attributes:
        pack: The pack's rate in each round.
        ceiling: The no-op analyzer's rate in each round (the same client, the same resources).
    """

    pack: list[float]
    ceiling: list[float]

    @property
    def ratios(self) -> list[float]:
        """The pack's rate as a fraction of the ceiling, per round."""
        return [p / c for p, c in zip(self.pack, self.ceiling, strict=True)]


CHUNK = 250
"""Resources sent to the pack, then to the no-op analyzer (or the other way round), before switching again."""


def ceiling(project: Path, rounds: int) -> Ceiling:
    """``rounds`` runs of the pack and of a no-op analyzer served as pulumi-policy serves, interleaved by chunks."""
    run = measure(
        [
            sys.executable,
            "-c",
            CEILING,
            str(project),
            str(ROOT / "gpu_cloud" / "policies"),
            NO_OP_ANALYZER,
            str(rounds),
            str(CHUNK),
        ],
        1,
    )
    figures = json.loads(run.stdout)
    count = figures["resources"]
    return Ceiling([count / r["pack"] for r in figures["rounds"]], [count / r["ceiling"] for r in figures["rounds"]])


def synthetic_project(n: int, workdir: Path) -> Path:
    """A Pulumi project of ``n`` GPU node pools (role, policy attachment, launch template, tainted node group)."""
    project = workdir / f"synthetic-{n}"
    project.mkdir(exist_ok=True)
    (project / "Pulumi.yaml").write_text("name: synthetic\nruntime: python\n")
    (project / "__main__.py").write_text(textwrap.dedent(SYNTHETIC.format(n=n)))
    return project


def throughput(project: Path, repeat: int) -> dict[str, float]:
    """Analyze rate through the protocol: the pack's run over every resource minus its run over none (best of each)."""
    run = measure(
        [sys.executable, "-c", THROUGHPUT, str(project), str(ROOT / "gpu_cloud" / "policies"), str(repeat)], 1
    )
    figures: dict[str, float] = json.loads(run.stdout)
    return figures


def _ratio(value: float, previous: float | None) -> str:
    return f"{value / previous:.1f}x" if previous else "-"


def environments(project: Path, stacks: Sequence[str], repeat: int) -> dict[str, float]:
    """Print the floor and plan table; returns stack -> plan/floor ratio."""
    print(
        f"{'environment':<12}{'resources':>10}{'floor s':>9}{'plan s':>9}{'ratio':>7}"
        f"{'no-policy s':>12}{'policy %':>9}{'floor MiB':>11}{'plan MiB':>10}"
    )
    floors: dict[tuple[str, ...], Run] = {}
    ratios: dict[str, float] = {}
    for stack in stacks:
        try:
            planned = plan(project, stack, repeat)
            bare = plan(project, stack, repeat, policy=False)
        except ChildFailed as failure:
            print(f"{stack:<12}  plan failed, {failure}")
            continue
        document = json.loads(planned.stdout)
        modules = tuple(sdk_modules(sorted({r["type"] for r in document["resources"]})))
        base = floors.get(modules) or floors.setdefault(modules, floor(modules, repeat))
        ratios[stack] = planned.seconds / base.seconds
        print(
            f"{stack:<12}{len(document['resources']):>10}{base.seconds:>9.2f}{planned.seconds:>9.2f}"
            f"{ratios[stack]:>7.2f}{bare.seconds:>12.2f}{_share(planned.seconds, bare.seconds):>8.0f}%"
            f"{base.peak_mib:>11.0f}{planned.peak_mib:>10.0f}"
        )
    return ratios


def _share(with_policy: float, without: float) -> float:
    return max(0.0, 100 * (with_policy - without) / with_policy)


def scale(sizes: Sequence[int], repeat: int, rounds: int) -> tuple[dict[int, float], dict[int, float], Ceiling | None]:
    """Print the scale table; returns pools -> plan seconds, pools -> policy resources per second, and the
    pack against the protocol ceiling over the largest program (None if unmeasured)."""
    print(
        f"{'pools':>6}{'resources':>10}{'plan s':>8}{'MiB':>6}{'res/s':>7}{'growth':>8}{'MiB growth':>11}"
        f"{'no-policy s':>12}{'policy %':>9}{'pack start s':>13}{'policy res/s':>13}"
    )
    times: dict[int, float] = {}
    rates: dict[int, float] = {}
    previous: Run | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            project = synthetic_project(n, Path(tmp))
            try:
                planned = plan(project, "bench", repeat)
                bare = plan(project, "bench", repeat, policy=False)
                policy = throughput(project, repeat)
            except ChildFailed as failure:
                print(f"{n:>6}  failed, {failure}")
                continue
            count = int(policy["resources"])
            times[n] = planned.seconds
            # Below the noise (a small program on a busy machine) the difference says nothing.
            if policy["analyze"] > 0:
                rates[n] = count / policy["analyze"]
            print(
                f"{n:>6}{count:>10}{planned.seconds:>8.2f}{planned.peak_mib:>6.0f}{count / planned.seconds:>7.0f}"
                f"{_ratio(planned.seconds, previous.seconds if previous else None):>8}"
                f"{_ratio(planned.peak_mib, previous.peak_mib if previous else None):>11}"
                f"{bare.seconds:>12.2f}{_share(planned.seconds, bare.seconds):>8.0f}%"
                f"{policy['start_stop']:>13.2f}{f'{rates[n]:.0f}' if n in rates else '-':>13}"
            )
            previous = planned
        protocol = ceiling(synthetic_project(max(times), Path(tmp)), rounds) if times else None
    if protocol is not None:
        ratios = protocol.ratios
        print(
            f"\nProtocol ceiling ({max(times)} pools, {len(ratios)} rounds, {CHUNK}-resource chunks alternating "
            "with the pack, median): "
            f"{statistics.median(protocol.ceiling):.0f} resources/s to a no-op analyzer served as pulumi-policy serves"
            f"\nPack rate in the same rounds (median): {statistics.median(protocol.pack):.0f} resources/s"
            f"\nPack rate / protocol ceiling: median {statistics.median(ratios):.2f} "
            f"(rounds {', '.join(f'{r:.2f}' for r in ratios)})"
        )
    return times, rates, protocol


def targets(
    ratios: dict[str, float], times: dict[int, float], rates: dict[int, float], protocol: Ceiling | None
) -> None:
    """Print the issues' targets beside what was measured."""
    print("\nTargets (2-core machine):")
    prod = ratios.get("prod")
    print(f"  prod plan within {TARGET_FLOOR_RATIO}x its floor: " + (f"{prod:.2f}x" if prod else "no prod stack"))
    largest = max(rates, default=None)
    print(
        f"  policy checks >= {TARGET_POLICY_RATE}/s: "
        + (f"{rates[largest]:.0f}/s ({largest} pools)" if largest is not None else "not measured")
    )
    print(
        f"  policy checks >= {TARGET_CEILING_FRACTION} of the protocol ceiling: "
        + (
            f"{statistics.median(protocol.ratios):.2f} (median of {len(protocol.ratios)} interleaved rounds, "
            f"{max(times)} pools)"
            if protocol
            else "not measured"
        )
    )
    growth = times[1000] / times[100] if 100 in times and 1000 in times else None
    print(
        f"  growth N=100 -> 1000 <= {TARGET_GROWTH_100_TO_1000}x: " + (f"{growth:.1f}x" if growth else "not measured")
    )


def main() -> None:
    """Run every benchmark and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median reported)")
    parser.add_argument(
        "--rounds", type=int, default=7, help="interleaved pack / no-op analyzer rounds (median ratio reported)"
    )
    parser.add_argument("--sizes", type=int, nargs="*", default=[10, 100, 1000], help="synthetic pool counts")
    parser.add_argument("--stacks", nargs="*", help="environments to plan (default: every stack of the project)")
    parser.add_argument("--dir", type=Path, default=ROOT, help="the Pulumi project to plan (default: this repo)")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    from gpu_cloud.planner.project import load_project

    project = args.dir.absolute()
    stacks = load_project(project).stacks() if args.stacks is None else args.stacks
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in ("pulumi", "pulumi-policy", "grpcio"))
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, {versions}; median of {args.repeat} runs\n")
    ratios = environments(project, stacks, args.repeat) if stacks else {}
    print()
    times, rates, protocol = scale(args.sizes, args.repeat, args.rounds) if args.sizes else ({}, {}, None)
    targets(ratios, times, rates, protocol)


if __name__ == "__main__":
    main()
