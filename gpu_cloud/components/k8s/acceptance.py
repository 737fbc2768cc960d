"""PoolAcceptanceTest: a JobSet that checks a training pool after it is created or changed.

Two worker pods, one per node, each with every GPU (and EFA interface) of the pool's type, first check their node:
``nvidia-smi topo -m`` (the GPU/NIC topology, in the log), and the GPU count and model against the catalog; a
mismatch fails the job. Then a launcher runs nccl-tests' ``all_reduce_perf`` over both nodes with MPI (nccl-tests
needs MPI for more than one process: NVIDIA/nccl-tests README at v2.19.6, "NCCL tests rely on MPI to work on multiple
processes, hence multiple nodes") with ``NCCL_DEBUG=INFO``, so the log names the transport (``NET/OFI`` with the EFA
provider, ``NET/Socket`` without), and it fails when the average bus bandwidth is below the pool's expected minimum
(``EXPECTED_BUS_BANDWIDTH``), where one is published.

MPI reaches the workers over SSH with a key the launcher makes for this run: the launcher serves only the public key
on port 8022 for the workers to fetch into ``authorized_keys`` before they start ``sshd`` (on 2222), so no secret is
stored anywhere and no pod needs API access. The JobSet succeeds when the launcher does and then stops the workers.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

import pulumi

from gpu_cloud.components import labels, versions
from gpu_cloud.components.catalog import lookup
from gpu_cloud.components.k8s.objects import custom_object
from gpu_cloud.components.k8s.training import nccl_settings
from gpu_cloud.components.k8s.training_job import EFA_RESOURCE, JOBSET_API
from gpu_cloud.components.spec import Cloud, GpuNodePoolSpec, SpotGroupSpec, TrainingSpec, pool_gpus

__all__ = [
    "EXPECTED_BUS_BANDWIDTH",
    "NCCL_TESTS",
    "PoolAcceptanceTest",
    "PoolAcceptanceTestArgs",
    "acceptance_manifest",
]

EXPECTED_BUS_BANDWIDTH: dict[str, float] = {
    # all_reduce_perf on 2x p5.48xlarge over EFA: busbw 487 GB/s at 16 GiB; 2x p4de.24xlarge: 78 GB/s at 2 GiB
    # (github.com/aws-samples/awsome-distributed-training micro-benchmarks/nccl-tests/README.md at commit 7217859f,
    # "Results", read 2026-12-02). The minimum is 80% of the published figure (runs differ by message size and load).
    "p5.48xlarge": 390.0,
    "p4de.24xlarge": 62.0,
}
"""Least average bus bandwidth (GB/s) the two-node all-reduce must reach, per instance type with a published
figure; other types are reported, not judged (docs/training.md lists what to expect)."""

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


def _worker_script(model: str, gpus: int, key_url: str) -> str:
    pattern = shlex.quote(f"^{model}( |$)")
    return "\n".join(
        [
            "set -eu",
            "nvidia-smi topo -m",
            "nvidia-smi --query-gpu=index,name,memory.total --format=csv",
            f"found=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -c -E {pattern} || true)",
            f'if [ "$found" != "{gpus}" ]; then echo "FAIL: $found of {gpus} GPUs are {model}"; exit 1; fi',
            f'echo "OK: {gpus} x {model}"',
            "mkdir -p /root/.ssh",
            f"until curl -sf {key_url} -o /root/.ssh/authorized_keys; do sleep 2; done",
            "chmod 600 /root/.ssh/authorized_keys",
            f"exec /usr/sbin/sshd -D -e -p {SSH_PORT}",
        ]
    )


def _launcher_script(cloud: Cloud, hosts: list[str], gpus: int, env: dict[str, str], minimum: float | None) -> str:
    mpirun, test = NCCL_TESTS[cloud]
    exports = " ".join(f"-x {name}={shlex.quote(value)}" for name, value in env.items())
    ssh = f"-p {SSH_PORT} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
    check = (
        f'awk -v min={minimum} \'/Avg bus bandwidth/ {{bw=$NF}} END {{print "busbw", bw, "GB/s (min", min ")"; '
        "exit !(bw >= min)}' /tmp/result.txt"
        if minimum is not None
        else "grep 'Avg bus bandwidth' /tmp/result.txt"
    )
    return "\n".join(
        [
            "set -eu",
            "mkdir -p /root/.ssh /srv/key",
            "ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519",
            "cp /root/.ssh/id_ed25519.pub /srv/key/",
            f"python3 -m http.server {KEY_PORT} --directory /srv/key &",
            *(f"until ssh {ssh} {host} true; do sleep 5; done" for host in hosts),
            f"{mpirun} --allow-run-as-root --tag-output -np {WORKERS * gpus} -N {gpus} --bind-to none "
            f"--host {','.join(f'{h}:{gpus}' for h in hosts)} --mca plm_rsh_args {shlex.quote(ssh)} "
            f"--mca pml ^ucx --mca btl tcp,self --mca btl_tcp_if_exclude lo,docker0 {exports} "
            f"{test} -b 8 -e 8G -f 2 -g 1 -c 1 -n 50 | tee /tmp/result.txt",
            check,
        ]
    )


def acceptance_manifest(pool: GpuNodePoolSpec | SpotGroupSpec, training: TrainingSpec, cloud: Cloud) -> dict[str, Any]:
    """The acceptance JobSet ``accept-<pool>`` of a training pool (validated: ``spec.training_problems``)."""
    name = f"accept-{pool.name}"
    found = lookup(cloud, pool.instance_types[0])
    gpus = pool_gpus(cloud, pool)
    model = found.gpu_model if found is not None else ""
    efa = found.efa_interfaces if found is not None and isinstance(pool, GpuNodePoolSpec) and pool.efa else 0
    hosts = [f"{name}-worker-0-{i}.{name}" for i in range(WORKERS)]
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
                        "labelSelector": {"matchLabels": {"jobset.sigs.k8s.io/replicatedjob-name": "worker"}},
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
                "command": [
                    "bash",
                    "-c",
                    _worker_script(model, gpus, f"http://{name}-launcher-0-0.{name}:{KEY_PORT}/id_ed25519.pub"),
                ],
                "env": [{"name": k, "value": v} for k, v in env.items()],
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
                    _launcher_script(cloud, hosts, gpus, env, EXPECTED_BUS_BANDWIDTH.get(pool.instance_types[0])),
                ],
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
        "metadata": {"name": name, "namespace": training.namespace},
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
    """The acceptance JobSet of one training pool (:func:`acceptance_manifest`). It runs once when declared; rerun it
    with ``kubectl delete jobset accept-<pool>`` then ``pulumi up``, or submit the rendered manifest."""

    def __init__(self, name: str, args: PoolAcceptanceTestArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:k8s:PoolAcceptanceTest", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts is not None else None)
        custom_object(f"{name}-jobset", acceptance_manifest(args.pool, args.training, args.cloud), child)
        self.register_outputs({"jobSet": f"accept-{args.pool.name}"})
