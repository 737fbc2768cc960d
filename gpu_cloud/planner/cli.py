"""The ``gpucloud`` command.

``gpucloud plan [STACK] [--dir DIR] [--json] [--policy-config FILE] [--no-policy] [--graph FILE] [--prices FILE]``
runs a Pulumi Python program offline, checks it with the policy pack and reports, with its cost.
``gpucloud cost [STACK] [--dir DIR] [--json] [--prices FILE]`` runs it the same way and reports only the
cost (no policies). ``gpucloud render STACK job|acceptance NAME`` prints the JobSet a stack declares, for
``kubectl`` (`gpucloud.render`). ``gpucloud policy-path`` prints a writable copy of the installed policy pack, for
``pulumi preview --policy-pack`` (`gpucloud.pack_folder`).

Exit statuses: see ``EXIT_CODES`` (printed by ``gpucloud --help``). With ``--json``, a failure is also reported as
one JSON document on standard output: ``{"schemaVersion", "command", "stack", "error": {"exitStatus", "message"}}``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import signal
import sys
import textwrap
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import gpu_cloud
import gpu_cloud.policies
from gpu_cloud.planner.interpreter import in_project_interpreter
from gpu_cloud.planner.model import JSON_SCHEMA_VERSION, PlanError, PolicyPackError
from gpu_cloud.planner.offline import ANSWERS_FILE
from gpu_cloud.planner.pack_folder import writable_copy
from gpu_cloud.planner.project import load_project

__all__ = ["main", "run"]

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
        "  gpucloud render prod acceptance training-h100 | kubectl create -f -",
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
        help="print a folder holding the installed policy pack (for pulumi preview --policy-pack)",
        description=textwrap.dedent(
            """\
            Print a folder holding this installation's gpu-cloud policy pack, for
            pulumi preview --policy-pack "$(gpucloud policy-path)". The Pulumi CLI installs the pack's
            requirements.txt into a virtualenv in that folder on first use, so the folder is a copy of the
            pack in the user's cache ($XDG_CACHE_HOME/gpu-cloud/policy-packs, else ~/.cache/...), one per
            version and content of the pack: nothing is written into the installation, and an upgrade gets
            a fresh virtualenv.
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
    render = commands.add_parser(
        "render",
        help="print the JobSet of a training job or pool acceptance test, to submit with kubectl",
        description=textwrap.dedent(
            """\
            Print the JobSet a stack declares for a training job or a pool's acceptance test, from the
            same validated config, to submit with kubectl instead of Pulumi:
              gpucloud render prod job NAME --bucket BUCKET | kubectl apply -f -
              gpucloud render prod acceptance POOL | kubectl create -f -
            BUCKET is the stack's checkpointBucket output.
            """
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    render.add_argument("stack", help="stack name")
    render.add_argument("kind", choices=("job", "acceptance"))
    render.add_argument("name", help="the job's name, or the pool of the acceptance test")
    render.add_argument("--bucket", help="the stack's checkpointBucket output (jobs only)")
    render.add_argument("--dir", type=Path, default=Path.cwd(), help="Pulumi project folder (default: .)")
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
    thresholds = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    args: argparse.Namespace | None = None
    try:
        args = _parser().parse_args(argv)
        return _command(args, sys.argv[1:] if argv is None else argv)
    except (PlanError, PolicyPackError) as err:
        if _interrupted.is_set():  # what failed on the way out of an interrupted run is no error of the input
            return _report_interrupted(args)
        return _report_error(args, EXIT_INVALID, str(err))
    except KeyboardInterrupt:
        return _report_interrupted(args)
    except Exception:
        if _interrupted.is_set():
            return _report_interrupted(args)
        raise
    finally:
        gc.set_threshold(*thresholds)
        signal.signal(signal.SIGINT, previous)


def run() -> NoReturn:
    """The ``gpucloud`` command (console script, ``python -m gpu_cloud.planner``): `main`, then the process exits.

    Before it exits, every object left is frozen out of the cycle collector (``gc.freeze``): the interpreter's exit
    collects several times over all of them, and after a plan that is the provider SDKs' hundreds of thousands of
    classes, functions and annotations, some 0.5 s of CPU after the report is written (bench/README.md). The exit
    is otherwise the usual one (streams flushed, ``atexit`` handlers run); `main` called in a process that goes on
    (the tests) freezes nothing. For the same reason the process keeps `GC_THRESHOLDS` to its end: `main` restores
    the thresholds it found, and the default ones would start a full collection at the next allocation (39 ms after
    a ``prod`` plan).
    """
    gc.set_threshold(*GC_THRESHOLDS)
    status = main()
    gc.freeze()
    sys.exit(status)


GC_THRESHOLDS = (200_000, 30, 30)
"""The garbage collector's thresholds while a command runs: a young collection every 200,000 allocations instead of
700. Importing the provider SDKs creates hundreds of thousands of long-lived objects (classes, functions, type
annotations); with the defaults every one of them is traversed again by each of the ~8 full collections a ``prod``
plan triggers, about a quarter of the plan's CPU time (bench/README.md). mypy runs with the same thresholds for the
same reason (mypy/build.py ``build_inner``: "Run gc less frequently, as otherwise we can spend a large fraction of
cpu in gc"). Cyclic garbage is still collected, only less often; the plan's peak memory is unchanged (bench/)."""


def _command(args: argparse.Namespace, argv: Sequence[str]) -> int:
    if args.command == "policy-path":
        _print(f"{writable_copy(POLICY_PACK, gpu_cloud.__version__)}\n")
        return EXIT_OK
    delegated = in_project_interpreter(load_project(args.dir), argv)
    if delegated is not None:
        return delegated
    if args.command == "render":
        from gpu_cloud.planner.render import manifest_text  # the components, not the engine

        _print(manifest_text(args.dir, args.stack, args.kind, args.name, args.bucket))
        return EXIT_OK
    # Only a run in this interpreter loads the engine and the Pulumi SDK (gpucloud.planner.commands).
    from gpu_cloud.planner import commands

    report = commands.cost(args) if args.command == "cost" else commands.plan(args, POLICY_PACK)
    _print(report.text)
    return EXIT_VIOLATIONS if report.violated else EXIT_OK


def _report_error(args: argparse.Namespace | None, status: int, message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    _json_error(args, status, message)
    return status


def _report_interrupted(args: argparse.Namespace | None) -> int:
    print("interrupted", file=sys.stderr)
    _json_error(args, EXIT_INTERRUPTED, "interrupted")
    return EXIT_INTERRUPTED


def _json_error(args: argparse.Namespace | None, status: int, message: str) -> None:
    """With ``--json``, what failed is also one JSON document on standard output: a caller that parses the output
    gets the reason, not an empty stream. Standard error has said it already when standard output is gone."""
    if args is None or not getattr(args, "json", False):
        return
    document = {
        "schemaVersion": JSON_SCHEMA_VERSION,
        "command": args.command,
        "stack": args.stack,
        "error": {"exitStatus": status, "message": message},
    }
    with contextlib.suppress(PlanError):
        _print(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
