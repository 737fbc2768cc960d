"""The one naming rule for physical names that must be unique per account (and region): ``<base>-<stack>``, or what
the stack's ``pulumi:autonaming`` config asks for.

A cluster, a KMS alias, a log group, a bucket or a role gets a name the cloud requires to be unique in the account
(IAM and RAM names: in the whole account; the others: in the account and region; S3 and OSS bucket names: across
all accounts). Every such name a component chooses is :func:`physical_name` of a base and the Pulumi stack
(``pulumi.get_stack()``). The base comes from the component's name (or an argument that defaults to it), so two
components of one program never share a name, and the stack keeps two stacks of one program (dev and staging)
apart in one account. Everything else is left to Pulumi's auto-naming (IAM roles without a given name, launch
templates, placement groups) or is unique only within its parent (node groups within their cluster, security
groups within their VPC), where the stack adds nothing.

Why these names are set by the program and not left to the provider's auto-naming: each is needed before its
resource exists, as each rule's docstring says (the control-plane log group EKS writes to is named after the
cluster and is created first; identity policies select the key by its alias and the bucket by its name; the
CodeBuild project's log group and the runner's start-build command carry the project's name; operators assume the
gpu-admin and gpu-user roles by name). A provider's auto-name is known only once the resource is registered.

The stack's ``pulumi:autonaming`` config is honoured all the same (Pulumi docs, "Resource names and identity",
https://www.pulumi.com/docs/iac/concepts/resources/names/#autonaming-configuration, read 2026-12-03), resolved as
the engine resolves it (pulumi/pulumi ``pkg/resource/autonaming/config.go`` and ``json.go``): the settings of the
resource type under ``providers.<package>.resources``, else of its provider package, else the root ones.
- no setting, ``mode: default`` or ``mode: disabled``: ``<base>-<stack>`` (every name here is explicit, which is
  what ``disabled`` requires);
- ``mode: verbatim``: the base alone (with what follows it, e.g. a bucket's account and region);
- ``pattern``: the pattern with ``${name}`` the base (and what follows it), ``${project}``, ``${stack}``,
  ``${organization}`` (or ``${org}``) and ``${config.<key>}`` (the project's key) as the engine expands them. Its
  random parts (``${hex(n)}``, ``${alphanum(n)}``, ``${string(n)}``, ``${num(n)}``, ``${uuid}``) are drawn from a
  hash of the organization, project, stack, resource type and name, so they are the same at every run, as a name
  the program needs beforehand must be. ``enforce: true`` turns a name the cloud would refuse into a ConfigError
  instead of fitting it.
Unlike the engine's auto-names, which change only for resources created afterwards, these names follow the setting
at once: set ``pulumi:autonaming`` before a stack's first ``pulumi up``; changed later, it renames, and so replaces,
the clusters, aliases, buckets and roles (protected ones refuse; gpucloud plan shows the new names).

A name the cloud would reject, too long or with a character it does not allow (stack names may hold ``.`` and
``_``), is never an error here: it becomes a deterministic fitted name, the leading characters of the joined name
(disallowed characters replaced by ``-``) and ``-`` plus the first 8 hex digits of the SHA-256 of the whole joined
name, so it stays unique per (base, stack) and stays the same on every run. An error would come mid-program,
after other resources were registered; a fitted name keeps ``pulumi up`` whole. Bases themselves are still
validated by the components (a bad base is a ConfigError naming the argument and the value).

The rule holds for the bootstrap program too (its stack ``shared``): ``alias/gpucloud-pulumi-state-shared``, the
bucket ``gpucloud-state-shared-<account>-<region>``, the CodeBuild project ``gpucloud-deploy-shared``.
"""

from __future__ import annotations

import hashlib
import random
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

from gpu_cloud.components.spec.problems import ConfigError, Problem

__all__ = [
    "ACK_CLUSTER",
    "ALICLOUD_KMS_ALIAS",
    "AUTONAMING_KEY",
    "AWS_KMS_ALIAS",
    "CODEBUILD_PROJECT",
    "EKS_CLUSTER",
    "IAM_ROLE",
    "LOG_GROUP",
    "OSS_BUCKET",
    "RAM_POLICY",
    "RAM_ROLE",
    "S3_BUCKET",
    "NameRule",
    "fit",
    "owned_base",
    "physical_name",
]

_DIGEST_LENGTH = 8

AUTONAMING_KEY = "pulumi:autonaming"
"""The stack config key of Pulumi's auto-naming settings (the engine passes every config key, this one included, to
the program: pulumi/pulumi ``pkg/resource/deploy/source_eval.go``, ``RunInfo.Config``)."""


@dataclass(frozen=True)
class NameRule:
    """What a cloud accepts as one kind of physical name (read from the provider SDK or the cloud API model)."""

    resource_type: str
    """The Pulumi type whose input holds the name (its key under ``pulumi:autonaming``'s ``resources``)."""
    max_length: int
    """The longest name accepted."""
    allowed: str
    """The characters accepted, as the body of a regular expression character class."""
    lowercase: bool = False
    """Upper-case letters are not accepted."""

    def accepts(self, name: str) -> bool:
        """Whether the cloud takes ``name``: not empty, not too long, allowed characters only, starting and ending
        with a letter or digit (the strictest of the rules below; every name here is built that way)."""
        return (
            0 < len(name) <= self.max_length
            and re.fullmatch(f"[{self.allowed}]+", name) is not None
            and name[0].isalnum()
            and name[-1].isalnum()
            and not (self.lowercase and name != name.lower())
        )


EKS_CLUSTER = NameRule("aws:eks/cluster:Cluster", 100, "A-Za-z0-9_-")
"""pulumi_aws.eks.Cluster ``name``: "between 1-100 characters ... ``^[0-9A-Za-z][A-Za-z0-9\\-_]*$``" (pulumi-aws
7.51.1 docstring). The control-plane log group ``/aws/eks/<cluster>/cluster`` (fixed by EKS) follows from it, and is
created before the cluster (components.aws.cluster): the name is needed first."""
AWS_KMS_ALIAS = NameRule("aws:kms/alias:Alias", 256 - len("alias/"), "A-Za-z0-9:/_-")
"""The part after ``alias/`` of an AWS KMS alias: AliasNameType, 1-256 characters ``^[a-zA-Z0-9:/_-]+$`` with the
``alias/`` prefix (botocore 1.44.8 kms service model). Identity policies select the key by it
(``kms:ResourceAliases``, components.aws.kms.key_use_statement) before the key exists."""
LOG_GROUP = NameRule("aws:cloudwatch/logGroup:LogGroup", 512 - len("/gpucloud//vpc-flow-logs"), "A-Za-z0-9._/#-")
"""The middle part of the flow-log group ``/gpucloud/<name>/vpc-flow-logs``: LogGroupName, 1-512 characters
``[\\.\\-_/#A-Za-z0-9]+`` (botocore 1.44.8 logs service model). Named like the other log groups of the environment,
whose names EKS and CodeBuild fix."""
S3_BUCKET = NameRule("aws:s3/bucket:Bucket", 63, "a-z0-9-", lowercase=True)
"""pulumi_aws.s3.Bucket ``bucket``: "lowercase and less than or equal to 63 characters" (pulumi-aws 7.51.1
docstring; S3 User Guide, "General purpose bucket naming rules": 3-63 characters, letters, digits, dots and hyphens,
beginning and ending with a letter or digit; dots left out here, they break virtual-host TLS). The workload
identities' policies name the bucket (components.aws.identity) before it exists."""
CODEBUILD_PROJECT = NameRule("aws:codebuild/project:Project", 150, "A-Za-z0-9_-")
"""CodeBuild ProjectName: 2-150 characters ``[A-Za-z0-9][A-Za-z0-9\\-_]{1,149}`` (botocore 1.44.8 codebuild service
model); unique in the account and region. Its log group ``/aws/codebuild/<project>`` follows from it and is created
first."""
IAM_ROLE = NameRule("aws:iam/role:Role", 64, "A-Za-z0-9_+=,.@-")
"""IAM roleNameType: 1-64 characters ``[\\w+=,.@-]+`` (botocore 1.44.8 iam service model); unique in the account.
Operators assume the gpu-admin and gpu-user roles by name."""
ACK_CLUSTER = NameRule("alicloud:cs/managedKubernetes:ManagedKubernetes", 63, "A-Za-z0-9_-")
"""pulumi_alicloud.cs.ManagedKubernetes ``name``: "unique in one Alicloud account" (pulumi-alicloud 4.0.0
docstring, which gives no length); 63 letters, digits, ``-`` and ``_`` is the conservative bound used here. The RAM
policies of gpu-admin and gpu-user select the cluster by a tag holding its name (components.alicloud.rbac)."""
ALICLOUD_KMS_ALIAS = NameRule("alicloud:kms/alias:Alias", 255, "A-Za-z0-9_/-")
"""The part after ``alias/`` of an Alibaba KMS alias: "minimum length of 1 character and maximum length of 255
characters" (pulumi_alicloud.kms.Alias ``alias_name``, pulumi-alicloud 4.0.0 docstring)."""
OSS_BUCKET = NameRule("alicloud:oss/bucket:Bucket", 63, "a-z0-9-", lowercase=True)
"""OSS bucket names: 3-63 lower-case letters, digits and hyphens, starting and ending with a letter or digit (OSS
"Bucket naming conventions", https://www.alibabacloud.com/help/en/oss/user-guide/bucket-naming-conventions, read
2026-12-03; the same rule as components.alicloud.storage's check). The RRSA roles' policies name the bucket."""
RAM_ROLE = NameRule("alicloud:ram/role:Role", 64, "A-Za-z0-9.-")
"""RAM CreateRole ``RoleName``: "1 to 64 characters in length and can contain letters, digits, periods (.), and
hyphens (-)" (https://www.alibabacloud.com/help/en/resource-management/resource-group/developer-reference/
api-resourcemanager-2020-03-31-createrole-rg, read 2026-12-03); unique in the account. The RRSA annotations of the
workloads' ServiceAccounts carry the role's name."""
RAM_POLICY = NameRule("alicloud:ram/policy:Policy", 128, "A-Za-z0-9-")
"""pulumi_alicloud.ram.Policy ``policy_name``: "1 to 128 characters in length and can contain English letters,
digits, and dashes (-)" (pulumi-alicloud 4.0.0 docstring); unique in the account."""


def physical_name(rule: NameRule, base: str, *after: str) -> str:
    """``<base>-<stack>``, followed by ``after`` (e.g. account id and region of a bucket), fitted to ``rule``; or the
    name the stack's ``pulumi:autonaming`` setting for ``rule``'s resource type gives (see the module).

    Raises:
        ConfigError: the ``pulumi:autonaming`` setting is malformed, names a config key the project lacks, or
            enforces a pattern whose name the cloud refuses.
    """
    named = "-".join((base, *after))
    setting = _setting(rule.resource_type)
    pattern = setting.get("pattern")
    if isinstance(pattern, str):
        name = _expand(pattern, named, rule)
        if setting.get("enforce") is True and not rule.accepts(name):
            message = f"enforces {pattern!r}, which gives a {rule.resource_type} name the cloud refuses"
            raise ConfigError([Problem(AUTONAMING_KEY, message, name)])
        return fit(rule, name)
    if setting.get("mode") == "verbatim":
        return fit(rule, named)
    return fit(rule, "-".join((base, pulumi.get_stack(), *after)))


def owned_base(owner: str, part: str) -> str:
    """The base of the physical name of ``part`` of the component ``owner`` (an environment): ``<owner>-<part>``, or
    ``part`` alone when ``owner`` is the stack's name, which :func:`physical_name` adds anyway. So two environments
    of one program get names of their own, and an environment named after its stack (as ``stacks/`` names it) keeps
    the names environments had before they were components (``gpu-<stack>``, ``alias/gpucloud-<stack>``)."""
    return part if owner == pulumi.get_stack() else f"{owner}-{part}"


def fit(rule: NameRule, name: str) -> str:
    """``name`` itself when ``rule`` accepts it, else its deterministic fitted form (see the module docstring)."""
    if rule.accepts(name):
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:_DIGEST_LENGTH]
    cleaned = re.sub(f"[^{rule.allowed}]", "-", name.lower() if rule.lowercase else name)
    head = cleaned[: rule.max_length - _DIGEST_LENGTH - 1]
    head = re.sub(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "", head)
    return f"{head}-{digest}" if head else digest


_MODES = ("default", "verbatim", "disabled")
_SETTING_KEYS = frozenset({"mode", "pattern", "enforce"})


def _setting(resource_type: str) -> Mapping[str, Any]:
    """The ``pulumi:autonaming`` setting that applies to ``resource_type`` (empty: none), checked as the engine
    checks it: known keys only, a mode or a pattern (with ``enforce``) but not both, a known mode."""
    root = pulumi.Config("pulumi").get_object("autonaming")
    if root is None:
        return {}
    package = resource_type.split(":", 1)[0]
    provider = _mapping(root.get("providers", {}), "providers").get(package)
    levels = [(root, "", {"providers"})]
    if provider is not None:
        levels.append((_mapping(provider, f"providers.{package}"), f"providers.{package}.", {"resources"}))
        resources = _mapping(levels[-1][0].get("resources", {}), f"providers.{package}.resources")
        if resource_type in resources:
            path = f"providers.{package}.resources.{resource_type}."
            levels.append((_mapping(resources[resource_type], path.rstrip(".")), path, set()))
    for setting, path, nested in levels:
        _check_setting(setting, path, nested)
    return next((s for s, _, _ in reversed(levels) if _SETTING_KEYS & s.keys()), {})


def _mapping(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError([Problem(f"{AUTONAMING_KEY}.{path}", "expected a mapping", value)])
    return value


def _check_setting(setting: Mapping[str, Any], path: str, nested: set[str]) -> None:
    where = f"{AUTONAMING_KEY}.{path}"
    known = _SETTING_KEYS | nested
    problems = [Problem(f"{where}{k}", "not an autonaming setting", v) for k, v in setting.items() if k not in known]
    mode, pattern, enforce = setting.get("mode"), setting.get("pattern"), setting.get("enforce")
    if mode is not None and (pattern is not None or enforce is not None):
        problems.append(Problem(f"{where}mode", "cannot be given with pattern or enforce", mode))
    if mode is not None and mode not in _MODES:
        problems.append(Problem(f"{where}mode", f"one of {', '.join(_MODES)}", mode))
    if pattern is not None and not isinstance(pattern, str):
        problems.append(Problem(f"{where}pattern", "expected text", pattern))
    if enforce is not None and not isinstance(enforce, bool):
        problems.append(Problem(f"{where}enforce", "expected true or false", enforce))
    if problems:
        raise ConfigError(problems)


_RANDOM = re.compile(r"\$\{(hex|alphanum|string|num)\((\d+)\)\}|\$\{uuid\}")
_ALPHABETS = {
    "hex": "0123456789abcdef",
    "alphanum": "abcdefghijklmnopqrstuvwxyz0123456789",
    "string": "abcdefghijklmnopqrstuvwxyz",
    "num": "0123456789",
}


def _expand(pattern: str, name: str, rule: NameRule) -> str:
    """``pattern`` with the engine's expressions replaced (pulumi/pulumi ``pkg/resource/autonaming/pattern.go``),
    its random parts drawn deterministically (see the module)."""
    organization = pulumi.get_organization() or "organization"
    project, stack = pulumi.get_project(), pulumi.get_stack()
    text = pattern.replace("${organization}", organization).replace("${org}", organization)
    text = text.replace("${project}", project).replace("${stack}", stack).replace("${name}", name)
    config = pulumi.Config(project)

    def config_value(match: re.Match[str]) -> str:
        value = config.get(match.group(1))
        if value is None:
            message = f"names the config key {project}:{match.group(1)}, which is not set"
            raise ConfigError([Problem(AUTONAMING_KEY, message, pattern)])
        return value

    text = re.sub(r"\$\{config\.([^}]+)\}", config_value, text)
    seed = hashlib.sha256("\0".join((organization, project, stack, rule.resource_type, name)).encode()).digest()
    draw = random.Random(seed)  # a stable name part, not a secret

    def random_part(match: re.Match[str]) -> str:
        if match.group(0) == "${uuid}":
            return str(uuid.UUID(bytes=draw.randbytes(16), version=4))
        alphabet = _ALPHABETS[match.group(1)]
        return "".join(draw.choice(alphabet) for _ in range(int(match.group(2))))

    return _RANDOM.sub(random_part, text)
