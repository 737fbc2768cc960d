"""The one naming rule for physical names that must be unique per account (and region): ``<base>-<stack>``.

A cluster, a KMS alias, a log group, a bucket or a role gets a name the cloud requires to be unique in the account
(IAM and RAM names: in the whole account; the others: in the account and region; S3 and OSS bucket names: across
all accounts). Two stacks of one program (dev and staging) may share an account, so every such name a component
chooses is :func:`physical_name` of a base (the component's name or an explicit argument) and the Pulumi stack
(``pulumi.get_stack()``). Everything else is left to Pulumi's auto-naming (IAM roles without a given name, launch
templates, placement groups) or is unique only within its parent (node groups within their cluster, security
groups within their VPC), where the stack adds nothing.

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
import re
from dataclasses import dataclass

import pulumi

__all__ = [
    "ACK_CLUSTER",
    "ALICLOUD_KMS_ALIAS",
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
    "physical_name",
]

_DIGEST_LENGTH = 8


@dataclass(frozen=True)
class NameRule:
    """What a cloud accepts as one kind of physical name (read from the provider SDK or the cloud API model)."""

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


EKS_CLUSTER = NameRule(100, "A-Za-z0-9_-")
"""pulumi_aws.eks.Cluster ``name``: "between 1-100 characters ... ``^[0-9A-Za-z][A-Za-z0-9\\-_]*$``" (pulumi-aws
7.51.1 docstring). The control-plane log group ``/aws/eks/<cluster>/cluster`` (fixed by EKS) follows from it."""
AWS_KMS_ALIAS = NameRule(256 - len("alias/"), "A-Za-z0-9:/_-")
"""The part after ``alias/`` of an AWS KMS alias: AliasNameType, 1-256 characters ``^[a-zA-Z0-9:/_-]+$`` with the
``alias/`` prefix (botocore 1.44.8 kms service model)."""
LOG_GROUP = NameRule(512 - len("/gpucloud//vpc-flow-logs"), "A-Za-z0-9._/#-")
"""The middle part of the flow-log group ``/gpucloud/<name>/vpc-flow-logs``: LogGroupName, 1-512 characters
``[\\.\\-_/#A-Za-z0-9]+`` (botocore 1.44.8 logs service model)."""
S3_BUCKET = NameRule(63, "a-z0-9-", lowercase=True)
"""pulumi_aws.s3.Bucket ``bucket``: "lowercase and less than or equal to 63 characters" (pulumi-aws 7.51.1
docstring; S3 User Guide, "General purpose bucket naming rules": 3-63 characters, letters, digits, dots and hyphens,
beginning and ending with a letter or digit; dots left out here, they break virtual-host TLS)."""
CODEBUILD_PROJECT = NameRule(150, "A-Za-z0-9_-")
"""CodeBuild ProjectName: 2-150 characters ``[A-Za-z0-9][A-Za-z0-9\\-_]{1,149}`` (botocore 1.44.8 codebuild service
model); unique in the account and region. Its log group ``/aws/codebuild/<project>`` follows from it."""
IAM_ROLE = NameRule(64, "A-Za-z0-9_+=,.@-")
"""IAM roleNameType: 1-64 characters ``[\\w+=,.@-]+`` (botocore 1.44.8 iam service model); unique in the account."""
ACK_CLUSTER = NameRule(63, "A-Za-z0-9_-")
"""pulumi_alicloud.cs.ManagedKubernetes ``name``: "unique in one Alicloud account" (pulumi-alicloud 4.0.0
docstring, which gives no length); 63 letters, digits, ``-`` and ``_`` is the conservative bound used here."""
ALICLOUD_KMS_ALIAS = NameRule(255, "A-Za-z0-9_/-")
"""The part after ``alias/`` of an Alibaba KMS alias: "minimum length of 1 character and maximum length of 255
characters" (pulumi_alicloud.kms.Alias ``alias_name``, pulumi-alicloud 4.0.0 docstring)."""
OSS_BUCKET = NameRule(63, "a-z0-9-", lowercase=True)
"""OSS bucket names: 3-63 lower-case letters, digits and hyphens, starting and ending with a letter or digit (OSS
"Bucket naming conventions", https://www.alibabacloud.com/help/en/oss/user-guide/bucket-naming-conventions, read
2026-12-03; the same rule as components.alicloud.storage's check)."""
RAM_ROLE = NameRule(64, "A-Za-z0-9.-")
"""RAM CreateRole ``RoleName``: "1 to 64 characters in length and can contain letters, digits, periods (.), and
hyphens (-)" (https://www.alibabacloud.com/help/en/resource-management/resource-group/developer-reference/
api-resourcemanager-2020-03-31-createrole-rg, read 2026-12-03); unique in the account."""
RAM_POLICY = NameRule(128, "A-Za-z0-9-")
"""pulumi_alicloud.ram.Policy ``policy_name``: "1 to 128 characters in length and can contain English letters,
digits, and dashes (-)" (pulumi-alicloud 4.0.0 docstring); unique in the account."""


def physical_name(rule: NameRule, base: str, *after: str) -> str:
    """``<base>-<stack>``, followed by ``after`` (e.g. account id and region of a bucket), fitted to ``rule``."""
    return fit(rule, "-".join((base, pulumi.get_stack(), *after)))


def fit(rule: NameRule, name: str) -> str:
    """``name`` itself when ``rule`` accepts it, else its deterministic fitted form (see the module docstring)."""
    if rule.accepts(name):
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:_DIGEST_LENGTH]
    cleaned = re.sub(f"[^{rule.allowed}]", "-", name.lower() if rule.lowercase else name)
    head = cleaned[: rule.max_length - _DIGEST_LENGTH - 1]
    head = re.sub(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "", head)
    return f"{head}-{digest}" if head else digest
