"""PoolAcceptanceTest: a JobSet that checks a training pool after it is created or changed.

Two worker pods, one per node, each with every GPU (and EFA interface) of the pool's type, first check their node:
``nvidia-smi topo -m`` (the GPU/NIC topology, in the log), and the GPU count and model against the catalog; a
mismatch fails the job. Then a launcher runs nccl-tests' ``all_reduce_perf`` over both nodes with MPI (nccl-tests
needs MPI for more than one process: NVIDIA/nccl-tests README at v2.19.6, "NCCL tests rely on MPI to work on multiple
processes, hence multiple nodes") with ``NCCL_DEBUG=INFO``, so the log names the transport (``NET/OFI`` with the EFA
provider, ``NET/Socket`` without), and it fails when the bus bandwidth of a message of 1 GiB or more falls below the
pool's pass mark (:data:`PASS_MARKS`), where a figure is published.

MPI reaches the workers over SSH with a key the launcher makes for this run: the launcher serves only the public key
on port 8022 for the workers to fetch into ``authorized_keys`` before they start ``sshd`` (on 2222), so no secret is
stored anywhere and no pod needs API access. The JobSet succeeds when the launcher does and then stops the workers.
It is queued by Kueue like every GPU job (``components.k8s.queueing.ACCEPTANCE_QUEUE``).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any, NamedTuple

import pulumi

from gpu_cloud.components import labels, versions
from gpu_cloud.components.catalog import lookup
from gpu_cloud.components.k8s.queueing import ACCEPTANCE_QUEUE, QUEUE_LABEL
from gpu_cloud.components.k8s.training import nccl_settings
from gpu_cloud.components.k8s.training_job import (
    EFA_RESOURCE,
    JOBSET_API,
    JOBSET_NAME_ENV,
    JOBSET_NAME_LABEL,
    declare_jobset,
    jobset_metadata,
    jobset_name_env,
)
from gpu_cloud.components.spec import Cloud, GpuNodePoolSpec, SpotGroupSpec, TrainingSpec, pool_gpus

__all__ = [
    "BUSBW_CHECK",
    "JUDGED_FROM_BYTES",
    "LARGEST_MESSAGE",
    "NCCL_TESTS",
    "PASS_MARKS",
    "PassMark",
    "PoolAcceptanceTest",
    "PoolAcceptanceTestArgs",
    "acceptance_manifest",
]

_AWSOME = (
    "github.com/aws-samples/awsome-distributed-training/blob/7217859f67bc693c52ff175ccc6082c41dbd7a1b/"
    "micro-benchmarks/nccl-tests/README.md"
)


class PassMark(NamedTuple):
    """The least bus bandwidth a healthy pair of nodes of one instance type reaches on every all-reduce of
    :data:`JUDGED_FROM_BYTES` or more, and the published run it comes from."""

    busbw_gbps: float
    """90 % of the lowest busbw (out-of-place or in-place) the published run shows from 1 GiB up to
    :data:`LARGEST_MESSAGE`, rounded down: runs differ by a few percent, a pool that lost a link or its EFA
    transport loses far more."""
    published_gbps: float
    """That lowest published busbw."""
    source: str
    """The published run (repository at a commit, file, lines)."""


PASS_MARKS: dict[str, PassMark] = {
    # 2x p5.48xlarge over EFA, 8 B-16 GiB: 436.95 GB/s at 1 GiB (the lowest of the 1 GiB and 2 GiB rows) ... 487 at
    # 16 GiB; AWS Batch's 2x p5 run (micro-benchmarks/nccl-tests/aws-batch/README.md, same commit) has 441.57 there.
    "p5.48xlarge": PassMark(393.0, 436.95, f"{_AWSOME} lines 221-222 (2x p5.48xlarge, read 2026-12-03)"),
    # 2x p4de.24xlarge over EFA, 8 B-2 GiB: 76.79 GB/s at 1 GiB, 78.33 at 2 GiB.
    "p4de.24xlarge": PassMark(69.0, 76.79, f"{_AWSOME} lines 186-187 (2x p4de.24xlarge, read 2026-12-03)"),
}
"""Pass mark of the two-node all-reduce per instance type with a published figure; other types are reported, not
judged (docs/training.md lists what to expect).

Why not nccl-tests' ``# Avg bus bandwidth``: it is the mean busbw over every size of the sweep, out-of-place and
in-place alike (NVIDIA/nccl-tests v2.16.4 src/common.cu), so small messages, which measure latency, drag it far
below the link rate: a published 2x p5 run prints an average of 52.98 GB/s over 0 B-2 GiB while its 2 GiB rows reach
437.8 (the same README, lines 278-280). Only large messages measure bandwidth."""

JUDGED_FROM_BYTES = 1 << 30
"""Smallest message size (bytes) the pass mark judges: 1 GiB."""

LARGEST_MESSAGE = "2G"
"""The sweep's largest message (``all_reduce_perf -e``): 1 GiB and 2 GiB are judged; both are in every published run
above and fit in the memory of every GPU of the catalog (two buffers per rank)."""

BUSBW_CHECK = r"""
NF >= 13 && $(NF-10) ~ /^(int8|uint8|int32|uint32|int64|uint64|half|float|double|bfloat16)$/ && $(NF-12) ~ /^[0-9]+$/ {
    if ($(NF-12) + 0 < from) next
    for (i = 5; i >= 1; i -= 4) {
        if (n == 0 || $(NF-i) + 0 < low) low = $(NF-i) + 0
        n++
    }
    if ($(NF-12) + 0 > size) size = $(NF-12) + 0
}
END {
    if (n == 0) { print "FAIL: no all-reduce result of " from " bytes or more"; exit 1 }
    printf "busbw from %.0f to %.0f bytes: lowest %.2f GB/s", from, size, low
    if (min == "") { print " (no published figure for this instance type: not judged)"; exit 0 }
    printf ", pass mark %s GB/s: %s\n", min, (low >= min ? "PASS" : "FAIL")
    exit (low >= min ? 0 : 1)
}
"""
"""The launcher's verdict, an awk program over ``all_reduce_perf``'s output (``-v from=<bytes>``, ``-v min=<GB/s>`` or
empty): the lowest out-of-place and in-place busbw of the result rows from ``from`` bytes up. A result row, with or
without a launcher's tag (``[1,0]<stdout>:``, ``0:``), ends in the 13 columns size, count, type, redop, root, then
time, algbw, busbw, #wrong out-of-place and in-place (nccl-tests src/common.cu, the line printed for each size), so
the busbw fields are the 6th and 2nd from the end."""

NCCL_TESTS: dict[Cloud, tuple[str, str]] = {
    # (mpirun, all_reduce_perf) inside the pinned images: AWS's build installs Open MPI under /opt/amazon/openmpi and
    # nccl-tests under /opt/nccl-tests (its kubernetes/nccl-tests.yaml, same commit); CoreWeave's image has HPC-X's
    # mpirun on PATH and nccl-tests under /opt/nccl_tests (NVIDIA/cloudai's MPIJob for it, commit f5410ee8).
    Cloud.AWS: ("/opt/amazon/openmpi/bin/mpirun", "/opt/nccl-tests/build/all_reduce_perf"),
    Cloud.ALICLOUD: ("mpirun", "/opt/nccl_tests/build/all_reduce_perf"),
}
"""Where each cloud's nccl-tests image has its MPI launcher and the all-reduce test."""

SSH_PORT = 2222
KEY_PORT = 8022
WORKERS = 2
_NAME = f"${{{JOBSET_NAME_ENV}}}"


def _worker_script(model: str, gpus: int) -> str:
    pattern = shlex.quote(f"^{model}( |$)")
    key_url = f"http://{_NAME}-launcher-0-0.{_NAME}:{KEY_PORT}/id_ed25519.pub"
    return "\n".join(
        [
            "set -eu",
            "nvidia-smi topo -m",
            "nvidia-smi --query-gpu=index,name,memory.total --format=csv",
            f"found=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -c -E {pattern} || true)",
            f'if [ "$found" != "{gpus}" ]; then echo "FAIL: $found of {gpus} GPUs are {model}"; exit 1; fi',
            f'echo "OK: {gpus} x {model}"',
            "mkdir -p /root/.ssh",
            f'until curl -sf "{key_url}" -o /root/.ssh/authorized_keys; do sleep 2; done',
            "chmod 600 /root/.ssh/authorized_keys",
            f"exec /usr/sbin/sshd -D -e -p {SSH_PORT}",
        ]
    )


def _launcher_script(cloud: Cloud, gpus: int, env: dict[str, str], mark: PassMark | None) -> str:
    mpirun, test = NCCL_TESTS[cloud]
    # The remote ranks start under sshd, whose sessions do not inherit the image's ENV: NCCL, libfabric and the
    # aws-ofi-nccl plugin are found only through LD_LIBRARY_PATH in the AWS image (its nccl-tests.Dockerfile), so
    # mpirun exports PATH and LD_LIBRARY_PATH as AWS's own launchers do (micro-benchmarks/nccl-tests/kubernetes/
    # nccl-tests.yaml at 7217859f).
    exports = " ".join(["-x PATH", "-x LD_LIBRARY_PATH", *(f"-x {k}={shlex.quote(v)}" for k, v in env.items())])
    ssh = f"-p {SSH_PORT} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
    hosts = [f"{_NAME}-worker-0-{i}.{_NAME}" for i in range(WORKERS)]
    minimum = "''" if mark is None else f"{mark.busbw_gbps:g}"
    return "\n".join(
        [
            "set -eu -o pipefail",
            "mkdir -p /root/.ssh /srv/key",
            "ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519",
            "cp /root/.ssh/id_ed25519.pub /srv/key/",
            f"python3 -m http.server {KEY_PORT} --directory /srv/key &",
            *(f'until ssh {ssh} "{host}" true; do sleep 5; done' for host in hosts),
            f"{mpirun} --allow-run-as-root --tag-output -np {WORKERS * gpus} -N {gpus} --bind-to none "
            f'--host "{",".join(f"{h}:{gpus}" for h in hosts)}" --mca plm_rsh_args {shlex.quote(ssh)} '
            f"--mca pml ^ucx --mca btl tcp,self --mca btl_tcp_if_exclude lo,docker0 {exports} "
            f"{test} -b 8 -e {LARGEST_MESSAGE} -f 2 -g 1 -c 1 -n 50 | tee /tmp/result.txt",
            f"awk -v from={JUDGED_FROM_BYTES} -v min={minimum} {shlex.quote(BUSBW_CHECK)} /tmp/result.txt",
        ]
    )


def acceptance_manifest(
    pool: GpuNodePoolSpec | SpotGroupSpec, training: TrainingSpec, cloud: Cloud, generate_name: bool = False
) -> dict[str, Any]:
    """The acceptance JobSet ``accept-<pool>`` of a training pool (validated: ``spec.training_problems``), queued in
    :data:`~gpu_cloud.components.k8s.queueing.ACCEPTANCE_QUEUE`; with ``generate_name``, a run submitted with
    ``kubectl create`` (named ``accept-<pool>-<random>`` by the API server)."""
    name = f"accept-{pool.name}"
    found = lookup(cloud, pool.instance_types[0])
    gpus = pool_gpus(cloud, pool)
    model = found.gpu_model if found is not None else ""
    efa = found.efa_interfaces if found is not None and isinstance(pool, GpuNodePoolSpec) and pool.efa else 0
    env = nccl_settings(training, pool) | {"NCCL_DEBUG": "INFO"}
    image = versions.NCCL_TESTS_IMAGES[cloud.value]
    limits = {labels.GPU_TAINT_KEY: str(gpus)} | ({EFA_RESOURCE: str(efa)} if efa else {})
    tolerations = [{"key": labels.GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}]
    if isinstance(pool, SpotGroupSpec):
        tolerations.append({"key": labels.SPOT_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"})
    worker = {
        "nodeSelector": {labels.POOL_LABEL: pool.name},
        "tolerations": tolerations,
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        # One worker per node, among the workers of this run only.
                        "labelSelector": {"matchLabels": {"jobset.sigs.k8s.io/replicatedjob-name": "worker"}},
                        "matchLabelKeys": [JOBSET_NAME_LABEL],
                        "topologyKey": "kubernetes.io/hostname",
                    }
                ]
            }
        },
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "containers": [
            {
                "name": "check",
                "image": image,
                "command": ["bash", "-c", _worker_script(model, gpus)],
                "env": [jobset_name_env(), *({"name": k, "value": v} for k, v in env.items())],
                "resources": {"requests": limits, "limits": limits},
                "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
            }
        ],
        "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}],
    }
    launcher = {
        "nodeSelector": {labels.PURPOSE_LABEL: labels.SYSTEM_PURPOSE},
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "containers": [
            {
                "name": "all-reduce",
                "image": image,
                "command": [
                    "bash",
                    "-c",
                    _launcher_script(cloud, gpus, env, PASS_MARKS.get(pool.instance_types[0])),
                ],
                "env": [jobset_name_env()],
                "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
            }
        ],
    }

    def replicated(job: str, pods: int, spec: dict[str, Any]) -> dict[str, Any]:
        template = {"parallelism": pods, "completions": pods, "backoffLimit": 0, "template": {"spec": spec}}
        return {"name": job, "replicas": 1, "template": {"spec": template}}

    return {
        "apiVersion": JOBSET_API,
        "kind": "JobSet",
        "metadata": jobset_metadata(name, training.namespace, generate_name, {QUEUE_LABEL: ACCEPTANCE_QUEUE}),
        "spec": {
            "network": {"enableDNSHostnames": True},
            "successPolicy": {"operator": "All", "targetReplicatedJobs": ["launcher"]},
            "failurePolicy": {"maxRestarts": 0},
            "replicatedJobs": [replicated("worker", WORKERS, worker), replicated("launcher", 1, launcher)],
        },
    }


@dataclass(frozen=True)
class PoolAcceptanceTestArgs:
    """Inputs of :class:`PoolAcceptanceTest`: the pool, the training spec (namespace), the cloud."""

    pool: GpuNodePoolSpec | SpotGroupSpec
    """The training pool (or spot group) to test."""
    training: TrainingSpec
    """The training spec (the namespace the test runs in)."""
    cloud: Cloud
    """The cluster's cloud."""


class PoolAcceptanceTest(pulumi.ComponentResource):
    """The acceptance JobSet of one training pool (:func:`acceptance_manifest`). It runs once when declared and again
    whenever its manifest changes (Pulumi replaces the JobSet: ``training_job.JOBSET_REPLACED_ON_CHANGES``); run it
    again at will with the rendered manifest and ``kubectl create`` (a run of its own name, docs/training.md)."""

    def __init__(self, name: str, args: PoolAcceptanceTestArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:k8s:PoolAcceptanceTest", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts is not None else None)
        declare_jobset(f"{name}-jobset", acceptance_manifest(args.pool, args.training, args.cloud), child)
        self.register_outputs({"jobSet": f"accept-{args.pool.name}"})
