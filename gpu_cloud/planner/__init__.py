"""The offline engine and CLI of gpu-cloud: run a Pulumi program without the CLI or a cloud account."""
