"""gpucloud plan against checkov, the tool a platform team would run instead, on the same resources (issue 29).

    PYTHONPATH=. .venv/bin/python bench/checkov.py                       # prod, 7 pairs
    PYTHONPATH=. .venv/bin/python bench/checkov.py --stack staging --pairs 9

1. ``gpucloud plan STACK --json`` once; its AWS resources become Terraform JSON (`terraform_json`): each pulumi-aws
   type token its Terraform resource type, each camelCase input its snake_case attribute, as the Terraform bridge
   names them, and an input the plan cannot know (``[unknown]``) a reference to the resource it comes from, so that
   checkov's graph checks connect e.g. a bucket with its encryption configuration.
2. checkov is installed into a virtualenv of its own (not a project dependency), by the project's uv from PyPI,
   with its bytecode compiled as pip would; it runs once with ``-o json`` to count the checks it evaluates.
3. Then ``--pairs`` pairs, the order alternating (plan first, checkov first, ...), each a fresh process with
   ``PYTHONDONTWRITEBYTECODE=1`` as in CI: ``gpucloud plan STACK --json`` against
   ``checkov -d DIR --framework terraform_json``. Printed: every pair, the medians of wall and CPU time and of the
   per-pair ratios, and the load average before and after. Nothing is asserted (bench/README.md).

checkov is run with ``--skip-download`` and ``CKV_SKIP_PACKAGE_UPDATE_CHECK`` so that it only reads the folder: it
otherwise asks Prisma Cloud for its guidelines and PyPI for a newer version (checkov/common/bridgecrew/
platform_integration.py ``get_public_run_config``, checkov/common/util/env_vars_config.py; read at 3.3.30).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from run import ROOT, Run, timed

CHECKOV = "3.3.30"
"""checkov's newest release on PyPI (https://pypi.org/project/checkov/, read 2026-12-03)."""

TERRAFORM_TYPES = {
    "aws:ec2/peeringConnectionOptions:PeeringConnectionOptions": "aws_vpc_peering_connection_options",
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider": "aws_iam_openid_connect_provider",
}
"""Type tokens whose Terraform type is not the rule of `terraform_type`: pulumi/pulumi-aws
provider/cmd/pulumi-resource-aws/bridge-metadata.json (``renames.resources``, read 2026-12-03)."""

SINGULAR_BLOCKS = {
    "aws:eks/nodeGroup:NodeGroup": {"taints": "taint"},
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": {"rules": "rule"},
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": {"rules": "rule"},
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider": {
        "clientIdLists": "client_id_list",
        "thumbprintLists": "thumbprint_list",
    },
    "aws:codebuild/project:Project": {"environmentVariables": "environment_variable"},
    "aws:ec2/routeTable:RouteTable": {"routes": "route"},
}
"""Inputs whose Terraform attribute is singular: the Terraform bridge pluralizes the name of a list with more than
one item allowed (pulumi/pulumi-terraform-bridge pkg/tfbridge/names.go ``terraformToPulumiName``: "Pluralize names
that will become array-shaped Pulumi values", read 2026-12-03), so ``taint`` became ``taints``; the reverse is not
mechanical (``subnet_ids`` stayed ``subnetIds``). checkov reads the singular names (e.g. its S3AbortIncompleteUploads
check reads ``rule``)."""

MAPS = frozenset({"tags", "tagsAll", "labels"})
"""Inputs that are maps: their keys are the user's (``Name``, ``kubernetes.io/role/internal-elb``), not attributes."""

UNKNOWN = "[unknown]"
"""How the plan's JSON shows a value only the cloud will know (gpucloud.wire)."""


def terraform_type(token: str) -> str:
    """``aws:ec2/vpc:Vpc`` -> ``aws_vpc``, ``aws:eks/nodeGroup:NodeGroup`` -> ``aws_eks_node_group``: the bridge's
    module/name convention (EC2's own resources have no module prefix), else `TERRAFORM_TYPES`."""
    if token in TERRAFORM_TYPES:
        return TERRAFORM_TYPES[token]
    module, name = token.split(":")[1].split("/")
    return "aws_" + (_snake(name) if module == "ec2" else f"{module}_{_snake(name)}")


def _snake(name: str) -> str:
    """camelCase -> snake_case (pkg/tfbridge/names.go ``PulumiToTerraformName``: an underscore before each capital)."""
    return re.sub(r"([A-Z])", r"_\1", name).lower()


def _attributes(value: Any, renames: Mapping[str, str]) -> Any:
    if isinstance(value, list):
        return [_attributes(item, renames) for item in value]
    if not isinstance(value, dict):
        return value
    return {
        renames.get(key, _snake(key)): item if key in MAPS else _attributes(item, renames)
        for key, item in value.items()
    }


def terraform_json(resources: list[dict[str, Any]]) -> dict[str, Any]:
    """The AWS resources of a plan's JSON document as a Terraform JSON configuration (``resource`` blocks).

    An unknown top-level input that depends on one resource becomes a reference to that resource's ``id``.
    """
    addresses = {r["urn"]: f"{terraform_type(r['type'])}.{_identifier(r['name'])}" for r in _aws(resources)}
    blocks: dict[str, dict[str, Any]] = {}
    for resource in _aws(resources):
        inputs = dict(resource["inputs"])
        for key, value in inputs.items():
            sources = [addresses[u] for u in resource["propertyDependencies"].get(key, []) if u in addresses]
            if sources and value == UNKNOWN:
                inputs[key] = "${" + sources[0] + ".id}"
            elif sources and isinstance(value, list) and all(item == UNKNOWN for item in value):
                inputs[key] = ["${" + source + ".id}" for source in sources[: len(value)]]
        address = addresses[resource["urn"]]
        kind, name = address.split(".")
        blocks.setdefault(kind, {})[name] = _attributes(inputs, SINGULAR_BLOCKS.get(resource["type"], {}))
    return {"resource": blocks}


def _aws(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in resources if r["type"].startswith("aws:")]


def _identifier(name: str) -> str:
    """A Terraform block label: letters, digits, ``_`` and ``-``, not starting with a digit."""
    label = re.sub(r"[^A-Za-z0-9_-]", "_", name)
    return label if re.match(r"[A-Za-z_]", label) else f"_{label}"


def checkov_environment(venv: Path) -> Path:
    """``checkov`` of a virtualenv of its own at ``venv``, made now with the project's uv if it is not there."""
    checkov = venv / "bin" / "checkov"
    if not checkov.exists() or _output([str(checkov), "--version"]) != CHECKOV:
        uv = Path(sys.prefix) / "bin" / "uv"
        subprocess.run([str(uv), "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
        subprocess.run(
            [str(uv), "pip", "install", "--quiet", "--compile-bytecode", "--python", str(venv / "bin" / "python"),
             f"checkov=={CHECKOV}"],
            check=True,
        )  # fmt: skip
    return checkov


def _output(args: list[str]) -> str:
    return subprocess.run(args, capture_output=True, text=True, check=False).stdout.strip()


def main() -> None:
    """Plan, convert, count checkov's checks, then time both alternately and print the ratio."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stack", default="prod", help="the AWS stack to plan (default: prod)")
    parser.add_argument("--pairs", type=int, default=7, help="alternating pairs timed (median reported)")
    parser.add_argument(
        "--venv",
        type=Path,
        default=ROOT / ".venv" / "checkov",
        help="checkov's virtualenv (default: .venv/checkov, inside the project's environment, so ignored with it)",
    )
    args = parser.parse_args()

    checkov = checkov_environment(args.venv)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CKV_SKIP_PACKAGE_UPDATE_CHECK": "true"}
    env.pop("PYTHONPATH", None)
    plan_args = [str(Path(sys.prefix) / "bin" / "gpucloud"), "plan", args.stack, "--json"]
    document = json.loads(timed(plan_args, env).stdout)
    with tempfile.TemporaryDirectory() as folder:
        configuration = terraform_json(document["resources"])
        (Path(folder) / "main.tf.json").write_text(json.dumps(configuration, indent=2), encoding="utf-8")
        checkov_args = [str(checkov), "-d", folder, "--framework", "terraform_json", "--skip-download"]
        report = json.loads(timed([*checkov_args, "-o", "json"], env).stdout)
        summary = report["summary"]
        checked = {(c["resource"]) for c in report["results"]["passed_checks"] + report["results"]["failed_checks"]}
        converted = sum(len(block) for block in configuration["resource"].values())
        print(
            f"{args.stack}: {len(document['resources'])} resources planned, {converted} AWS resources as Terraform "
            f"JSON ({len(configuration['resource'])} types)\ncheckov {CHECKOV}: {summary['passed']} passed, "
            f"{summary['failed']} failed, {summary['skipped']} skipped checks = "
            f"{summary['passed'] + summary['failed'] + summary['skipped']} checks over {len(checked)} resources "
            f"(the others have no checkov check)\n"
        )
        load_before = os.getloadavg()
        pairs: list[tuple[Run, Run]] = []
        for i in range(args.pairs):
            if i % 2 == 0:
                planned = timed(plan_args, env)
                checked_run = timed(checkov_args, env)
            else:
                checked_run = timed(checkov_args, env)
                planned = timed(plan_args, env)
            pairs.append((planned, checked_run))
            print(
                f"pair {i + 1} ({'plan first' if i % 2 == 0 else 'checkov first'}): plan {planned.seconds:.2f} s "
                f"(CPU {planned.cpu_seconds:.2f} s), checkov {checked_run.seconds:.2f} s (CPU "
                f"{checked_run.cpu_seconds:.2f} s), ratio {planned.seconds / checked_run.seconds:.2f}",
                flush=True,
            )
    load_after = os.getloadavg()
    print_summary(pairs, load_before, load_after)


def print_summary(pairs: list[tuple[Run, Run]], before: tuple[float, ...], after: tuple[float, ...]) -> None:
    """Medians of the pairs and the ratio the target is read from (median of the per-pair wall-time ratios)."""

    def median(values: list[float]) -> float:
        return statistics.median(values)

    plan_wall = median([p.seconds for p, _ in pairs])
    checkov_wall = median([c.seconds for _, c in pairs])
    plan_cpu = median([p.cpu_seconds for p, _ in pairs])
    checkov_cpu = median([c.cpu_seconds for _, c in pairs])
    print(
        f"\nmedian of {len(pairs)} pairs: plan {plan_wall:.2f} s wall / {plan_cpu:.2f} s CPU, checkov "
        f"{checkov_wall:.2f} s wall / {checkov_cpu:.2f} s CPU\n"
        f"plan / checkov: {median([p.seconds / c.seconds for p, c in pairs]):.2f} (median of the pairs' wall-time "
        f"ratios; CPU {median([p.cpu_seconds / c.cpu_seconds for p, c in pairs]):.2f}); target <= 1.0\n"
        f"load average (1, 5, 15 min) before {', '.join(f'{x:.1f}' for x in before)}, after "
        f"{', '.join(f'{x:.1f}' for x in after)} on {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
