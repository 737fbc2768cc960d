"""Find a Pulumi project, its program and its stack configuration the way the Pulumi CLI does."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpu_cloud.planner.files import load_yaml
from gpu_cloud.planner.model import PlanError

__all__ = ["Project", "StackSettings", "load_project", "load_stack"]

STACK_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")
"""A stack name Pulumi accepts: pulumi/pulumi ``pkg/backend/filestate/backend.go`` (``validateStackName``,
``stackNameAndProjectRegexp``; read 2026-12-02): letters, digits, ``_``, ``.``, ``-``, at most 100."""

SECRET_PLACEHOLDER = "[secret]"
"""What a ``secure:`` config value reads as in a plan: the real value needs the stack's secrets provider."""


@dataclass(frozen=True)
class Project:
    """A Pulumi project on disk.

    Attributes:
        name: The project name from Pulumi.yaml.
        root: The folder that holds Pulumi.yaml.
        program: The program to run: a ``__main__.py`` file.
        config_dir: Where ``Pulumi.<stack>.yaml`` files live (``stackConfigDir`` or the root).
        defaults: Project-level config defaults, as the SDK sees config (namespaced key -> string).
        virtualenv: The virtual environment the Pulumi CLI would run the program in (absolute; see
            `implied_virtualenv`), or None: the ambient interpreter.
    """

    name: str
    root: Path
    program: Path
    config_dir: Path
    defaults: dict[str, str]
    virtualenv: Path | None = None

    def stacks(self) -> list[str]:
        """The names of the stacks that have a config file, sorted."""
        names = {p.name[len("Pulumi.") : -len(p.suffix)] for p in self._stack_files()}
        return sorted(names)

    def stack_file(self, stack: str) -> Path | None:
        """The config file of ``stack``, or None."""
        for suffix in (".yaml", ".yml"):
            path = self.config_dir / f"Pulumi.{stack}{suffix}"
            if path.is_file():
                return path
        return None

    def keeps(self, path: Path) -> str | None:
        """Why ``path`` is a file of the project that a plan must not overwrite (None when it may write there):
        a stack config file, the project file, or any file the project's git repository tracks."""
        target = path.resolve()
        if target in {p.resolve() for p in self._stack_files()}:
            return "a stack config file"
        if target.parent == self.root and target.name in ("Pulumi.yaml", "Pulumi.yml"):
            return "the project file"
        try:
            tracked = subprocess.run(
                ["git", "-C", str(target.parent), "ls-files", "--error-unmatch", "--", target.name],
                capture_output=True,
                check=False,
            )
        except OSError:
            return None  # no git: nothing is tracked
        return "a file tracked by git" if tracked.returncode == 0 else None

    def _stack_files(self) -> list[Path]:
        return [
            p for p in self.config_dir.glob("Pulumi.*.y*ml") if p.suffix in (".yaml", ".yml") and p.name.count(".") == 2
        ]


@dataclass(frozen=True)
class StackSettings:
    """The configuration of one stack as the SDK receives it.

    Attributes:
        name: The stack name.
        file: The stack's config file, or None when the project has none at all.
        config: Namespaced key -> string value (objects as JSON), as the CLI passes them to the program.
        secret_keys: Keys whose value is a secret (replaced by a placeholder).
    """

    name: str
    file: Path | None
    config: dict[str, str]
    secret_keys: frozenset[str]


def load_project(directory: Path) -> Project:
    """Load the Pulumi project in ``directory`` (which must hold Pulumi.yaml or Pulumi.yml)."""
    if not directory.is_dir():
        raise PlanError(f"{directory}: no such directory")
    project_file = next((directory / n for n in ("Pulumi.yaml", "Pulumi.yml") if (directory / n).is_file()), None)
    if project_file is None:
        raise PlanError(f"{directory}: not a Pulumi project (no Pulumi.yaml)")
    data = load_yaml(project_file)
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise PlanError(f"{project_file}: name: a project needs a name (got {data!r:.60})")
    runtime = data.get("runtime")
    runtime_name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if runtime_name != "python":
        raise PlanError(f"{project_file}: runtime: gpucloud plans Python programs (got {runtime_name!r})")
    root = directory.resolve()
    main = root / str(data.get("main", "."))
    program = main / "__main__.py" if main.is_dir() else main
    if not program.is_file():
        raise PlanError(f"{project_file}: main: no Python program at {program}")
    config_dir = root / str(data.get("stackConfigDir", "."))
    name = data["name"]
    options = runtime.get("options") if isinstance(runtime, dict) else None
    return Project(
        name,
        root,
        program,
        config_dir,
        _project_defaults(name, data.get("config"), project_file),
        implied_virtualenv(root, program.parent, options if isinstance(options, dict) else {}, project_file),
    )


def implied_virtualenv(root: Path, program_dir: Path, options: dict[str, Any], project_file: Path) -> Path | None:
    """The virtualenv the Pulumi CLI runs a Python program in, from ``runtime.options``; None for the ambient one.

    As pulumi/pulumi ``sdk/python/toolchain`` (toolchain.go ``ResolveToolchain``, uv.go ``newUv``; read at
    v3.259.0-14-g1b59498, 2026-12-03):

    - a declared ``virtualenv`` is relative to the project root, whatever the toolchain;
    - the ``uv`` toolchain without one, or no ``toolchain`` when a ``uv.lock`` is in the program's folder or above
      it: ``.venv`` beside the nearest ``uv.lock`` above the program's folder, else beside the nearest
      ``pyproject.toml``, else in the program's folder; ``UV_PROJECT_ENVIRONMENT``, when set, replaces ``.venv``
      (relative to that same folder);
    - ``pip`` (or no toolchain and no ``uv.lock``) without one: no virtualenv;
    - ``poetry``: the virtualenv Poetry manages (``poetry env info``), which this does not ask: no virtualenv.

    Raises:
        PlanError: ``toolchain`` or ``virtualenv`` is not one the language host accepts.
    """
    toolchain = options.get("toolchain")
    if toolchain is not None and toolchain not in _TOOLCHAINS:
        raise PlanError(
            f"{project_file}: runtime.options.toolchain: must be one of {', '.join(_TOOLCHAINS)} (got {toolchain!r})"
        )
    virtualenv = options.get("virtualenv")
    if virtualenv is not None and not isinstance(virtualenv, str):
        raise PlanError(f"{project_file}: runtime.options.virtualenv: must be a string (got {virtualenv!r})")
    if virtualenv:
        return root / virtualenv
    uv_lock = _search_up(program_dir, "uv.lock")
    if toolchain == "uv" or (toolchain is None and uv_lock is not None):
        project_dir = uv_lock or _search_up(program_dir, "pyproject.toml") or program_dir
        return project_dir / (os.environ.get("UV_PROJECT_ENVIRONMENT") or ".venv")
    return None


_TOOLCHAINS = ("pip", "poetry", "uv")
"""The toolchains ``runtime.options.toolchain`` accepts (pulumi-language-python main.go ``parseOptions``)."""


def _search_up(directory: Path, name: str) -> Path | None:
    """The nearest folder from ``directory`` up to the file system's root that holds ``name`` (toolchain.go
    ``searchup``)."""
    return next((folder for folder in (directory, *directory.parents) if (folder / name).exists()), None)


def _project_defaults(project: str, config: Any, project_file: Path) -> dict[str, str]:
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise PlanError(f"{project_file}: config: expected a mapping (got {config!r:.60})")
    defaults: dict[str, str] = {}
    for key, spec in config.items():
        value = spec.get("default", spec.get("value")) if isinstance(spec, dict) else spec
        if value is not None:
            defaults[_namespaced(project, str(key))] = _config_string(value)
    return defaults


def load_stack(project: Project, stack: str) -> StackSettings:
    """Read the config of ``stack``; secrets become placeholders marked secret.

    A project with stack files but none for ``stack`` is an error listing the stacks it has; a project
    without any stack file runs with the project defaults only.
    """
    if not STACK_NAME.match(stack):
        raise PlanError(
            f"stack {stack[:120]!r}: not a stack name Pulumi accepts (1 to 100 letters, digits, '_', '.', '-')"
        )
    path = project.stack_file(stack)
    if path is None:
        existing = project.stacks()
        if existing:
            raise PlanError(
                f"stack {stack!r} has no config file in {project.config_dir}; "
                f"stacks of project {project.name}: {', '.join(existing)}"
            )
        return StackSettings(stack, None, dict(project.defaults), frozenset())
    data = load_yaml(path) or {}
    if not isinstance(data, dict):
        raise PlanError(f"{path}: expected a mapping with a 'config' key (got {type(data).__name__})")
    raw = data.get("config") or {}
    if not isinstance(raw, dict):
        raise PlanError(f"{path}: config: expected a mapping (got {type(raw).__name__})")
    config = dict(project.defaults)
    secret_keys: set[str] = set()
    given: dict[str, str] = {}
    for key, value in raw.items():
        full = _namespaced(project.name, str(key))
        if full in given:
            raise PlanError(f"{path}: config: {given[full]!r} and {key!r} are the same key {full!r}")
        given[full] = str(key)
        clean, secret = _strip_secrets(value, f"{path}: {full}")
        config[full] = _config_string(clean)
        if secret:
            secret_keys.add(full)
    return StackSettings(stack, path, config, frozenset(secret_keys))


def _namespaced(project: str, key: str) -> str:
    return key if ":" in key else f"{project}:{key}"


def _strip_secrets(value: Any, where: str) -> tuple[Any, bool]:
    """Replace every ``{secure: CIPHERTEXT}`` by the placeholder; report whether there was one.

    Raises:
        PlanError: a ``secure`` value that is not ciphertext (a non-empty string, as ``pulumi config set --secret``
            writes it); ``where`` names the key.
    """
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            if not isinstance(value["secure"], str) or not value["secure"]:
                got = json.dumps(value["secure"], default=str)
                raise PlanError(f"{where}: a secure value must be ciphertext text (got {got})")
            return SECRET_PLACEHOLDER, True
        items = {k: _strip_secrets(v, f"{where}.{k}") for k, v in value.items()}
        return {k: v for k, (v, _) in items.items()}, any(s for _, s in items.values())
    if isinstance(value, list):
        pairs = [_strip_secrets(v, f"{where}.{i}") for i, v in enumerate(value)]
        return [v for v, _ in pairs], any(s for _, s in pairs)
    return value, False


def _config_string(value: Any) -> str:
    """Config values reach the program as strings; structured values as JSON, as the CLI sends them."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, sort_keys=True, default=str)
