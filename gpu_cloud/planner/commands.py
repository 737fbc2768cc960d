"""What ``gpucloud plan`` and ``gpucloud cost`` do once the command line is parsed (``gpucloud.planner.cli``).

This module imports the engine, and with it the Pulumi SDK: the command line imports it only when it runs a plan
in this interpreter, so that ``--help``, ``--version``, ``policy-path`` and a run handed to the project's own
interpreter start no SDK at all.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpu_cloud.planner.cost import estimate
from gpu_cloud.planner.cost_report import cost_lines
from gpu_cloud.planner.engine import Plan, run_program
from gpu_cloud.planner.model import PlanError, Violation
from gpu_cloud.planner.offline import load_offline_answers
from gpu_cloud.planner.policy import PolicyPack, load_policy_config
from gpu_cloud.planner.price_book import PriceBook, load_overrides
from gpu_cloud.planner.project import Project, StackSettings, load_project, load_stack
from gpu_cloud.planner.report import JSON_SCHEMA_VERSION, to_dot, to_human, to_json_document

__all__ = ["Report", "check_policies", "cost", "plan"]


@dataclass(frozen=True)
class Report:
    """What a command prints on standard output, and whether a mandatory policy was violated."""

    text: str
    violated: bool = False


def check_policies(pack: PolicyPack, plan: Plan, config: dict[str, Any] | None) -> tuple[Violation, ...]:
    """The policy step: run the policy pack over the recorded resources, as ``pulumi preview`` does."""
    report = pack.analyze(plan.resources, config)
    for message in report.messages:
        print(f"policy pack: {message}", file=sys.stderr)
    return report.violations


def _load(args: argparse.Namespace) -> tuple[Project, StackSettings, PriceBook]:
    """Read the project, the stack's config and the price file before anything runs, so bad input fails fast."""
    book = PriceBook(None if args.prices is None else load_overrides(args.prices))
    project = load_project(args.dir)
    return project, load_stack(project, args.stack), book


def _run(args: argparse.Namespace, project: Project, stack: StackSettings) -> Plan:
    _progress(f"running {os.path.relpath(project.program, project.root)} for stack {stack.name}")
    recorded = run_program(project, stack, load_offline_answers(project.config_dir, args.offline_answers))
    count = len(recorded.resources)
    _progress(f"the program registered {count} resource{'' if count == 1 else 's'}")
    return recorded


def _progress(step: str) -> None:
    """Say what a plan is doing, on a terminal only: a plan takes seconds, and its output is otherwise one report
    at the end (pipes, files and CI logs get the report alone)."""
    if sys.stderr.isatty():
        print(f"gpucloud: {step}", file=sys.stderr, flush=True)


def plan(args: argparse.Namespace, policy_pack: Path) -> Report:
    """``gpucloud plan``: run the program, check it with ``policy_pack`` (unless ``--no-policy``), report."""
    project, stack, book = _load(args)
    policy_config = load_policy_config(args.policy_config) if args.policy_config is not None else None
    if args.graph is not None and not args.graph.parent.is_dir():
        raise PlanError(f"--graph {args.graph}: no such directory {args.graph.parent}")
    if args.graph is not None and (reason := project.keeps(args.graph)) is not None:
        raise PlanError(f"--graph {args.graph}: {reason}; refusing to overwrite it")
    # The pack starts first: its interpreter's start-up then overlaps the program run.
    starting = (
        nullcontext(None)
        if args.no_policy
        else PolicyPack.start(policy_pack, project=project.name, stack=stack.name, stack_config=stack.config)
    )
    with starting as pack:
        recorded = _run(args, project, stack)
        if pack is not None:
            _progress(f"checking them with the policy pack {policy_pack}")
        violations = () if pack is None else check_policies(pack, recorded, policy_config)
    estimated = estimate(recorded, stack.config, book)
    if args.graph is not None:
        try:
            args.graph.write_text(to_dot(recorded), encoding="utf-8")
        except OSError as err:
            raise PlanError(f"--graph {args.graph}: cannot write: {err.strerror}") from None
    text = (
        to_json_document(recorded, violations, cost=estimated.to_json())
        if args.json
        else to_human(recorded, violations, policies_ran=not args.no_policy, cost=estimated)
    )
    return Report(text, violated=any(v.level == "mandatory" for v in violations))


def cost(args: argparse.Namespace) -> Report:
    """``gpucloud cost``: run the program and report only what it costs per month."""
    project, stack, book = _load(args)
    recorded = _run(args, project, stack)
    estimated = estimate(recorded, stack.config, book)
    if args.json:
        document = {
            "schemaVersion": JSON_SCHEMA_VERSION,
            "project": recorded.project,
            "stack": recorded.stack,
            "cost": estimated.to_json(),
        }
        return Report(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return Report("\n".join([f"Cost of {recorded.project}/{recorded.stack}", "", *cost_lines(estimated)]) + "\n")
