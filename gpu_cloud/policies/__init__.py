"""The gpu-cloud policy pack (run it with ``pulumi preview --policy-pack policies`` or ``gpucloud plan``)."""
