"""Which controller builds a LoadBalancer Service's load balancer, and how that controller reads the Service.

tls-1-3 and no-public-ip judge a ``kubernetes:core/v1:Service`` of ``spec.type`` LoadBalancer as the controller that
builds its load balancer reads it, each modelled on that controller's source at a tag (read 2026-12-03):

- **AWS, in tree**: kubernetes/cloud-provider-aws v1.36.1 (2026-07-15), the cloud controller manager EKS runs.
  The cloud-provider service controller skips every Service with a ``spec.loadBalancerClass``
  (kubernetes/cloud-provider v0.36.0 controllers/service/controller.go:863-864). An NLB when
  ``aws-load-balancer-type`` is exactly ``nlb`` (pkg/providers/v1/aws_loadbalancer.go:84-89); ``nlb-ip`` and
  ``external`` are left to the AWS Load Balancer Controller (aws_loadbalancer.go:91-96); any other value (``NLB``,
  ``clb``, none) is a classic ELB.
- **AWS Load Balancer Controller**: kubernetes-sigs/aws-load-balancer-controller v3.5.0 (2026-08-03). It builds the
  Services whose ``spec.loadBalancerClass`` is its class (``service.k8s.aws/nlb`` by default, pkg/config/
  service_config.go:7), or, without a class, whose type is ``nlb-ip``, or ``external`` with
  ``aws-load-balancer-nlb-target-type`` ``ip`` or ``instance`` (pkg/service/service_utils.go:47-77). The pack assumes
  the default class; a cluster whose controller's service mutator webhook rewrites classes should set the class on
  the Service itself.
- **Alibaba Cloud**: kubernetes/cloud-provider-alibaba-cloud v2.14.0 (ACK's cloud controller manager). An NLB when
  ``spec.loadBalancerClass`` is ``alibabacloud.com/nlb``, a CLB when there is no class and no
  ``service.beta.kubernetes.io/class`` annotation (pkg/controller/helper/service_utils.go:36, 98-125; the
  ``alibaba-cloud-loadbalancer-type`` annotation counts only behind the alpha feature gate LoadBalancerTypeAnnotation,
  off by default: pkg/config/feature_gates.go:27). It reads ``service.beta.kubernetes.io/alibaba-cloud-<key>`` and
  then the legacy ``service.beta.kubernetes.io/alicloud-<key>`` (pkg/controller/service/reconcile/annotation/
  annotations.go:19-21, 150-172, 227-229).

A Service is an Alibaba Cloud one when its class starts with ``alibabacloud.com/`` or, without a class, any
annotation key has one of the two Alibaba prefixes; otherwise an AWS one. Annotation keys and values are read exactly
as the controllers read them (Go map lookups and ``==``), case-sensitively, unless a function here says otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Final

from .values import Undecided, as_object, as_text, equals, is_unknown

__all__ = [
    "AWS_ANNOTATION",
    "Controller",
    "LoadBalancerService",
    "NoLoadBalancer",
    "load_balancer_service",
]

AWS_ANNOTATION: Final = "service.beta.kubernetes.io/aws-load-balancer-"
"""The prefix of every AWS controller annotation the rules read (``aws-load-balancer-type`` ...)."""
ALIBABA_PREFIXES: Final = ("service.beta.kubernetes.io/alibaba-cloud-", "service.beta.kubernetes.io/alicloud-")
"""The ACK cloud controller manager's annotation prefixes, current first (annotations.go:19-21)."""
ALIBABA_CLASS_PREFIX: Final = "alibabacloud.com/"
ALIBABA_NLB_CLASS: Final = "alibabacloud.com/nlb"
ALIBABA_CLASS_ANNOTATION: Final = "service.beta.kubernetes.io/class"
AWS_LBC_CLASS: Final = "service.k8s.aws/nlb"


class Controller(Enum):
    """The controller that builds a LoadBalancer Service's load balancer."""

    AWS_CLASSIC = "the in-tree AWS controller (classic ELB)"
    AWS_NLB = "the in-tree AWS controller (NLB)"
    AWS_LBC = "the AWS Load Balancer Controller (NLB)"
    ALIBABA_CLB = "ACK's cloud controller manager (CLB)"
    ALIBABA_NLB = "ACK's cloud controller manager (NLB)"

    @property
    def aws(self) -> bool:
        """Whether an AWS controller builds it."""
        return self in (Controller.AWS_CLASSIC, Controller.AWS_NLB, Controller.AWS_LBC)


class NoLoadBalancer(Exception):
    """No controller builds a load balancer for the Service as written (the message says why)."""


@dataclass(frozen=True)
class LoadBalancerService:
    """A LoadBalancer Service, the controller that builds it, and its annotations and spec."""

    controller: Controller
    annotations: Mapping[str, object]
    spec: Mapping[str, object]

    def aws(self, key: str) -> str | None:
        """The AWS annotation ``aws-load-balancer-<key>`` exactly as written (None if absent); unknown: `Undecided`."""
        name = f"{AWS_ANNOTATION}{key}"
        return self._text(name)

    def alibaba_name(self, key: str) -> str:
        """The name under which the Service gives the ACK annotation ``loadbalancer-<key>``: the current prefix's if
        present, else the legacy prefix's if present, else the current one's."""
        names = [f"{prefix}loadbalancer-{key}" for prefix in ALIBABA_PREFIXES]
        return next((name for name in names if self.annotations.get(name) is not None), names[0])

    def alibaba(self, key: str) -> tuple[str, str | None]:
        """``(annotation name, value)`` of the ACK annotation ``loadbalancer-<key>`` (`alibaba_name`)."""
        name = self.alibaba_name(key)
        return name, self._text(name)

    def _text(self, name: str) -> str | None:
        value = self.annotations.get(name)
        if value is None:
            return None
        if is_unknown(value):
            raise Undecided(f"metadata.annotations[{name}]")
        if not isinstance(value, str):
            raise Undecided(f"metadata.annotations[{name}]", f"is not a string (got {value!r})")
        return value


def load_balancer_service(props: Mapping[str, object]) -> LoadBalancerService | None:
    """The Service's load balancer controller; None when ``spec.type`` is not LoadBalancer.

    Raises:
        NoLoadBalancer: no controller builds one for it as written.
        Undecided: its class, or an annotation that decides the controller, is unknown or no class the pack models.
    """
    spec = as_object(props.get("spec"), "spec")
    if not equals(spec.get("type"), "LoadBalancer", "spec.type"):  # the API server takes LoadBalancer only
        return None
    annotations = as_object(as_object(props.get("metadata"), "metadata").get("annotations"), "metadata.annotations")
    service_class = as_text(spec.get("loadBalancerClass"), "spec.loadBalancerClass")
    if service_class is not None:
        return LoadBalancerService(_by_class(service_class), annotations, spec)
    if any(str(key).startswith(ALIBABA_PREFIXES) for key in annotations):
        if as_text(annotations.get(ALIBABA_CLASS_ANNOTATION), f"metadata.annotations[{ALIBABA_CLASS_ANNOTATION}]"):
            raise Undecided(
                f"metadata.annotations[{ALIBABA_CLASS_ANNOTATION}]",
                "leaves the Service to a controller the pack does not model",
            )
        return LoadBalancerService(Controller.ALIBABA_CLB, annotations, spec)
    service = LoadBalancerService(Controller.AWS_CLASSIC, annotations, spec)
    kind = service.aws("type")
    if kind == "nlb":
        return LoadBalancerService(Controller.AWS_NLB, annotations, spec)
    if kind == "nlb-ip":
        return LoadBalancerService(Controller.AWS_LBC, annotations, spec)
    if kind == "external":
        if service.aws("nlb-target-type") in ("ip", "instance"):
            return LoadBalancerService(Controller.AWS_LBC, annotations, spec)
        raise NoLoadBalancer(
            f"{AWS_ANNOTATION}type is external without {AWS_ANNOTATION}nlb-target-type ip or instance: neither AWS "
            "controller builds a load balancer for it"
        )
    return service


def _by_class(service_class: str) -> Controller:
    if service_class == AWS_LBC_CLASS:
        return Controller.AWS_LBC
    if service_class == ALIBABA_NLB_CLASS:
        return Controller.ALIBABA_NLB
    raise Undecided(
        "spec.loadBalancerClass",
        f"is {service_class!r}, no class the pack models ({AWS_LBC_CLASS}, {ALIBABA_NLB_CLASS})",
    )
