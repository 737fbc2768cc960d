"""``python -m gpucloud`` is the ``gpucloud`` command."""

from gpu_cloud.planner.cli import run

run()
