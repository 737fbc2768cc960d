"""Minimal multi-node training that survives spot reclaims: DDP, torch.amp, rank-0 checkpoints, resume from the latest.

Run by a gpu-cloud TrainingJob (``torchrun`` on every node sets RANK, LOCAL_RANK and WORLD_SIZE; the job sets
CHECKPOINT_URI to its own prefix in the environment's checkpoint bucket). Mixed precision is ``torch.amp``
(``autocast`` plus a ``GradScaler``): NVIDIA Apex's ``amp.initialize`` that the operations guide shows is deprecated
in favour of the native ``torch.amp``, which Apex's own documentation points to.

Checkpoints: rank 0 writes one every ``--every`` steps and again on SIGTERM (the kubelet sends it when a spot node is
drained; the job's termination grace period is the time it has), through ``checkpoint_store.CheckpointStore``: the S3
API with the pod's own identity, EKS Pod Identity for ``s3://`` and RRSA (STS AssumeRoleWithOIDC) for ``oss://``.
On start every rank loads the newest checkpoint, if any.

Needs in the image: a torch with ``torch.amp.GradScaler("cuda")``, 2.3 or later (in 2.3 ``torch.cuda.amp.GradScaler``
is a subclass of it: pytorch.org/docs/2.3/_modules/torch/cuda/amp/grad_scaler.html, read 2026-12-04; older releases
were not checked), boto3 and checkpoint_store.py beside this file. Not a dependency of gpu-cloud.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
from typing import Any

import torch
import torch.distributed as dist
from checkpoint_store import CheckpointStore
from torch import nn
from torch.nn.parallel import DistributedDataParallel

STOP = {"requested": False}


def _on_sigterm(_signum: int, _frame: Any) -> None:
    STOP["requested"] = True


def _stopping(device: torch.device) -> bool:
    """True on every rank once any rank got SIGTERM: only the drained node's pods get it, and all ranks must leave
    the loop at the same step (a rank that stops alone leaves the others waiting in a collective)."""
    flag = torch.tensor([1.0 if STOP["requested"] else 0.0], device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    return bool(flag.item())


def save(
    store: CheckpointStore,
    step: int,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
) -> None:
    """Rank 0 only: write the checkpoint of ``step``."""
    state = {
        "step": step,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scaler": scaler.state_dict(),
    }
    buffer = io.BytesIO()
    torch.save(state, buffer)
    store.save(step, buffer)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps-per-epoch", type=int, default=100)
    parser.add_argument("--every", type=int, default=50, help="checkpoint every N steps")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _on_sigterm)

    dist.init_process_group("nccl")
    rank, local_rank = dist.get_rank(), int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    store = CheckpointStore.from_environment()

    model = DistributedDataParallel(nn.Linear(1024, 1024).to(device), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    step = 0
    found = store.latest()
    if found is not None:
        state = torch.load(store.load(found), map_location=device)
        model.module.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scaler.load_state_dict(state["scaler"])
        step = state["step"]

    total = args.epochs * args.steps_per_epoch
    while step < total and not _stopping(device):
        batch = torch.randn(64, 1024, device=device)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(batch).pow(2).mean()
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        step += 1
        if rank == 0 and step % args.every == 0:
            save(store, step, model.module, optimizer, scaler)
    if rank == 0:
        # Periodic checkpoints cover a crash; this one covers a drain (SIGTERM) and the end of training.
        save(store, step, model.module, optimizer, scaler)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
