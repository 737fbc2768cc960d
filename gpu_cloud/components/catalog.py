"""GPU instance catalog: the facts and prices of the GPU instance types gpu-cloud supports.

The facts live in ``catalog_data.json`` and the prices in ``prices.json`` beside this module. Each family,
price table and discount names the provider material it was read from and the date it was read. This module
only loads, validates and indexes those files, once, on first use. Whatever could not be sourced is absent:
lookups return ``None``, never a guess and never a zero price.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cache
from importlib import resources
from typing import Final, TypeVar

__all__ = [
    "Arch",
    "CatalogDataError",
    "Cloud",
    "InstanceType",
    "OnDemandPrice",
    "Source",
    "SpotDiscount",
    "families",
    "instance_types",
    "lookup",
    "price_of",
    "prices",
    "spot_discount",
    "spot_discounts",
]

_FACTS_FILE: Final = "catalog_data.json"
_PRICES_FILE: Final = "prices.json"
_SCHEMA_VERSION: Final = 1
_CURRENCIES: Final = frozenset({"USD", "CNY"})
# Factor from a documented unit to GiB. Alibaba Cloud documents GPU memory in "GB" ("24 GB x 1"); the
# documented figure is kept as-is because the docs do not say whether they mean decimal gigabytes.
_TO_GIB: Final[Mapping[str, Decimal]] = {"MiB": Decimal(1) / 1024, "GiB": Decimal(1), "GB": Decimal(1)}

_T = TypeVar("_T")
_Object = Mapping[str, object]


class Cloud(enum.StrEnum):
    """A cloud provider that gpu-cloud deploys GPU clusters to."""

    AWS = "aws"
    ALICLOUD = "alicloud"


class Arch(enum.StrEnum):
    """CPU architecture of an instance type (selects the x86_64 or the ARM NVIDIA node image)."""

    X86_64 = "x86_64"
    ARM64 = "arm64"


class CatalogDataError(ValueError):
    """The catalog or price file is invalid; ``problems`` lists every problem found, one per entry."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        super().__init__("invalid GPU catalog data:\n" + "\n".join(self.problems))


@dataclass(frozen=True)
class Source:
    """Where a fact or price was read.

    Attributes:
        url: The page or file read.
        read_on: The date it was read.
        note: What exactly was read there, and any caveat.
        as_of: The date the material itself states for its data, when it states one.
    """

    url: str
    read_on: date
    note: str
    as_of: date | None = None


@dataclass(frozen=True)
class InstanceType:
    """One GPU instance type and its documented hardware.

    Attributes:
        cloud: The cloud that offers it.
        name: The provider's instance type name, e.g. ``g5.xlarge`` or ``ecs.gn7i-c8g1.2xlarge``.
        family: The instance family, e.g. ``g5`` or ``gn7i``.
        gpu_model: The GPU, e.g. ``NVIDIA A10G``.
        gpu_count: Number of GPUs.
        gpu_memory_gib: Memory per GPU, in GiB.
        vcpu: Number of vCPUs.
        memory_gib: Host memory, in GiB.
        efa_interfaces: Maximum number of EFA interfaces (0: no EFA; always 0 on Alibaba Cloud).
        nvlink: Whether the GPUs are linked by NVLink/NVSwitch.
        arch: CPU architecture.
        source: Where the facts of its family were read.
        efa_rdma_read: Whether its EFA devices are documented to support RDMA read (GPUDirect RDMA through
            libfabric's ``FI_EFA_USE_DEVICE_RDMA``); False where not documented or without EFA.
        local_nvme_gb: Total NVMe instance store in GB (0: none); None where the catalog has no sourced figure.
    """

    cloud: Cloud
    name: str
    family: str
    gpu_model: str
    gpu_count: int
    gpu_memory_gib: float
    vcpu: int
    memory_gib: float
    efa_interfaces: int
    nvlink: bool
    arch: Arch
    source: Source
    efa_rdma_read: bool = False
    local_nvme_gb: int | None = None

    @property
    def gpu_class(self) -> str:
        """The GPU class; a spot group may only mix instance types of one class."""
        return self.gpu_model

    @property
    def has_efa(self) -> bool:
        """Whether the type supports at least one EFA interface."""
        return self.efa_interfaces > 0

    @property
    def has_local_nvme(self) -> bool:
        """Whether the type is documented to have NVMe instance store."""
        return bool(self.local_nvme_gb)


@dataclass(frozen=True)
class OnDemandPrice:
    """The on-demand list price of one instance type in one region.

    Attributes:
        cloud: The cloud.
        region: The region, e.g. ``us-east-1`` or ``cn-hangzhou``.
        instance_type: The instance type name.
        hourly: Price per instance-hour, always > 0.
        currency: ISO currency code, ``USD`` or ``CNY``.
        source: Where the price was read.
    """

    cloud: Cloud
    region: str
    instance_type: str
    hourly: Decimal
    currency: str
    source: Source


@dataclass(frozen=True)
class SpotDiscount:
    """A typical spot (preemptible) discount for an instance family. Always an estimate.

    Attributes:
        cloud: The cloud.
        family: The instance family.
        fraction: Typical discount off the on-demand price, between 0 and 1 (0.6 means 60% cheaper).
        basis: How the figure was derived.
        source: Where the underlying numbers were read.
        estimate: Always True: spot prices move with supply and demand.
    """

    cloud: Cloud
    family: str
    fraction: Decimal
    basis: str
    source: Source
    estimate: bool = True


@dataclass(frozen=True)
class _Catalog:
    types: Mapping[tuple[Cloud, str], InstanceType]
    prices: Mapping[tuple[Cloud, str, str], OnDemandPrice]
    discounts: Mapping[tuple[Cloud, str], SpotDiscount]


def lookup(cloud: Cloud, name: str) -> InstanceType | None:
    """Return the catalog entry for an instance type, or None if the catalog does not know it."""
    return _catalog().types.get((cloud, name))


def instance_types(cloud: Cloud) -> tuple[InstanceType, ...]:
    """Return every catalog instance type of a cloud, in data-file order."""
    return tuple(t for (c, _), t in _catalog().types.items() if c == cloud)


def families(cloud: Cloud) -> tuple[str, ...]:
    """Return the instance families of a cloud, in data-file order."""
    return tuple(dict.fromkeys(t.family for t in instance_types(cloud)))


def price_of(cloud: Cloud, region: str, name: str) -> OnDemandPrice | None:
    """Return the on-demand price of an instance type in a region, or None if no price was sourced."""
    return _catalog().prices.get((cloud, region, name))


def spot_discount(cloud: Cloud, family: str) -> SpotDiscount | None:
    """Return the estimated typical spot discount of a family, or None if none was sourced."""
    return _catalog().discounts.get((cloud, family))


def prices(cloud: Cloud) -> tuple[OnDemandPrice, ...]:
    """Return every on-demand price of a cloud, in data-file order."""
    return tuple(p for (c, _, _), p in _catalog().prices.items() if c == cloud)


def spot_discounts(cloud: Cloud) -> tuple[SpotDiscount, ...]:
    """Return every spot discount estimate of a cloud, in data-file order."""
    return tuple(d for (c, _), d in _catalog().discounts.items() if c == cloud)


@cache
def _catalog() -> _Catalog:
    return _build_catalog(_read_json(_FACTS_FILE), _read_json(_PRICES_FILE))


def _read_json(filename: str) -> object:
    text = resources.files("gpu_cloud.components").joinpath(filename).read_text(encoding="utf-8")
    return json.loads(text, parse_float=Decimal, object_pairs_hook=_reject_duplicate_keys)


def _reject_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [k for k, _ in pairs]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise CatalogDataError([f"duplicate JSON key {k!r}" for k in duplicates])
    return dict(pairs)


class _Reader:
    """Reads typed fields out of parsed JSON and collects every problem instead of stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def fail(self, path: str, message: str, value: object) -> None:
        self.problems.append(f"{path}: {message} (got {value!r})")

    def get(self, obj: Mapping[str, object], key: str, path: str, kind: type[_T]) -> _T | None:
        value = obj.get(key)
        # bool is an int subclass; a JSON true is never a count.
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return value
        self.fail(f"{path}.{key}", f"must be {kind.__name__}", value)
        return None

    def text(self, obj: Mapping[str, object], key: str, path: str) -> str | None:
        value = self.get(obj, key, path, str)
        if value is not None and not value.strip():
            self.fail(f"{path}.{key}", "must not be empty", value)
            return None
        return value

    def choice(self, obj: Mapping[str, object], key: str, path: str, parse: Callable[[str], _T]) -> _T | None:
        value = obj.get(key)
        try:
            if isinstance(value, str):
                return parse(value)
        except ValueError:
            pass
        self.fail(f"{path}.{key}", "is not a valid value", value)
        return None

    def positive(self, obj: Mapping[str, object], key: str, path: str) -> Decimal | None:
        value = obj.get(key)
        if isinstance(value, bool) or not isinstance(value, int | Decimal):
            self.fail(f"{path}.{key}", "must be a number", value)
            return None
        if value <= 0:
            self.fail(f"{path}.{key}", "must be > 0", value)
            return None
        return Decimal(value)

    def objects(self, obj: Mapping[str, object], key: str, path: str) -> list[tuple[str, _Object]]:
        """Return the objects of a JSON list field, each with its path."""
        items = self.get(obj, key, path, list)
        if items is None:
            return []
        if not items:
            self.fail(f"{path}.{key}", "must not be empty", items)
        found: list[tuple[str, _Object]] = []
        for i, item in enumerate(items):
            if isinstance(item, dict):
                found.append((f"{path}.{key}[{i}]", item))
            else:
                self.fail(f"{path}.{key}[{i}]", "must be an object", item)
        return found

    def source(self, obj: Mapping[str, object], path: str) -> Source | None:
        raw = self.get(obj, "source", path, dict)
        if raw is None:
            return None
        path = f"{path}.source"
        url = self.text(raw, "url", path)
        if url is not None and not url.startswith("https://"):
            self.fail(f"{path}.url", "must be an https URL", url)
            url = None
        read_on = self.choice(raw, "read_on", path, date.fromisoformat)
        note = self.text(raw, "note", path)
        as_of = None if raw.get("as_of") is None else self.choice(raw, "as_of", path, date.fromisoformat)
        if url is None or read_on is None or note is None:
            return None
        return Source(url=url, read_on=read_on, note=note, as_of=as_of)


def _root(reader: _Reader, raw: object, name: str) -> _Object:
    if not isinstance(raw, dict):
        reader.fail(name, "must be a JSON object", type(raw).__name__)
        return {}
    if raw.get("schema_version") != _SCHEMA_VERSION:
        reader.fail(f"{name}.schema_version", f"must be {_SCHEMA_VERSION}", raw.get("schema_version"))
    return raw


def _belongs_to_family(cloud: Cloud, family: str, name: str) -> bool:
    if cloud is Cloud.AWS:
        return name.split(".", 1)[0] == family
    # ecs.gn7i-c8g1.2xlarge, ecs.gn7i-2x.8xlarge, ecs.gn8is.2xlarge
    return name.startswith((f"ecs.{family}-", f"ecs.{family}."))


@dataclass(frozen=True)
class _Family:
    cloud: Cloud
    family: str
    gpu_model: str
    arch: Arch
    nvlink: bool
    memory_unit: str
    gpu_memory_unit: str
    source: Source
    efa_rdma_read: bool


def _read_family(reader: _Reader, path: str, raw: _Object) -> _Family | None:
    cloud = reader.choice(raw, "cloud", path, Cloud)
    family = reader.text(raw, "family", path)
    gpu_model = reader.text(raw, "gpu_model", path)
    arch = reader.choice(raw, "arch", path, Arch)
    nvlink = reader.get(raw, "nvlink", path, bool)
    basis = reader.text(raw, "nvlink_basis", path)
    rdma_read = reader.get(raw, "efa_rdma_read", path, bool)
    rdma_basis = reader.text(raw, "efa_rdma_read_basis", path)
    memory_unit = reader.choice(raw, "memory_unit", path, _unit)
    gpu_memory_unit = reader.choice(raw, "gpu_memory_unit", path, _unit)
    source = reader.source(raw, path)
    if (
        cloud is None
        or family is None
        or gpu_model is None
        or arch is None
        or nvlink is None
        or basis is None
        or rdma_read is None
        or rdma_basis is None
        or memory_unit is None
        or gpu_memory_unit is None
        or source is None
    ):
        return None
    if rdma_read and cloud is Cloud.ALICLOUD:
        reader.fail(f"{path}.efa_rdma_read", "must be false on Alibaba Cloud (no EFA)", rdma_read)
        return None
    return _Family(cloud, family, gpu_model, arch, nvlink, memory_unit, gpu_memory_unit, source, rdma_read)


def _read_type(reader: _Reader, path: str, raw: _Object, fam: _Family) -> InstanceType | None:
    name = reader.text(raw, "name", path)
    vcpu = reader.get(raw, "vcpu", path, int)
    gpu_count = reader.get(raw, "gpu_count", path, int)
    efa = reader.get(raw, "efa_interfaces", path, int)
    memory = reader.positive(raw, "memory", path)
    gpu_memory = reader.positive(raw, "gpu_memory", path)
    local_nvme = None if raw.get("local_nvme_gb") is None else reader.get(raw, "local_nvme_gb", path, int)
    valid = True
    for key, count in (("vcpu", vcpu), ("gpu_count", gpu_count)):
        if count is not None and count <= 0:
            reader.fail(f"{path}.{key}", "must be > 0", count)
            valid = False
    if local_nvme is not None and local_nvme < 0:
        reader.fail(f"{path}.local_nvme_gb", "must be >= 0", local_nvme)
        valid = False
    if efa is not None and (efa < 0 or (fam.cloud is Cloud.ALICLOUD and efa != 0)):
        reader.fail(f"{path}.efa_interfaces", "must be >= 0, and 0 on Alibaba Cloud", efa)
        valid = False
    if name is not None and not _belongs_to_family(fam.cloud, fam.family, name):
        reader.fail(f"{path}.name", f"is not a type of family {fam.family!r}", name)
        valid = False
    if (
        not valid
        or name is None
        or vcpu is None
        or gpu_count is None
        or efa is None
        or memory is None
        or gpu_memory is None
    ):
        return None
    return InstanceType(
        cloud=fam.cloud,
        name=name,
        family=fam.family,
        gpu_model=fam.gpu_model,
        gpu_count=gpu_count,
        gpu_memory_gib=float(gpu_memory * _TO_GIB[fam.gpu_memory_unit]),
        vcpu=vcpu,
        memory_gib=float(memory * _TO_GIB[fam.memory_unit]),
        efa_interfaces=efa,
        nvlink=fam.nvlink,
        arch=fam.arch,
        source=fam.source,
        efa_rdma_read=fam.efa_rdma_read and efa > 0,
        local_nvme_gb=local_nvme,
    )


def _read_types(reader: _Reader, facts: _Object) -> dict[tuple[Cloud, str], InstanceType]:
    types: dict[tuple[Cloud, str], InstanceType] = {}
    seen_families: set[tuple[Cloud, str]] = set()
    for path, raw_family in reader.objects(facts, "families", "catalog"):
        fam = _read_family(reader, path, raw_family)
        type_entries = reader.objects(raw_family, "types", path)
        if fam is None:
            continue
        if (fam.cloud, fam.family) in seen_families:
            reader.fail(f"{path}.family", f"duplicate family on {fam.cloud}", fam.family)
        seen_families.add((fam.cloud, fam.family))
        for type_path, raw_type in type_entries:
            instance_type = _read_type(reader, type_path, raw_type, fam)
            if instance_type is None:
                continue
            if (fam.cloud, instance_type.name) in types:
                reader.fail(f"{type_path}.name", f"duplicate instance type on {fam.cloud}", instance_type.name)
            types[(fam.cloud, instance_type.name)] = instance_type
    return types


def _unit(value: str) -> str:
    if value not in _TO_GIB:
        raise ValueError(value)
    return value


def _currency(value: str) -> str:
    if value not in _CURRENCIES:
        raise ValueError(value)
    return value


def _read_prices(
    reader: _Reader, prices: _Object, types: Mapping[tuple[Cloud, str], InstanceType], check_refs: bool
) -> dict[tuple[Cloud, str, str], OnDemandPrice]:
    found: dict[tuple[Cloud, str, str], OnDemandPrice] = {}
    tables: set[tuple[Cloud, str]] = set()
    for path, table in reader.objects(prices, "on_demand", "prices"):
        cloud = reader.choice(table, "cloud", path, Cloud)
        region = reader.text(table, "region", path)
        currency = reader.choice(table, "currency", path, _currency)
        source = reader.source(table, path)
        entries = reader.get(table, "prices", path, dict) or {}
        if cloud is None or region is None or currency is None or source is None:
            continue
        if (cloud, region) in tables:
            reader.fail(f"{path}.region", f"duplicate price table on {cloud}", region)
        tables.add((cloud, region))
        for name in entries:
            hourly = reader.positive(entries, name, f"{path}.prices")
            if (cloud, name) not in types:
                if check_refs:
                    reader.fail(f"{path}.prices.{name}", "is not a catalog instance type", name)
            elif hourly is not None:
                found[(cloud, region, name)] = OnDemandPrice(cloud, region, name, hourly, currency, source)
    return found


def _read_discounts(
    reader: _Reader, prices: _Object, types: Mapping[tuple[Cloud, str], InstanceType], check_refs: bool
) -> dict[tuple[Cloud, str], SpotDiscount]:
    known_families = {(t.cloud, t.family) for t in types.values()}
    found: dict[tuple[Cloud, str], SpotDiscount] = {}
    for path, raw in reader.objects(prices, "spot_discounts", "prices"):
        cloud = reader.choice(raw, "cloud", path, Cloud)
        family = reader.text(raw, "family", path)
        fraction = reader.positive(raw, "fraction", path)
        basis = reader.text(raw, "basis", path)
        source = reader.source(raw, path)
        estimate = raw.get("estimate")
        if estimate is not True:
            reader.fail(f"{path}.estimate", "must be true (spot discounts are estimates)", estimate)
        if fraction is not None and fraction >= 1:
            reader.fail(f"{path}.fraction", "must be < 1", fraction)
        if cloud is None or family is None or fraction is None or basis is None or source is None:
            continue
        if check_refs and (cloud, family) not in known_families:
            reader.fail(f"{path}.family", f"is not a catalog family on {cloud}", family)
        if (cloud, family) in found:
            reader.fail(f"{path}.family", f"duplicate spot discount on {cloud}", family)
        found[(cloud, family)] = SpotDiscount(cloud, family, fraction, basis, source)
    return found


def _build_catalog(facts: object, prices: object) -> _Catalog:
    """Validate both parsed data files and index them; raise CatalogDataError listing every problem."""
    reader = _Reader()
    types = _read_types(reader, _root(reader, facts, "catalog"))
    # Once the facts are broken, "not a catalog type" for a price is noise: check references only then.
    check_refs = not reader.problems
    price_root = _root(reader, prices, "prices")
    found_prices = _read_prices(reader, price_root, types, check_refs)
    discounts = _read_discounts(reader, price_root, types, check_refs)
    if reader.problems:
        raise CatalogDataError(reader.problems)
    return _Catalog(types=types, prices=found_prices, discounts=discounts)
