"""Vendor Karpenter's reference AWS installation (the getting-started CloudFormation template) at a release tag.

Usage (a git directory of aws/karpenter-provider-aws at hand; nothing else is read):
    python tests/aws/vendor_karpenter_reference.py GIT_DIR TAG
e.g.
    python tests/aws/vendor_karpenter_reference.py /work/.mirror/aws+karpenter-provider-aws/repo v1.14.1

Reads ``website/content/en/docs/getting-started/getting-started-with-karpenter/cloudformation.yaml`` at the tag and
writes ``tests/aws/karpenter-reference-<tag>.json``: the source URL, the tag's commit, the date it was read, the
controller's managed policies (each ``PolicyDocument``, a ``!Sub`` template, kept as its text), the node role's managed
policies, the interruption queue's properties and every EventBridge rule's ``EventPattern``.
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
TEMPLATE = "website/content/en/docs/getting-started/getting-started-with-karpenter/cloudformation.yaml"


class _Loader(yaml.SafeLoader):
    """Reads CloudFormation's short-form intrinsic functions (``!Sub``, ``!Ref``, ``!GetAtt``) as ``{"Fn": value}``."""


for _tag in ("!Sub", "!Ref", "!GetAtt"):
    _Loader.add_constructor(_tag, lambda loader, node, tag=_tag: {tag[1:]: loader.construct_scalar(node)})


def extract(text: str) -> dict[str, Any]:
    """The parts of the template the project compares itself with."""
    resources = yaml.load(text, Loader=_Loader)["Resources"]

    def of_type(kind: str) -> dict[str, Any]:
        return {name: r["Properties"] for name, r in resources.items() if r["Type"] == kind}

    return {
        "controllerPolicies": {
            name: props["PolicyDocument"]["Sub"] for name, props in of_type("AWS::IAM::ManagedPolicy").items()
        },
        "nodeRoleManagedPolicies": [
            arn["Sub"] for arn in resources["KarpenterNodeRole"]["Properties"]["ManagedPolicyArns"]
        ],
        "queue": resources["KarpenterInterruptionQueue"]["Properties"],
        "rules": {name: props["EventPattern"] for name, props in of_type("AWS::Events::Rule").items()},
    }


def vendor(git_dir: str, tag: str) -> Path:
    """Write the vendored reference of ``tag``; return its path."""

    def git(*args: str) -> str:
        return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True, text=True).stdout

    out = {
        "source": f"https://github.com/aws/karpenter-provider-aws/blob/{tag}/{TEMPLATE}",
        "commit": git("rev-list", "-n", "1", tag).strip(),
        "read": datetime.date.today().isoformat(),
        **extract(git("show", f"{tag}:{TEMPLATE}")),
    }
    target = HERE / f"karpenter-reference-{tag}.json"
    target.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return target


if __name__ == "__main__":
    print(vendor(sys.argv[1], sys.argv[2]))
