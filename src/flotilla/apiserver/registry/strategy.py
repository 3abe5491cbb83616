"""Kind-specific steps of a write (kube's REST strategies): defaults, preparation, validation.

Every write runs the same pipeline (see `writes.py`); what differs by kind lives here. Built-in kinds
get Kubernetes' defaults and validation from `defaults` and `validation`; custom resources get their
schema's defaults (applied during the schema walk) and metadata validation. A few kinds need the
server's state to prepare an object — a Service's cluster IP, a namespace's phase — and get it
through the `StrategyEnv` passed in.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from flotilla.api.fielderrors import FieldError, required
from flotilla.api.scheme import GroupResource, GroupVersionKind
from flotilla.apiserver.registry.cel.schemachecks import rule_errors
from flotilla.apiserver.registry.defaults import apply_defaults, prepare_for_create
from flotilla.apiserver.registry.karmada.rules import CUSTOM_RESOURCE_RULES, CustomResourceRules
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.registry.schema.structural import structural_errors
from flotilla.apiserver.registry.tables import printer_column_errors
from flotilla.apiserver.registry.validation import validate_create, validate_update
from flotilla.apiserver.registry.validation.apiextensions import stored_versions_errors
from flotilla.apiserver.registry.validation.metadata import validate_object_meta, validate_object_meta_update


class ObjectLister(Protocol):
    def __call__(self, served: ServedResource, namespace: str = "") -> list[dict[str, Any]]: ...


@dataclass(frozen=True, slots=True)
class StrategyEnv:
    """What kind-specific preparation may consult."""

    list_objects: Callable[[GroupResource, str], list[dict[str, Any]]]
    service_cidr: str = "10.96.0.0/12"
    node_port_range: tuple[int, int] = (30000, 32767)
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)


class Strategy:
    """The default strategy: built-in defaults and validation, or schema-driven custom resources."""

    def __init__(
        self,
        served: ServedResource,
        custom_rules: Mapping[GroupVersionKind, CustomResourceRules] = CUSTOM_RESOURCE_RULES,
    ) -> None:
        self.served = served
        # Custom resources of some kinds (Karmada's) have built-in admission rules; the server
        # passes the table built for its settings.
        self.rules: CustomResourceRules | None = None if served.builtin else custom_rules.get(served.type.gvk)

    def default(self, obj: dict[str, Any]) -> None:
        if self.served.builtin:
            apply_defaults(self.served.type.gvk, obj)
        elif self.rules:
            self.rules.default(obj)

    def prepare_create(self, obj: dict[str, Any], env: StrategyEnv) -> None:
        """Fill what the server derives for a new object (after defaults, before validation)."""
        if self.served.builtin:
            prepare_for_create(self.served.type.gvk, obj)
        elif self.rules:
            self.rules.prepare_create(obj, env.clock())

    def prepare_update(
        self, new: dict[str, Any], old: dict[str, Any], env: StrategyEnv, subresource: str = ""
    ) -> None:
        """Carry over what clients may not change on update (`subresource`: the endpoint written)."""
        if self.rules:
            self.rules.prepare_update(new, old, env.clock())

    def validate_create(self, obj: dict[str, Any]) -> list[FieldError]:
        if self.served.builtin:
            return validate_create(self.served.type.gvk, obj)
        found = validate_object_meta(obj, namespaced=self.served.namespaced, kube_finalizers=False)
        return found + self.rules.validate_create(obj) if self.rules else found

    def validate_update(
        self, new: dict[str, Any], old: dict[str, Any], subresource: str = ""
    ) -> list[FieldError]:
        """What is wrong with the update (`subresource`: the endpoint written).

        A built-in kind's status write changes only its status (the pipeline keeps the rest as
        stored), and kube's status strategies check only object metadata and status there; the kinds'
        rules here have nothing for status, so such a write is checked for its metadata alone
        instead of walking a spec that cannot have changed (a pod template, say) again."""
        if self.served.builtin:
            if subresource == "status":
                return validate_object_meta_update(new, old)
            return validate_update(self.served.type.gvk, new, old)
        found = validate_object_meta(
            new, namespaced=self.served.namespaced, kube_finalizers=False
        ) + validate_object_meta_update(new, old)
        return found + self.rules.validate_update(new, old) if self.rules else found


class NamespaceStrategy(Strategy):
    def prepare_create(self, obj: dict[str, Any], env: StrategyEnv) -> None:
        super().prepare_create(obj, env)
        obj["status"] = {"phase": "Active"}
        name = obj.get("metadata", {}).get("name", "")
        obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = name

    def prepare_update(
        self, new: dict[str, Any], old: dict[str, Any], env: StrategyEnv, subresource: str = ""
    ) -> None:
        # spec.finalizers change only through /finalize; the name label always names the namespace.
        if subresource != "finalize":
            new.setdefault("spec", {})["finalizers"] = (old.get("spec") or {}).get("finalizers", [])
        name = new.get("metadata", {}).get("name", "")
        new["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = name


class ServiceStrategy(Strategy):
    """Allocates cluster IPs and node ports as kube-apiserver's service registry does."""

    def prepare_create(self, obj: dict[str, Any], env: StrategyEnv) -> None:
        super().prepare_create(obj, env)
        spec = obj.setdefault("spec", {})
        kind = spec.get("type", "ClusterIP")
        if kind == "ExternalName":
            return
        if spec.get("clusterIP") in (None, ""):
            used = {
                (s.get("spec") or {}).get("clusterIP")
                for s in env.list_objects(GroupResource("", "services"), "")
            }
            ip = _allocate_ip(env.service_cidr, used)
            spec["clusterIP"] = ip
            spec["clusterIPs"] = [ip]
        elif spec.get("clusterIP") == "None":
            spec["clusterIPs"] = ["None"]
        else:
            spec.setdefault("clusterIPs", [spec["clusterIP"]])
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")
        if kind in ("NodePort", "LoadBalancer"):
            used_ports = {
                p.get("nodePort")
                for s in env.list_objects(GroupResource("", "services"), "")
                for p in (s.get("spec") or {}).get("ports") or []
            }
            low, high = env.node_port_range
            candidates = (port for port in range(low, high + 1) if port not in used_ports)
            for port in spec.get("ports") or []:
                if not port.get("nodePort"):
                    port["nodePort"] = next(candidates, 0)
                    used_ports.add(port["nodePort"])
        if kind == "LoadBalancer":
            obj.setdefault("status", {}).setdefault("loadBalancer", {})
        else:
            obj["status"] = {"loadBalancer": {}}

    def prepare_update(
        self, new: dict[str, Any], old: dict[str, Any], env: StrategyEnv, subresource: str = ""
    ) -> None:
        old_spec = old.get("spec") or {}
        spec = new.setdefault("spec", {})
        for name in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
            if name in old_spec and spec.get(name) in (None, "", []):
                spec[name] = old_spec[name]
        old_ports = {
            (p.get("port"), p.get("protocol", "TCP")): p.get("nodePort") for p in old_spec.get("ports") or []
        }
        for port in spec.get("ports") or []:
            kept = old_ports.get((port.get("port"), port.get("protocol", "TCP")))
            if kept and not port.get("nodePort") and spec.get("type") in ("NodePort", "LoadBalancer"):
                port["nodePort"] = kept


class CustomResourceDefinitionStrategy(Strategy):
    """kube's CRD strategy: the storage version joins `status.storedVersions` when a write names it."""

    def prepare_create(self, obj: dict[str, Any], env: StrategyEnv) -> None:
        super().prepare_create(obj, env)
        obj["status"] = {"conditions": [], "acceptedNames": {"kind": "", "plural": ""}, "storedVersions": []}
        _record_storage_version(obj)
        finalizers = obj["metadata"].setdefault("finalizers", [])
        if CRD_CLEANUP_FINALIZER not in finalizers:
            finalizers.append(CRD_CLEANUP_FINALIZER)

    def prepare_update(
        self, new: dict[str, Any], old: dict[str, Any], env: StrategyEnv, subresource: str = ""
    ) -> None:
        super().prepare_update(new, old, env, subresource)
        if subresource != "status":
            _record_storage_version(new)

    def validate_create(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate_create(obj) + crd_schema_errors(obj)

    def validate_update(
        self, new: dict[str, Any], old: dict[str, Any], subresource: str = ""
    ) -> list[FieldError]:
        found = super().validate_update(new, old, subresource) + stored_versions_errors(new)
        # A status write (the CRD controller's conditions) cannot change the schemas: kube's status
        # strategy validates only the status.
        return found if subresource == "status" else found + crd_schema_errors(new)


def _record_storage_version(crd: dict[str, Any]) -> None:
    """Add the storage version to `status.storedVersions` unless it is there (never remove one)."""
    for version in (crd.get("spec") or {}).get("versions") or []:
        if isinstance(version, dict) and version.get("storage"):
            status = crd.setdefault("status", {})
            stored = status.get("storedVersions")
            stored = list(stored) if isinstance(stored, list) else []
            if version.get("name") not in stored:
                stored.append(version.get("name"))
            status["storedVersions"] = stored
            return


CRD_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


def crd_schema_errors(crd: dict[str, Any]) -> list[FieldError]:
    """Structural-schema, CEL rule and printer-column checks of every version of a CRD."""
    found: list[FieldError] = []
    for position, version in enumerate((crd.get("spec") or {}).get("versions") or []):
        if not isinstance(version, dict):
            continue
        path = f"spec.versions[{position}]"
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        if schema is None:
            found.append(required(f"{path}.schema.openAPIV3Schema", "schemas are required"))
        else:
            found += structural_errors(schema, f"{path}.schema.openAPIV3Schema")
            found += rule_errors(schema, f"{path}.schema.openAPIV3Schema")
        for column_position, column in enumerate(version.get("additionalPrinterColumns") or []):
            column_path = f"{path}.additionalPrinterColumns[{column_position}]"
            found += printer_column_errors(column, column_path, check_syntax=True)
    return found


def _allocate_ip(cidr: str, used: set[Any]) -> str:
    network = ipaddress.ip_network(cidr)
    # The first address is the network, the second is taken by the `kubernetes` service.
    for offset, address in enumerate(network.hosts()):
        if offset == 0:
            continue
        text = str(address)
        if text not in used:
            return text
    return ""


_SPECIAL: dict[GroupResource, type[Strategy]] = {
    GroupResource("", "namespaces"): NamespaceStrategy,
    GroupResource("", "services"): ServiceStrategy,
    GroupResource("apiextensions.k8s.io", "customresourcedefinitions"): CustomResourceDefinitionStrategy,
}


def strategy_for(
    served: ServedResource,
    custom_rules: Mapping[GroupVersionKind, CustomResourceRules] = CUSTOM_RESOURCE_RULES,
) -> Strategy:
    cls = _SPECIAL.get(served.type.group_resource, Strategy) if served.builtin else Strategy
    return cls(served, custom_rules)
