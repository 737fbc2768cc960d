"""``python -m gpucloud`` is the ``gpucloud`` command."""

from gpucloud.cli import main

raise SystemExit(main())
