"""Run a Pulumi Python program offline and record every resource the engine would receive.

The program runs in this process under the Pulumi SDK's own mock monitor, as a preview: a resource's
outputs are its inputs, and whatever only the cloud can compute (ids, ARNs) is unknown, exactly as in
``pulumi preview`` of a new stack. Data-source calls get the canned answers of :mod:`gpucloud.canned`; stack
references and the cloud parameters an account's bootstrap publishes are answered by :mod:`gpucloud.offline`, as the
backend and the account hold them, and refused where they would fail under the Pulumi CLI.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import runpy
import sys
import traceback
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime import mocks, settings
from pulumi.runtime import resource as sdk_resource
from pulumi.runtime.config import set_all_config
from pulumi.runtime.proto import engine_pb2, resource_pb2, source_pb2
from pulumi.runtime.stack import run_in_stack

from gpu_cloud.planner import canned
from gpu_cloud.planner.model import PlanError, RecordedResource
from gpu_cloud.planner.offline import ORGANIZATION, OfflineAnswers, config_field, parameter_answer, parameter_read
from gpu_cloud.planner.order import ordered
from gpu_cloud.planner.project import Project, StackSettings
from gpu_cloud.planner.transforms import StackTransforms
from gpu_cloud.planner.wire import struct_to_json

__all__ = ["Plan", "close_loop", "record", "run_program"]

_DEFAULT_REGIONS = {"aws": "us-east-1", "alicloud": "cn-hangzhou"}
"""Region of a data-source call when neither the call, its provider nor the config names one."""


@dataclass(frozen=True)
class Plan:
    """What a program would do, as recorded by the offline engine.

    Attributes:
        project: The project name.
        stack: The stack name.
        resources: Every registered resource in tree order (gpucloud.order), the stack resource first.
        outputs: The stack outputs as plain JSON (secrets and unknowns shown as placeholders).
        warnings: Things the plan could not model faithfully (e.g. a data source without a canned answer).
        canned_answers: The data sources (invoke tokens) that got a canned answer instead of the cloud's, sorted.
    """

    project: str
    stack: str
    resources: tuple[RecordedResource, ...]
    outputs: dict[str, Any]
    warnings: tuple[str, ...] = field(default=())
    canned_answers: tuple[str, ...] = field(default=())


class _Mocks(mocks.Mocks):
    """Resource and data-source answers of a preview."""

    def __init__(
        self, config: Mapping[str, str], recorder: _RecordingMonitor, answers: OfflineAnswers, running: str
    ) -> None:
        self._config = config
        self._recorder = recorder
        self._answers = answers
        self._running = running
        self.warnings: list[str] = []
        self.canned: set[str] = set()
        self.refusals: list[str] = []
        """Reads from outside the program that fail under the Pulumi CLI (the plan fails naming them)."""

    def new_resource(self, args: mocks.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        if args.typ == "pulumi:pulumi:StackReference":
            return self._stack_reference(str(args.inputs.get("name", args.name)))
        # As in a preview of a new stack: outputs echo the inputs; computed values stay unknown.
        return "", dict(args.inputs)

    def _stack_reference(self, name: str) -> tuple[str, dict[str, Any]]:
        """A stack reference reads the outputs of the stack it names in the running stack's backend; any other
        reference is refused (its outputs stay unknown so that the program runs on and reports all it has)."""
        outputs = self._answers.resolve(self._running, name)
        if isinstance(outputs, str):
            self._refuse(f"stack reference {name!r}", name, outputs)
            return name, {"name": name}
        return name, {"name": name, "outputs": dict(outputs), "secretOutputNames": []}

    def _refuse(self, what: str, value: str, reason: str) -> None:
        field = config_field(self._config, value)
        refusal = f"{field}: {what}: {reason}" if field else f"{what}: {reason}"
        if refusal not in self.refusals:
            self.refusals.append(refusal)

    def _warn(self, warning: str) -> None:
        if warning not in self.warnings:
            self.warnings.append(warning)

    def call(self, args: mocks.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        package = args.token.split(":", 1)[0]
        region = str(
            args.args.get("region")
            or self._recorder.provider_region(args.provider)
            or self._config.get(f"{package}:region")
            or _DEFAULT_REGIONS.get(package, "")
        )
        parameter = parameter_read(args.token, args.args)
        if parameter is not None:
            return self._parameter(args.token, region, *parameter), []
        result = canned.answer(args.token, args.args, region)
        if result is None:
            self._warn(f"data source {args.token} has no canned answer; the plan used an empty result")
            return {}, []
        self.canned.add(args.token)
        return result, []

    def _parameter(self, token: str, region: str, cloud: str, name: str) -> dict[str, Any]:
        """A parameter the account's bootstrap publishes, read in ``region`` (refused where it is not published)."""
        value = self._answers.parameter(cloud, region, name)
        if value is None:
            elsewhere = self._answers.regions_with(cloud, name)
            where = f"published only in {', '.join(elsewhere)}" if elsewhere else f"not in {self._answers.source}"
            self._refuse(f"data source {token} of {name!r} in {region}", name, f"no such parameter there ({where})")
            return {}
        return parameter_answer(token, name, region, value)


class _RecordingMonitor(mocks.MockMonitor):
    """The SDK's mock monitor, also keeping every RegisterResource request whole."""

    def __init__(self, project: str, stack: str) -> None:
        super().__init__(None)  # type: ignore[arg-type]
        self._project = project
        self._stack = stack
        self.recorded: list[RecordedResource] = []
        self._by_urn: dict[str, RecordedResource] = {}
        self.outputs: dict[str, Any] = {}
        self.transforms = StackTransforms()
        self.unsupported: list[str] = []
        """Forms of the program the offline engine cannot apply faithfully; the plan fails naming them."""

    def make_urn(self, parent: str, type_: str, name: str, stack: str = "", project: str = "") -> str:
        # As the Pulumi engine does (resource.NewURN): the parent's whole qualified type chain,
        # except the root stack's, prefixes the type. (The SDK's mock keeps only the last link.)
        if parent:
            qualified = parent.split("::")[2]
            if qualified != "pulumi:pulumi:Stack":
                type_ = f"{qualified}${type_}"
        return f"urn:pulumi:{stack or self._stack}::{project or self._project}::{type_}::{name}"

    def alias_urn(self, request: Any, alias: Any) -> str:
        """The URN an alias of ``request`` names, as the engine collapses it (pulumi/pulumi
        pkg/resource/deploy/step_generator.go ``collapseAliasToUrn``, read 2026-12-03): a spec's unset name, type,
        parent, project and stack are the resource's own; ``noParent`` (``Alias(parent=ROOT_STACK_RESOURCE)``) or the
        root stack as parent means none. Without old state, a parent that was itself found by an alias keeps its
        new URN here (the engine substitutes the old one); the engine also adds the aliases a child inherits from
        such a parent, which need old state (``tests/stacks/test_moved_urns.py`` computes both)."""
        if alias.urn:
            return str(alias.urn)
        spec = alias.spec
        parent = "" if spec.noParent else (spec.parentUrn or request.parent)
        return self.make_urn(parent, spec.type or request.type, spec.name or request.name, spec.stack, spec.project)

    def provider_region(self, provider_ref: str) -> str | None:
        resource = self._by_urn.get(provider_ref.rsplit("::", 1)[0]) if provider_ref else None
        region = resource.inputs.get("region") if resource else None
        return region if isinstance(region, str) else None

    def RegisterStackTransform(self, request: Any) -> Any:
        self.transforms.register_stack_transform(request)
        return empty_pb2.Empty()

    def RegisterStackInvokeTransform(self, request: Any) -> Any:
        self._unsupported("pulumi.runtime.register_invoke_transform (invoke transforms are not applied offline)")
        return empty_pb2.Empty()

    def _unsupported(self, form: str) -> None:
        if form not in self.unsupported:
            self.unsupported.append(form)

    def RegisterResource(self, request: Any) -> Any:
        urn = self.make_urn(request.parent, request.type, request.name)
        # As the engine does, before anything else: run the transforms that apply (gpucloud.transforms).
        request = self.transforms.apply(request, urn)
        aliases = tuple(self.alias_urn(request, a) for a in request.aliases) + tuple(request.aliasURNs)
        properties = struct_pb2.Struct()
        properties.CopyFrom(request.object)
        recorded = RecordedResource(
            urn=urn,
            type=request.type,
            name=request.name,
            custom=bool(request.custom),
            parent=request.parent,
            provider=request.provider,
            dependencies=tuple(request.dependencies),
            property_dependencies={key: tuple(deps.urns) for key, deps in sorted(request.propertyDependencies.items())},
            inputs=struct_to_json(request.object),
            properties=properties,
            protect=bool(request.protect),
            ignore_changes=tuple(request.ignoreChanges),
            retain_on_delete=bool(request.retainOnDelete),
            delete_before_replace=bool(request.deleteBeforeReplace),
            replace_on_changes=tuple(request.replaceOnChanges),
            aliases=aliases,
        )
        self.recorded.append(recorded)
        self._by_urn.setdefault(urn, recorded)
        if request.type == "pulumi:pulumi:Stack":
            return resource_pb2.RegisterResourceResponse(urn=urn)
        if request.type == "pulumi:pulumi:StackReference":
            return super().RegisterResource(request)
        # As in a preview of a new resource (_Mocks.new_resource): the outputs echo the inputs and the id is unknown.
        # The inputs go back as the program sent them: the SDK's mock would decode them and encode them again into
        # the same struct, some 1.5 ms a resource (bench/README.md).
        return resource_pb2.RegisterResourceResponse(urn=urn, id="", object=request.object)

    def RegisterResourceOutputs(self, request: Any) -> Any:
        if request.urn.split("::")[2] == "pulumi:pulumi:Stack":
            self.outputs = struct_to_json(request.outputs)
        return super().RegisterResourceOutputs(request)


class _RecordingEngine:
    """Collects what the program logs; errors fail the plan as they fail ``pulumi preview``."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def Log(self, request: Any) -> None:
        if request.severity == engine_pb2.ERROR:
            self.errors.append(request.message)
        elif request.severity == engine_pb2.WARNING:
            self.warnings.append(request.message)


def run_program(project: Project, stack: StackSettings, answers: OfflineAnswers | None = None) -> Plan:
    """Run ``project``'s program for ``stack`` offline and return what it would register.

    Raises:
        PlanError: the program failed (its message and file:line), imports a missing package, or its
            config is invalid (every problem, naming the stack's config file).
    """
    program = str(project.program)
    with _program_environment(project):
        try:
            return record(
                lambda: _run_path(program),
                project=project.name,
                stack=stack.name,
                config=stack.config,
                secret_keys=stack.secret_keys,
                root=project.root,
                answers=answers,
            )
        except PlanError:
            raise
        except (Exception, SystemExit) as err:  # any failure of the user's program is reported
            config_error = _config_error(err)
            if config_error is not None and stack.file is not None:
                where = os.path.relpath(stack.file, Path.cwd())
                raise PlanError(f"invalid config in {where}:\n  " + str(config_error).replace("\n", "\n  ")) from None
            raise PlanError(_describe_failure(err, project)) from None


def record(
    program: Callable[[], None],
    *,
    project: str = "test",
    stack: str = "test",
    config: Mapping[str, str] | None = None,
    secret_keys: Iterable[str] = (),
    root: Path | None = None,
    answers: OfflineAnswers | None = None,
) -> Plan:
    """Run ``program`` (a function that declares resources) as a preview and record what it registers.

    This is the engine of ``gpucloud plan`` and the recording mock of the component tests. Exceptions
    of the program propagate unchanged; errors it logs, and reads from outside the program that ``answers`` (the
    backends' stacks and the published cloud parameters; none by default) cannot answer, raise PlanError.
    """
    # A fresh context per run: the SDK keeps its settings and root stack in context variables.
    return contextvars.Context().run(
        _record,
        program,
        project,
        stack,
        dict(config or {}),
        list(secret_keys),
        root,
        answers or OfflineAnswers(source="no offline answers"),
    )


def _record(
    program: Callable[[], None],
    project: str,
    stack: str,
    config: dict[str, str],
    secret_keys: list[str],
    root: Path | None,
    answers: OfflineAnswers,
) -> Plan:
    # Each run gets an event loop of its own: what a failed program leaves pending (registrations after its first
    # error) is cancelled with it and can never run, or fail, in the next run in this process.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    monitor = _RecordingMonitor(project, stack)
    fake = _Mocks(config, monitor, answers, f"{ORGANIZATION}/{project}/{stack}")
    monitor.mocks = fake
    engine = _RecordingEngine()
    monitor_features = set(monitor.GetDeploymentInfo(None).supportedFeatures)
    settings.configure(
        mocks.MockSettings(
            monitor=monitor,
            monitor_features=monitor_features,
            engine=engine,
            project=project,
            stack=stack,
            dry_run=True,
            organization="organization",
            callbacks=None,
            root_directory=str(root or Path.cwd()),
        )
    )
    # The SDK's set of pending outputs defaults to one set shared by every context: give this run its own.
    settings.SETTINGS.outputs = set()
    set_all_config(config, sorted(secret_keys))
    logging.getLogger("pulumi").setLevel(logging.CRITICAL)
    try:
        with _without_stack_traces():
            loop.run_until_complete(run_in_stack(_settling(program)))
    except (Exception, SystemExit):
        # A program that read what the deployment would not give it fails on the value it got instead: the refused
        # read is the cause to report (under the Pulumi CLI the read itself fails).
        if fake.refusals:
            raise _refused(fake.refusals) from None
        raise
    finally:
        monitor.transforms.close()
        close_loop(loop)
    if monitor.unsupported:
        raise PlanError(
            "the program uses what gpucloud plan cannot apply faithfully: " + "; ".join(monitor.unsupported)
        )
    if fake.refusals:
        raise _refused(fake.refusals)
    if engine.errors:
        raise PlanError("the program logged an error:\n" + "\n".join(engine.errors))
    return Plan(
        project=project,
        stack=stack,
        resources=tuple(ordered(monitor.recorded)),
        outputs=monitor.outputs,
        warnings=tuple(fake.warnings + engine.warnings),
        canned_answers=tuple(sorted(fake.canned)),
    )


def _settling(program: Callable[[], None]) -> Callable[[], Awaitable[None]]:
    """``program``, then a wait until every output it made has resolved (`_settle`)."""

    def run() -> Awaitable[None]:
        program()
        return _settle()

    return run


async def _settle() -> None:
    """Wait for the program's pending outputs all at once, until none is left or one has failed.

    After the program, the SDK's ``wait_for_rpcs`` waits for the pending outputs (``SETTINGS.outputs``) with
    ``asyncio.wait(FIRST_COMPLETED)`` over all of them, again after every completion: some 100 rounds over up to
    3,500 outputs in a ``prod`` plan, 160,000 callbacks added and removed (bench/README.md). Waiting here first leaves
    it nothing to wait for. Once an output has failed (or was cancelled) the SDK takes over as before, so it raises
    what it would have.
    """
    while True:
        outputs = list(settings.SETTINGS.outputs)
        pending = [output for output in outputs if not output.done()]
        if not pending or any(_failed(output) for output in outputs):
            return
        await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)


def _failed(task: asyncio.Future[Any]) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)


STACK_TRACE_CAPTURE = "_get_stack_trace"
"""The SDK's function that captures the program's stack for each resource it registers (pulumi/runtime/resource.py,
pulumi 3.272.0): ``traceback.extract_stack`` and a file URI per frame, sent as the request's ``stackTrace`` and
``sourcePosition`` for the engine's diagnostics. The offline engine records neither."""


@contextmanager
def _without_stack_traces() -> Iterator[None]:
    """Registrations carry an empty stack trace, as the SDK sends when it finds no caller: ~4 % of a ``prod`` plan's
    CPU otherwise (bench/README.md). An SDK without that function (another version) is left as it is."""
    capture = getattr(sdk_resource, STACK_TRACE_CAPTURE, None)
    if capture is None:
        yield
        return
    setattr(sdk_resource, STACK_TRACE_CAPTURE, source_pb2.StackTrace)
    try:
        yield
    finally:
        setattr(sdk_resource, STACK_TRACE_CAPTURE, capture)


def _refused(refusals: list[str]) -> PlanError:
    return PlanError("the program reads what the deployment would not give it:\n  " + "\n  ".join(refusals))


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is still pending on ``loop`` (and what that cancellation starts), then close it. Errors of what
    was left over are not printed when their futures go away: the run reported its first error already."""
    loop.set_exception_handler(lambda _loop, _context: None)
    for _ in range(10):
        pending = asyncio.all_tasks(loop)
        if not pending:
            break
        for task in pending:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())
    asyncio.set_event_loop(None)
    loop.close()


def _run_path(program: str) -> None:
    runpy.run_path(program, run_name="__main__")


@contextmanager
def _program_environment(project: Project) -> Iterator[None]:
    """Run as the Pulumi CLI runs a Python program: from the project folder, its program folder on the path.

    Modules the program imports from its own folder are forgotten afterwards, so that the next run in
    this process imports its own.
    """
    cwd = Path.cwd()
    old_path = list(sys.path)
    old_modules = set(sys.modules)
    program_dir = str(project.program.parent)
    sys.path.insert(0, program_dir)
    os.chdir(project.root)
    try:
        yield
    finally:
        os.chdir(cwd)
        sys.path[:] = old_path
        for name in set(sys.modules) - old_modules:
            module_file = getattr(sys.modules[name], "__file__", None) or ""
            if module_file.startswith(program_dir):
                del sys.modules[name]


def _config_error(err: BaseException) -> BaseException | None:
    """The stack config error (components.spec.StackConfigError: its problems name config keys) ``err`` is or was
    caused by: the SDK re-raises an error of an apply whose output feeds a resource input as a ValueError ``from``
    it. Any other ConfigError comes from arguments given in code: a program error, not invalid config."""
    spec = sys.modules.get("gpu_cloud.components.spec")  # loaded if the program raised one of its errors
    cause: BaseException | None = err
    while spec is not None and cause is not None:
        if isinstance(cause, spec.StackConfigError):
            found: BaseException = cause
            return found
        cause = cause.__cause__
    return None


def _describe_failure(err: BaseException, project: Project) -> str:
    """The program's own file:line and the message, without a traceback.

    The line is the last one of the program's own files in the traceback: not of gpu-cloud nor of any other
    installed package, so that an error a component raises for its arguments points at the call that gave them.
    A message of several lines (a ConfigError's problems) continues on indented lines.
    """
    frames = traceback.extract_tb(err.__traceback__)
    root = str(project.root)
    own = [f for f in frames if f.filename.startswith(root) and not _is_library(f.filename)]
    frame = own[-1] if own else (frames[-1] if frames else None)
    where = ""
    if frame is not None:
        filename = os.path.relpath(frame.filename, project.root) if frame.filename.startswith(root) else frame.filename
        where = f"{filename}:{frame.lineno}: "
    if isinstance(err, ModuleNotFoundError):
        if str(err) != f"No module named {err.name!r}":  # a message of its own, e.g. naming the extra to install
            return f"{where}{err}"
        return f"{where}the program imports {err.name!r}, which is not installed"
    if isinstance(err, SystemExit):
        return f"{where}the program exited with status {err.code}"
    message = str(err).strip().replace("\n", "\n  ") or type(err).__name__
    return f"{where}{type(err).__name__}: {message}"


_LIBRARY = str(Path(__file__).resolve().parents[1])
"""The folder of the gpu_cloud package (in a checkout, inside a project that is the repository itself)."""


def _is_library(filename: str) -> bool:
    return "site-packages" in filename or filename.startswith(_LIBRARY + os.sep)
