"""Specification of the GPU instance catalog (components/catalog.py and its data files)."""

from __future__ import annotations

import copy
import json
from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from gpu_cloud.components import catalog
from gpu_cloud.components.catalog import Arch, CatalogDataError, Cloud

AWS, ALI = Cloud.AWS, Cloud.ALICLOUD
X86, ARM = Arch.X86_64, Arch.ARM64

# Exact documented facts, as read from the sources named in components/catalog_data.json.
# cloud, name, gpu_model, gpus, GiB per GPU, vCPUs, memory GiB, EFA interfaces, NVLink, arch
FACTS = [
    (AWS, "g4dn.xlarge", "NVIDIA T4", 1, 16.0, 4, 16.0, 0, False, X86),
    (AWS, "g4dn.12xlarge", "NVIDIA T4", 4, 16.0, 48, 192.0, 1, False, X86),
    (AWS, "g4dn.metal", "NVIDIA T4", 8, 16.0, 96, 384.0, 1, False, X86),
    (AWS, "g5.xlarge", "NVIDIA A10G", 1, 22.3515625, 4, 16.0, 0, False, X86),
    (AWS, "g5.8xlarge", "NVIDIA A10G", 1, 22.3515625, 32, 128.0, 1, False, X86),
    (AWS, "g5.48xlarge", "NVIDIA A10G", 8, 22.3515625, 192, 768.0, 1, False, X86),
    (AWS, "g5g.xlarge", "NVIDIA T4G", 1, 16.0, 4, 8.0, 0, False, ARM),
    (AWS, "g5g.16xlarge", "NVIDIA T4G", 2, 16.0, 64, 128.0, 0, False, ARM),
    (AWS, "g6.xlarge", "NVIDIA L4", 1, 22.3515625, 4, 16.0, 0, False, X86),
    (AWS, "g6.48xlarge", "NVIDIA L4", 8, 22.3515625, 192, 768.0, 1, False, X86),
    (AWS, "g6e.xlarge", "NVIDIA L40S", 1, 44.703125, 4, 32.0, 0, False, X86),
    (AWS, "g6e.24xlarge", "NVIDIA L40S", 4, 44.703125, 96, 768.0, 2, False, X86),
    (AWS, "g6e.48xlarge", "NVIDIA L40S", 8, 44.703125, 192, 1536.0, 4, False, X86),
    (AWS, "p4d.24xlarge", "NVIDIA A100", 8, 40.0, 96, 1152.0, 4, True, X86),
    (AWS, "p4de.24xlarge", "NVIDIA A100", 8, 80.0, 96, 1152.0, 4, True, X86),
    (AWS, "p5.48xlarge", "NVIDIA H100", 8, 80.0, 192, 2048.0, 32, True, X86),
    (ALI, "ecs.gn6i-c4g1.xlarge", "NVIDIA T4", 1, 16.0, 4, 15.0, 0, False, X86),
    (ALI, "ecs.gn6i-c24g1.24xlarge", "NVIDIA T4", 4, 16.0, 96, 372.0, 0, False, X86),
    (ALI, "ecs.gn7i-c8g1.2xlarge", "NVIDIA A10", 1, 24.0, 8, 30.0, 0, False, X86),
    (ALI, "ecs.gn7i-c32g1.32xlarge", "NVIDIA A10", 4, 24.0, 128, 752.0, 0, False, X86),
    (ALI, "ecs.gn7i-8x.32xlarge", "NVIDIA A10", 8, 24.0, 128, 512.0, 0, False, X86),
    (ALI, "ecs.gn8is.2xlarge", "NVIDIA L20", 1, 48.0, 8, 64.0, 0, False, X86),
    (ALI, "ecs.gn8is-8x.32xlarge", "NVIDIA L20", 8, 48.0, 128, 1024.0, 0, False, X86),
]


@pytest.mark.parametrize(
    ("cloud", "name", "gpu_model", "gpus", "gpu_gib", "vcpu", "memory_gib", "efa", "nvlink", "arch"), FACTS
)
def test_documented_facts(
    cloud: Cloud,
    name: str,
    gpu_model: str,
    gpus: int,
    gpu_gib: float,
    vcpu: int,
    memory_gib: float,
    efa: int,
    nvlink: bool,
    arch: Arch,
) -> None:
    t = catalog.lookup(cloud, name)
    assert t is not None
    assert (t.cloud, t.name, t.gpu_model, t.gpu_count, t.gpu_memory_gib) == (
        cloud,
        name,
        gpu_model,
        gpus,
        gpu_gib,
    )
    assert (t.vcpu, t.memory_gib, t.efa_interfaces, t.nvlink, t.arch) == (vcpu, memory_gib, efa, nvlink, arch)


def test_cloud_values_are_the_spec_strings() -> None:
    assert [c.value for c in Cloud] == ["aws", "alicloud"]


def test_families_per_cloud() -> None:
    assert catalog.families(AWS) == ("g4dn", "g5", "g5g", "g6", "g6e", "p4d", "p4de", "p5")
    assert catalog.families(ALI) == ("gn6i", "gn7i", "gn8is")


def test_aws_families_list_every_size() -> None:
    sizes = {f: [t.name for t in catalog.instance_types(AWS) if t.family == f] for f in ("g5", "g5g")}
    assert sizes == {
        "g5": [f"g5.{s}" for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge")]
        + ["g5.48xlarge"],
        "g5g": ["g5g.xlarge", "g5g.2xlarge", "g5g.4xlarge", "g5g.8xlarge", "g5g.16xlarge", "g5g.metal"],
    }


def test_instance_types_belong_to_their_cloud() -> None:
    assert len(catalog.instance_types(AWS)) == 40
    assert len(catalog.instance_types(ALI)) == 24
    assert {t.cloud for t in catalog.instance_types(AWS)} == {AWS}


@pytest.mark.parametrize(
    ("cloud", "name"),
    [
        (AWS, "m5.large"),
        (AWS, "ecs.gn7i-c8g1.2xlarge"),  # an Alibaba type asked of AWS
        (ALI, "g5.xlarge"),
        # Left out on purpose: a fact could not be sourced (see the catalog commit message).
        (AWS, "p5e.48xlarge"),
        (AWS, "p5.4xlarge"),
        (ALI, "ecs.gn7e-c16g1.4xlarge"),
    ],
)
def test_lookup_of_unknown_type_returns_none(cloud: Cloud, name: str) -> None:
    assert catalog.lookup(cloud, name) is None


def test_gpu_class_is_the_gpu_model() -> None:
    t = catalog.lookup(AWS, "p4de.24xlarge")
    assert t is not None and t.gpu_class == "NVIDIA A100"


def test_has_efa_follows_efa_interfaces() -> None:
    assert {t.name for t in catalog.instance_types(AWS) if t.has_efa} >= {"p5.48xlarge", "g6e.48xlarge"}
    assert not any(t.has_efa for t in catalog.instance_types(ALI))
    assert all(t.has_efa == (t.efa_interfaces > 0) for t in catalog.instance_types(AWS))


def test_every_type_has_a_source_and_read_date() -> None:
    for cloud in Cloud:
        for t in catalog.instance_types(cloud):
            assert t.source.url.startswith("https://"), t.name
            assert t.source.read_on == date(2026, 12, 2), t.name
            assert t.source.note, t.name


def test_known_prices() -> None:
    p5 = catalog.price_of(AWS, "us-east-1", "p5.48xlarge")
    assert p5 is not None
    assert (p5.hourly, p5.currency, p5.region) == (Decimal("55.04"), "USD", "us-east-1")
    assert p5.source.as_of == date(2026, 2, 9)
    g6e = catalog.price_of(AWS, "us-west-2", "g6e.xlarge")
    assert g6e is not None and g6e.hourly == Decimal("1.861")


# Exact us-west-2 list prices, as read from the SkyPilot snapshot named in components/prices.json.
US_WEST_2 = [
    ("g4dn.metal", "7.824"),
    ("g5.48xlarge", "16.288"),
    ("g5g.xlarge", "0.42"),
    ("g5g.metal", "2.744"),
    ("g6.xlarge", "0.8048"),
    ("g6.48xlarge", "13.3504"),
    ("g6e.2xlarge", "2.24208"),
    ("g6e.24xlarge", "15.06559"),
]


@pytest.mark.parametrize(("name", "hourly"), US_WEST_2)
def test_documented_us_west_2_prices(name: str, hourly: str) -> None:
    price = catalog.price_of(AWS, "us-west-2", name)
    assert price is not None
    assert (price.hourly, price.currency) == (Decimal(hourly), "USD")


def test_us_west_2_prices_every_g_family_type_and_no_p_family_type() -> None:
    priced = {t.name for t in catalog.instance_types(AWS) if catalog.price_of(AWS, "us-west-2", t.name)}
    assert {t.name for t in catalog.instance_types(AWS)} - priced == {
        "p4d.24xlarge",
        "p4de.24xlarge",
        "p5.48xlarge",
    }


@pytest.mark.parametrize(
    ("cloud", "region", "name"),
    [
        (AWS, "eu-west-1", "g5.xlarge"),  # region not priced
        (AWS, "us-west-2", "p5.48xlarge"),  # the only us-west-2 source is stale for P families
        (ALI, "cn-hangzhou", "ecs.gn7i-c8g1.2xlarge"),  # no Alibaba price could be sourced
        (AWS, "us-east-1", "m5.large"),  # not a catalog type
    ],
)
def test_unsourced_price_is_absent_not_zero(cloud: Cloud, region: str, name: str) -> None:
    assert catalog.price_of(cloud, region, name) is None


def test_every_catalog_type_has_a_us_east_1_price() -> None:
    missing = [t.name for t in catalog.instance_types(AWS) if catalog.price_of(AWS, "us-east-1", t.name) is None]
    assert missing == []


def test_every_price_is_positive_with_source_and_date() -> None:
    prices = [
        p
        for cloud in Cloud
        for region in ("us-east-1", "us-west-2", "cn-hangzhou", "cn-shanghai")
        for t in catalog.instance_types(cloud)
        if (p := catalog.price_of(cloud, region, t.name)) is not None
    ]
    assert prices
    for p in prices:
        assert p.hourly > 0, p
        assert p.currency in {"USD", "CNY"}, p
        assert p.source.url.startswith("https://") and isinstance(p.source.read_on, date), p


@pytest.mark.parametrize(
    ("family", "fraction"),
    [("g4dn", "0.64"), ("g5", "0.55"), ("g5g", "0.65"), ("g6", "0.57"), ("g6e", "0.62")],
)
def test_documented_spot_discount_estimates(family: str, fraction: str) -> None:
    discount = catalog.spot_discount(AWS, family)
    assert discount is not None
    assert (discount.fraction, discount.estimate) == (Decimal(fraction), True)


def test_spot_discounts_are_estimates_between_zero_and_one() -> None:
    discounts = [d for cloud in Cloud for f in catalog.families(cloud) if (d := catalog.spot_discount(cloud, f))]
    assert {d.family for d in discounts} == {"g4dn", "g5", "g5g", "g6", "g6e"}
    for d in discounts:
        assert d.estimate is True
        assert Decimal(0) < d.fraction < Decimal(1)
        assert d.basis and d.source.url.startswith("https://")


@pytest.mark.parametrize(
    ("cloud", "family"),
    [(AWS, "p4d"), (AWS, "p4de"), (AWS, "p5"), (ALI, "gn6i"), (ALI, "gn7i"), (ALI, "gn8is")],
)
def test_spot_discount_of_unsourced_family_is_none(cloud: Cloud, family: str) -> None:
    assert catalog.spot_discount(cloud, family) is None


# Validation of the data files, on small fixtures built from a valid pair.

SOURCE = {"url": "https://example.com/doc", "read_on": "2026-12-02", "note": "read there"}


def _facts() -> dict[str, Any]:
    family = {
        "cloud": "aws",
        "family": "g5",
        "gpu_model": "NVIDIA A10G",
        "arch": "x86_64",
        "nvlink": False,
        "nvlink_basis": "not documented",
        "efa_rdma_read": False,
        "efa_rdma_read_basis": "not documented",
        "memory_unit": "MiB",
        "gpu_memory_unit": "MiB",
        "source": dict(SOURCE),
        "types": [
            {
                "name": "g5.xlarge",
                "vcpu": 4,
                "memory": 16384,
                "gpu_count": 1,
                "gpu_memory": 22888,
                "efa_interfaces": 0,
            }
        ],
    }
    return {"schema_version": 1, "families": [family]}


def _prices() -> dict[str, Any]:
    table = {
        "cloud": "aws",
        "region": "us-east-1",
        "currency": "USD",
        "source": dict(SOURCE),
        "prices": {"g5.xlarge": Decimal("1.006")},
    }
    discount = {
        "cloud": "aws",
        "family": "g5",
        "fraction": Decimal("0.5"),
        "estimate": True,
        "basis": "sampled",
        "source": dict(SOURCE),
    }
    return {"schema_version": 1, "on_demand": [table], "spot_discounts": [discount]}


def _problems(facts: dict[str, Any], prices: dict[str, Any]) -> tuple[str, ...]:
    with pytest.raises(CatalogDataError) as raised:
        catalog._build_catalog(facts, prices)
    return raised.value.problems


def test_valid_fixture_builds() -> None:
    built = catalog._build_catalog(_facts(), _prices())
    assert list(built.types) == [(AWS, "g5.xlarge")]


@pytest.mark.parametrize(
    ("name", "rdma_read"),
    [
        ("p5.48xlarge", True),
        ("p4d.24xlarge", True),
        ("p4de.24xlarge", True),
        ("g5.12xlarge", False),
        ("g4dn.12xlarge", False),
        ("g6e.48xlarge", False),
        # The family's EFA types read with RDMA; its types without EFA read nothing.
        ("g5.xlarge", False),
    ],
)
def test_efa_rdma_read_is_a_documented_family_fact(name: str, rdma_read: bool) -> None:
    found = catalog.lookup(AWS, name)
    assert found is not None
    assert found.efa_rdma_read is rdma_read


@pytest.mark.parametrize(
    ("name", "local_nvme_gb"),
    [
        ("p5.48xlarge", 30400),
        ("p4d.24xlarge", 8000),
        ("p4de.24xlarge", 8000),
        ("g5.xlarge", 250),
        ("g5.12xlarge", 3800),
        ("g6.xlarge", 250),
        ("g6.48xlarge", 7520),
        ("g6e.48xlarge", 7600),
        ("g4dn.xlarge", 125),
        ("g5g.xlarge", 0),  # no instance-local-nvme label: no NVMe instance store
    ],
)
def test_local_nvme_instance_store_is_a_documented_type_fact(name: str, local_nvme_gb: int) -> None:
    found = catalog.lookup(AWS, name)
    assert found is not None
    assert (found.local_nvme_gb, found.has_local_nvme) == (local_nvme_gb, local_nvme_gb > 0)


def test_every_aws_type_has_a_local_nvme_figure_and_no_alibaba_type_has_one() -> None:
    assert all(t.local_nvme_gb is not None for t in catalog.instance_types(AWS))
    assert all(t.local_nvme_gb is None and not t.has_local_nvme for t in catalog.instance_types(ALI))


def test_a_negative_or_non_integer_local_nvme_figure_is_rejected() -> None:
    facts = _facts()
    facts["families"][0]["types"][0]["local_nvme_gb"] = -1
    assert _problems(facts, _prices()) == ("catalog.families[0].types[0].local_nvme_gb: must be >= 0 (got -1)",)
    facts["families"][0]["types"][0]["local_nvme_gb"] = "250"
    assert _problems(facts, _prices()) == ("catalog.families[0].types[0].local_nvme_gb: must be int (got '250')",)


def test_no_alibaba_type_reads_with_efa_rdma() -> None:
    assert not any(t.efa_rdma_read for t in catalog.instance_types(ALI))


def test_rdma_read_on_alibaba_cloud_is_rejected() -> None:
    facts = _facts()
    family = facts["families"][0]
    family.update(cloud="alicloud", family="gn7i", efa_rdma_read=True)
    family["types"][0]["name"] = "ecs.gn7i-c8g1.2xlarge"
    assert _problems(facts, _prices())[0] == (
        "catalog.families[0].efa_rdma_read: must be false on Alibaba Cloud (no EFA) (got True)"
    )


def test_duplicate_instance_type_is_rejected() -> None:
    facts = _facts()
    types = facts["families"][0]["types"]
    types.append(copy.deepcopy(types[0]))
    assert _problems(facts, _prices()) == (
        "catalog.families[0].types[1].name: duplicate instance type on aws (got 'g5.xlarge')",
    )


def test_every_problem_is_reported_at_once() -> None:
    facts = _facts()
    facts["families"][0]["types"][0].update(gpu_count=0, vcpu=0)
    prices = _prices()
    prices["on_demand"][0]["prices"]["g5.xlarge"] = Decimal(0)
    assert _problems(facts, prices) == (
        "catalog.families[0].types[0].vcpu: must be > 0 (got 0)",
        "catalog.families[0].types[0].gpu_count: must be > 0 (got 0)",
        "prices.on_demand[0].prices.g5.xlarge: must be > 0 (got Decimal('0'))",
    )


def test_family_without_https_source_is_rejected() -> None:
    facts = _facts()
    facts["families"][0]["source"]["url"] = "http://example.com"
    assert _problems(facts, _prices()) == (
        "catalog.families[0].source.url: must be an https URL (got 'http://example.com')",
    )


def test_type_outside_its_family_is_rejected() -> None:
    facts = _facts()
    facts["families"][0]["types"][0]["name"] = "g6.xlarge"
    problems = _problems(facts, _prices())
    assert problems[0] == "catalog.families[0].types[0].name: is not a type of family 'g5' (got 'g6.xlarge')"


def test_alibaba_type_with_efa_is_rejected() -> None:
    facts = _facts()
    family = facts["families"][0]
    family.update(cloud="alicloud", family="gn7i", memory_unit="GiB", gpu_memory_unit="GB")
    family["types"] = [
        {
            "name": "ecs.gn7i-c8g1.2xlarge",
            "vcpu": 8,
            "memory": 30,
            "gpu_count": 1,
            "gpu_memory": 24,
            "efa_interfaces": 1,
        }
    ]
    prices = _prices()
    prices["on_demand"], prices["spot_discounts"] = [], []
    assert "catalog.families[0].types[0].efa_interfaces: must be >= 0, and 0 on Alibaba Cloud (got 1)" in (
        _problems(facts, prices)
    )


@pytest.mark.parametrize("price", [Decimal(0), Decimal("-1.5")])
def test_zero_or_negative_price_is_rejected(price: Decimal) -> None:
    prices = _prices()
    prices["on_demand"][0]["prices"]["g5.xlarge"] = price
    assert _problems(_facts(), prices) == (f"prices.on_demand[0].prices.g5.xlarge: must be > 0 (got {price!r})",)


def test_price_for_unknown_type_is_rejected() -> None:
    prices = _prices()
    prices["on_demand"][0]["prices"]["g5.96xlarge"] = Decimal("9")
    assert _problems(_facts(), prices) == (
        "prices.on_demand[0].prices.g5.96xlarge: is not a catalog instance type (got 'g5.96xlarge')",
    )


def test_price_without_read_date_is_rejected() -> None:
    prices = _prices()
    del prices["on_demand"][0]["source"]["read_on"]
    assert _problems(_facts(), prices) == ("prices.on_demand[0].source.read_on: is not a valid value (got None)",)


def test_spot_discount_must_be_an_estimate_below_one() -> None:
    prices = _prices()
    prices["spot_discounts"][0].update(estimate=False, fraction=Decimal("1.2"))
    assert _problems(_facts(), prices) == (
        "prices.spot_discounts[0].estimate: must be true (spot discounts are estimates) (got False)",
        "prices.spot_discounts[0].fraction: must be < 1 (got Decimal('1.2'))",
    )


def test_duplicate_json_key_is_rejected() -> None:
    with pytest.raises(CatalogDataError) as raised:
        json.loads('{"g5.xlarge": 1, "g5.xlarge": 2}', object_pairs_hook=catalog._reject_duplicate_keys)
    assert raised.value.problems == ("duplicate JSON key 'g5.xlarge'",)
