"""The team's own components package, named like the folder gpu-cloud's library once installed at top level."""
