"""The ``gpucloud`` command.

``gpucloud plan [STACK] [--dir DIR] [--json] [--policy-config FILE] [--no-policy] [--graph FILE]``
runs a Pulumi Python program offline, checks it with the policy pack and reports.

Exit status: 0 no mandatory violation; 1 at least one mandatory violation; 2 the config or program
is invalid.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path

import policies
from gpucloud.engine import Plan, run_program
from gpucloud.model import PlanError, Violation
from gpucloud.policy import PolicyPack, load_policy_config
from gpucloud.project import STACK_OUTPUTS_FILE, load_project, load_stack, load_stack_outputs
from gpucloud.report import to_dot, to_human, to_json_document

__all__ = ["main"]

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_INVALID = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpucloud", description="Offline plans and policy checks for Pulumi programs."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    plan = commands.add_parser("plan", help="run a program offline, check it with the policy pack, report")
    plan.add_argument("stack", nargs="?", default="dev", help="stack name (default: dev)")
    plan.add_argument("--dir", type=Path, default=Path.cwd(), help="Pulumi project folder (default: .)")
    plan.add_argument("--json", action="store_true", help="print one JSON document instead of the report")
    plan.add_argument("--policy-config", type=Path, help="policy config JSON (as pulumi --policy-pack-config)")
    plan.add_argument("--no-policy", action="store_true", help="do not run the policy pack")
    plan.add_argument("--graph", type=Path, help="also write the resource graph as Graphviz DOT to FILE")
    plan.add_argument(
        "--stack-outputs",
        type=Path,
        help=f"canned outputs of referenced stacks (default: stacks' {STACK_OUTPUTS_FILE})",
    )
    return parser


POLICY_PACK = Path(policies.__file__).resolve().parent
"""The gpu-cloud policy pack (this distribution's ``policies`` folder)."""


def check_policies(pack: PolicyPack, plan: Plan, policy_config: Path | None) -> tuple[Violation, ...]:
    """The policy step: run the policy pack over the recorded resources, as ``pulumi preview`` does."""
    config = load_policy_config(policy_config) if policy_config is not None else None
    report = pack.analyze(plan.resources, config)
    for message in report.messages:
        print(f"policy pack: {message}", file=sys.stderr)
    return report.violations


def _plan(args: argparse.Namespace) -> int:
    project = load_project(args.dir)
    stack = load_stack(project, args.stack)
    # The pack starts first: its interpreter's start-up then overlaps the program run.
    starting = (
        nullcontext(None)
        if args.no_policy
        else PolicyPack.start(POLICY_PACK, project=project.name, stack=stack.name, stack_config=stack.config)
    )
    with starting as pack:
        plan = run_program(project, stack, load_stack_outputs(project, args.stack_outputs))
        violations = () if pack is None else check_policies(pack, plan, args.policy_config)
    if args.graph is not None:
        args.graph.write_text(to_dot(plan), encoding="utf-8")
    if args.json:
        sys.stdout.write(to_json_document(plan, violations, cost={}))
    else:
        sys.stdout.write(to_human(plan, violations, policies_ran=not args.no_policy))
    return EXIT_VIOLATIONS if any(v.level == "mandatory" for v in violations) else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        return _plan(args)
    except PlanError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_INVALID
