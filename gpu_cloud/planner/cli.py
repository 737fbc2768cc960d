"""The ``gpucloud`` command.

``gpucloud plan [STACK] [--dir DIR] [--json] [--policy-config FILE] [--no-policy] [--graph FILE] [--prices FILE]``
runs a Pulumi Python program offline, checks it with the policy pack and reports, with its cost.
``gpucloud cost [STACK] [--dir DIR] [--json] [--prices FILE]`` runs it the same way and reports only the
cost (no policies). ``gpucloud policy-path`` prints the folder of the installed policy pack, for
``pulumi preview --policy-pack``.

Exit statuses: see ``EXIT_CODES`` (printed by ``gpucloud --help``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import textwrap
import threading
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any, NoReturn

import gpu_cloud
import gpu_cloud.policies
from gpu_cloud.planner.cost import estimate
from gpu_cloud.planner.cost_report import cost_lines
from gpu_cloud.planner.engine import Plan, run_program
from gpu_cloud.planner.interpreter import in_project_interpreter
from gpu_cloud.planner.model import PlanError, Violation
from gpu_cloud.planner.offline import ANSWERS_FILE, load_offline_answers
from gpu_cloud.planner.policy import PolicyPack, PolicyPackError, load_policy_config
from gpu_cloud.planner.price_book import PriceBook, load_overrides
from gpu_cloud.planner.project import Project, StackSettings, load_project, load_stack
from gpu_cloud.planner.report import JSON_SCHEMA_VERSION, to_dot, to_human, to_json_document

__all__ = ["main"]

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_INVALID = 2
EXIT_USAGE = 64
"""A command-line usage error (sysexits.h EX_USAGE), told apart from invalid config or program (2)."""
EXIT_INTERRUPTED = 130
"""Interrupted by Ctrl-C (128 + SIGINT, as shells report it)."""

EXIT_CODES = {
    EXIT_OK: "no mandatory policy violation",
    EXIT_VIOLATIONS: "at least one mandatory policy violation",
    EXIT_INVALID: "the config or the program is invalid, or the policy pack failed (the message names the file and"
    " the field or line, or the policy; never a traceback)",
    EXIT_USAGE: "the command line is wrong (unknown option, missing argument)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}
"""Every exit status of ``gpucloud``; any other status is a bug."""

_EPILOG = "\n".join(
    [
        "exit status:",
        *(f"  {code:<4}{meaning}" for code, meaning in EXIT_CODES.items()),
        "",
        "examples:",
        "  gpucloud plan prod                         plan and check stack prod of the project in .",
        "  gpucloud plan dev --dir ../infra --json    one JSON document (schemaVersion, resources, violations, ...)",
        "  gpucloud plan prod --policy-config policy-config.json",
        "  gpucloud cost staging --prices rates.yaml  the monthly cost only, at negotiated rates",
        '  pulumi preview --policy-pack "$(gpucloud policy-path)"',
    ]
)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits with EX_USAGE (64) rather than 2, which means invalid input here."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gpucloud",
        description="Offline plans and policy checks for Pulumi programs.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {gpu_cloud.__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "policy-path",
        help="print the folder of the installed policy pack (for pulumi preview --policy-pack)",
        description=textwrap.dedent(
            """\
            Print the folder of the gpu-cloud policy pack inside this installation, for
            pulumi preview --policy-pack "$(gpucloud policy-path)". The Pulumi CLI installs the pack's
            requirements.txt into a virtualenv in that folder on first use, so the folder must be writable.
            """
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    plan = commands.add_parser("plan", help="run a program offline, check it with the policy pack, report")
    plan.add_argument("stack", nargs="?", default="dev", help="stack name (default: dev)")
    plan.add_argument("--dir", type=Path, default=Path.cwd(), help="Pulumi project folder (default: .)")
    plan.add_argument("--json", action="store_true", help="print one JSON document instead of the report")
    plan.add_argument("--policy-config", type=Path, help="policy config JSON (as pulumi --policy-pack-config)")
    plan.add_argument("--no-policy", action="store_true", help="do not run the policy pack")
    plan.add_argument("--graph", type=Path, help="also write the resource graph as Graphviz DOT to FILE")
    cost = commands.add_parser("cost", help="run a program offline and report only what it costs per month")
    cost.add_argument("stack", nargs="?", default="dev", help="stack name (default: dev)")
    cost.add_argument("--dir", type=Path, default=Path.cwd(), help="Pulumi project folder (default: .)")
    cost.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    for command in (plan, cost):
        command.add_argument("--prices", type=Path, help="price overrides, JSON or YAML (negotiated rates)")
        command.add_argument(
            "--offline-answers",
            type=Path,
            help=f"the backends' stacks and the published cloud parameters the program reads (default: {ANSWERS_FILE}"
            " beside the stack config files)",
        )
    return parser


POLICY_PACK = Path(gpu_cloud.policies.__file__).resolve().parent
"""The gpu-cloud policy pack (``gpu_cloud/policies`` in this distribution)."""


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
    return run_program(project, stack, load_offline_answers(project.config_dir, args.offline_answers))


def _plan(args: argparse.Namespace) -> int:
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
        else PolicyPack.start(POLICY_PACK, project=project.name, stack=stack.name, stack_config=stack.config)
    )
    with starting as pack:
        plan = _run(args, project, stack)
        violations = () if pack is None else check_policies(pack, plan, policy_config)
    cost = estimate(plan, stack.config, book)
    if args.graph is not None:
        try:
            args.graph.write_text(to_dot(plan), encoding="utf-8")
        except OSError as err:
            raise PlanError(f"--graph {args.graph}: cannot write: {err.strerror}") from None
    if args.json:
        _print(to_json_document(plan, violations, cost=cost.to_json()))
    else:
        _print(to_human(plan, violations, policies_ran=not args.no_policy, cost=cost))
    return EXIT_VIOLATIONS if any(v.level == "mandatory" for v in violations) else EXIT_OK


def _cost(args: argparse.Namespace) -> int:
    project, stack, book = _load(args)
    plan = _run(args, project, stack)
    cost = estimate(plan, stack.config, book)
    if args.json:
        document = {
            "schemaVersion": JSON_SCHEMA_VERSION,
            "project": plan.project,
            "stack": plan.stack,
            "cost": cost.to_json(),
        }
        _print(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        _print("\n".join([f"Cost of {plan.project}/{plan.stack}", "", *cost_lines(cost)]) + "\n")
    return EXIT_OK


def _print(text: str) -> None:
    """Write the report to standard output; a closed or full one is an error of the invocation, not a crash."""
    if sys.stdout is None:
        raise PlanError("cannot write the report: standard output is closed")
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as err:
        # What could not be written stays buffered; point the descriptor at /dev/null so that the interpreter's
        # last flush does not fail again (as the Python docs advise for SIGPIPE).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise PlanError(f"cannot write the report to standard output: {err.strerror or err}") from None


_interrupted = threading.Event()


def _interrupt(signum: int, frame: object) -> None:
    # Once: the clean-up on the way out (stopping the policy pack) must not be interrupted in turn.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _interrupted.set()
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (see ``EXIT_CODES``)."""
    _interrupted.clear()
    previous = signal.signal(signal.SIGINT, _interrupt)
    try:
        args = _parser().parse_args(argv)
        if args.command == "policy-path":
            _print(f"{POLICY_PACK}\n")
            return EXIT_OK
        delegated = in_project_interpreter(load_project(args.dir), sys.argv[1:] if argv is None else argv)
        if delegated is not None:
            return delegated
        return _cost(args) if args.command == "cost" else _plan(args)
    except (PlanError, PolicyPackError) as err:
        if _interrupted.is_set():  # what failed on the way out of an interrupted run is no error of the input
            return _report_interrupted()
        print(f"error: {err}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        return _report_interrupted()
    except Exception:
        if _interrupted.is_set():
            return _report_interrupted()
        raise
    finally:
        signal.signal(signal.SIGINT, previous)


def _report_interrupted() -> int:
    print("interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED
