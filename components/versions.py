"""Every pinned version in one place: Kubernetes, EKS/ACK add-ons, AMI types, Helm charts, images.

Bumping a value here is a deliberate change (node images roll, charts upgrade); each value cites where
it was read.
"""

# --- EKS (AWS) -----------------------------------------------------------------------------------


# --- ACK (Alibaba Cloud) -------------------------------------------------------------------------


# --- Kubernetes layer: Helm charts and images -----------------------------------------------------
