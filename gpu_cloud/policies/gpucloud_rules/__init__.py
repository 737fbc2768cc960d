"""The rules of the gpu-cloud policy pack: one module per policy, wrapped for pulumi-policy in `sdk`.

Inside the pack this package is imported as the top-level ``gpucloud_rules`` (the CLI puts the pack
folder on ``sys.path``), from the distribution as ``policies.gpucloud_rules``: modules here use only
relative imports so both work.
"""
