"""Validation of admissionregistration.k8s.io/v1 webhook configurations, worded as kube-apiserver words it.

Each webhook needs a fully qualified name (three or more DNS labels, unique within its
configuration), rules whose operations, API groups, versions, resources and scope are well formed
(`*` alone; `pods/*`, `*/status` and `*/*` without overlapping entries), known `failurePolicy`,
`matchPolicy`, `reinvocationPolicy` and `sideEffects` values, a timeout of 1 to 30 seconds, valid
label selectors, exactly one of `clientConfig.url` (https, a host, no user information, query or
fragment) and `clientConfig.service`, and `admissionReviewVersions` naming v1 or v1beta1.

On create, `sideEffects` must be `None` or `NoneOnDryRun`; on update the older values (`Unknown`,
`Some`) stay allowed for configurations that already used them, and so do the other relaxations
kube keeps for objects stored by older versions (duplicate names, unknown review versions).

`matchConditions` (CEL expressions) are refused: this server does not evaluate CEL, and calling a
webhook for requests its conditions would exclude — or never calling it — would silently change
what the configuration means.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.api.selectors import validate_label_selector
from flotilla.apiserver.registry.validation import fields, metadata

FAILURE_POLICIES = ("Fail", "Ignore")
MATCH_POLICIES = ("Equivalent", "Exact")
REINVOCATION_POLICIES = ("IfNeeded", "Never")
SIDE_EFFECT_CLASSES = ("None", "NoneOnDryRun", "Some", "Unknown")
NO_SIDE_EFFECTS = ("None", "NoneOnDryRun")
OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
SCOPES = ("*", "Cluster", "Namespaced")
REVIEW_VERSIONS = ("v1", "v1beta1")
MAX_MATCH_CONDITIONS = 64
URL_FORM = "; desired format: https://host[/path]"
CEL_UNSUPPORTED = (
    "CEL match conditions are not supported by this API server; remove matchConditions and let the "
    "webhook decide"
)


def _strings(obj: dict[str, Any], name: str) -> list[str]:
    return [item for item in fields.items(obj, name) if isinstance(item, str)]


def fully_qualified_name(name: str, path: str) -> list[FieldError]:
    """kube's `IsFullyQualifiedName`: a DNS subdomain of at least three labels."""
    if not name:
        return [fielderrors.required(path)]
    problems = names.dns1123_subdomain_errors(name)
    if problems:
        return [fielderrors.invalid(path, name, ",".join(problems))]
    if len(name.split(".")) < 3:
        return [
            fielderrors.invalid(
                path, name, "should be a domain with at least three segments separated by dots"
            )
        ]
    return []


# -- rules -----------------------------------------------------------------------------------------


def _wildcard_alone(values: list[str], path: str, what: str) -> list[FieldError]:
    if len(values) > 1 and "*" in values:
        return [fielderrors.invalid(path, values, f"if '*' is present, must not specify other {what}")]
    return []


def validate_resources(resources: list[str], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not resources:
        errors.append(fielderrors.required(path))
    wildcard_subresources: set[str] = set()
    wildcard_resources: set[str] = set()
    double_wildcard = single_wildcard = plain_resource = False
    for position, entry in enumerate(resources):
        entry_path = fielderrors.index(path, position)
        if not entry:
            errors.append(fielderrors.required(entry_path))
            continue
        double_wildcard = double_wildcard or entry == "*/*"
        single_wildcard = single_wildcard or entry == "*"
        resource, slash, subresource = entry.partition("/")
        if not slash:
            # kube keeps only the last plain entry's verdict here; `*` itself is not plain.
            plain_resource = entry != "*"
            continue
        if resource in wildcard_subresources:
            detail = f"if '{resource}/*' is present, must not specify {entry}"
            errors.append(fielderrors.invalid(entry_path, entry, detail))
        if subresource in wildcard_resources:
            detail = f"if '*/{subresource}' is present, must not specify {entry}"
            errors.append(fielderrors.invalid(entry_path, entry, detail))
        if subresource == "*":
            wildcard_subresources.add(resource)
        if resource == "*":
            wildcard_resources.add(subresource)
    if len(resources) > 1 and double_wildcard:
        errors.append(
            fielderrors.invalid(path, resources, "if '*/*' is present, must not specify other resources")
        )
    if single_wildcard and plain_resource:
        errors.append(
            fielderrors.invalid(
                path, resources, "if '*' is present, must not specify other resources without subresources"
            )
        )
    return errors


def validate_rule(rule: dict[str, Any], path: str) -> list[FieldError]:
    """One `rules[]` entry (kube's `validateRuleWithOperations`)."""
    errors: list[FieldError] = []
    operations = _strings(rule, "operations")
    operations_path = fielderrors.child(path, "operations")
    if not operations:
        errors.append(fielderrors.required(operations_path))
    errors.extend(_wildcard_alone(operations, operations_path, "operations"))
    for position, operation in enumerate(operations):
        if operation not in OPERATIONS:
            errors.append(
                fielderrors.not_supported(fielderrors.index(operations_path, position), operation, OPERATIONS)
            )
    groups = _strings(rule, "apiGroups")
    groups_path = fielderrors.child(path, "apiGroups")
    if not groups:
        errors.append(fielderrors.required(groups_path))
    errors.extend(_wildcard_alone(groups, groups_path, "API groups"))
    versions = _strings(rule, "apiVersions")
    versions_path = fielderrors.child(path, "apiVersions")
    if not versions:
        errors.append(fielderrors.required(versions_path))
    errors.extend(_wildcard_alone(versions, versions_path, "API versions"))
    errors.extend(
        fielderrors.required(fielderrors.index(versions_path, position))
        for position, version in enumerate(versions)
        if not version
    )
    errors.extend(validate_resources(_strings(rule, "resources"), fielderrors.child(path, "resources")))
    scope = rule.get("scope")
    if scope is not None and scope not in SCOPES:
        errors.append(fielderrors.not_supported(fielderrors.child(path, "scope"), scope, SCOPES))
    return errors


# -- where to call ---------------------------------------------------------------------------------


def validate_webhook_url(url: str, path: str) -> list[FieldError]:
    """kube's `ValidateWebhookURL` with https required."""
    try:
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
        parts.port  # noqa: B018 - reading it validates the port, as Go's url.Parse does
    except ValueError as exc:
        return [fielderrors.required(path, f"url must be a valid URL: {exc}{URL_FORM}")]
    errors: list[FieldError] = []
    if parts.scheme != "https":
        errors.append(
            fielderrors.invalid(path, parts.scheme, f"'https' is the only allowed URL scheme{URL_FORM}")
        )
    if not host:
        errors.append(fielderrors.invalid(path, host, f"host must be provided{URL_FORM}"))
    if "@" in parts.netloc:
        user = parts.netloc.rpartition("@")[0]
        errors.append(fielderrors.invalid(path, user, "user information is not permitted in the URL"))
    if parts.fragment:
        errors.append(fielderrors.invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        errors.append(fielderrors.invalid(path, parts.query, "query parameters are not permitted in the URL"))
    return errors


def _service_path_errors(url_path: str, path: str) -> list[FieldError]:
    if url_path in ("", "/"):
        return []
    if url_path == "//":
        return [fielderrors.invalid(path, url_path, "segment[0] may not be empty")]
    errors: list[FieldError] = []
    if not url_path.startswith("/"):
        errors.append(fielderrors.invalid(path, url_path, "must start with a '/'"))
    steps = url_path[1:]
    steps = steps.removesuffix("/")
    for position, step in enumerate(steps.split("/")):
        if not step:
            errors.append(fielderrors.invalid(path, url_path, f"segment[{position}] may not be empty"))
            continue
        errors.extend(
            fielderrors.invalid(path, url_path, f"segment[{position}]: {problem}")
            for problem in names.dns1123_subdomain_errors(step)
        )
    return errors


def validate_webhook_service(service: dict[str, Any], path: str) -> list[FieldError]:
    """kube's `ValidateWebhookService`."""
    errors: list[FieldError] = []
    if not fields.text(service, "name"):
        errors.append(fielderrors.required(fielderrors.child(path, "name"), "service name is required"))
    if not fields.text(service, "namespace"):
        errors.append(
            fielderrors.required(fielderrors.child(path, "namespace"), "service namespace is required")
        )
    port = fields.integer(service, "port")
    if port is not None and not 1 <= port <= 65535:
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "port"),
                port,
                "port is not valid: must be between 1 and 65535, inclusive",
            )
        )
    url_path = service.get("path")
    if isinstance(url_path, str):
        errors.extend(_service_path_errors(url_path, fielderrors.child(path, "path")))
    return errors


def validate_client_config(client: dict[str, Any], path: str) -> list[FieldError]:
    url, service = client.get("url"), client.get("service")
    if (url is None) == (service is None):
        return [fielderrors.required(path, "exactly one of url or service is required")]
    if isinstance(url, str):
        return validate_webhook_url(url, fielderrors.child(path, "url"))
    if isinstance(service, dict):
        return validate_webhook_service(service, fielderrors.child(path, "service"))
    return []


# -- one webhook -----------------------------------------------------------------------------------


def validate_match_conditions(conditions: list[Any], path: str) -> list[FieldError]:
    if not conditions:
        return []
    errors: list[FieldError] = []
    if len(conditions) > MAX_MATCH_CONDITIONS:
        errors.append(fielderrors.too_many(path, len(conditions), MAX_MATCH_CONDITIONS))
    seen: set[str] = set()
    for position, condition in enumerate(conditions):
        entry = condition if isinstance(condition, dict) else {}
        entry_path = fielderrors.index(path, position)
        if not fields.text(entry, "expression").strip():
            errors.append(fielderrors.required(fielderrors.child(entry_path, "expression")))
        name = fields.text(entry, "name")
        name_path = fielderrors.child(entry_path, "name")
        if not name:
            errors.append(fielderrors.required(name_path))
        else:
            errors.extend(metadata.qualified_name(name, name_path))
            if name in seen:
                errors.append(fielderrors.duplicate(name_path, name))
            seen.add(name)
    errors.append(fielderrors.forbidden(path, CEL_UNSUPPORTED))
    return errors


def _enum(hook: dict[str, Any], name: str, allowed: tuple[str, ...], path: str) -> list[FieldError]:
    value = hook.get(name)
    if value is not None and value not in allowed:
        return [fielderrors.not_supported(fielderrors.child(path, name), value, allowed)]
    return []


def validate_review_versions(
    versions: list[str], path: str, *, require_known: bool, known: tuple[str, ...] = REVIEW_VERSIONS
) -> list[FieldError]:
    """The versions of a webhook's request body (`admissionReviewVersions`; Karmada's interpreter
    webhooks' `interpreterContextVersions` with their own `known`): listed, unique DNS labels, and
    — when `require_known` — at least one this server speaks."""
    if not versions:
        return [fielderrors.required(path, f"must specify one of {', '.join(known)}")]
    errors: list[FieldError] = []
    seen: set[str] = set()
    for position, version in enumerate(versions):
        version_path = fielderrors.index(path, position)
        if version in seen:
            errors.append(fielderrors.invalid(version_path, version, "duplicate version"))
            continue
        seen.add(version)
        errors.extend(
            fielderrors.invalid(version_path, version, problem)
            for problem in names.dns1035_label_errors(version)
        )
    if require_known and not seen.intersection(known):
        errors.append(fielderrors.invalid(path, versions, f"must include at least one of {', '.join(known)}"))
    return errors


def validate_webhook(
    hook: dict[str, Any], path: str, *, mutating: bool, side_effects: tuple[str, ...]
) -> list[FieldError]:
    """One webhook's own fields (kube's `validateMutatingWebhook` / `validateValidatingWebhook`)."""
    errors = fully_qualified_name(fields.text(hook, "name"), fielderrors.child(path, "name"))
    for position, rule in enumerate(fields.objects(hook, "rules")):
        errors.extend(validate_rule(rule, fielderrors.index(fielderrors.child(path, "rules"), position)))
    errors.extend(_enum(hook, "failurePolicy", FAILURE_POLICIES, path))
    errors.extend(_enum(hook, "matchPolicy", MATCH_POLICIES, path))
    if hook.get("sideEffects") is None:
        detail = f"must specify one of {', '.join(side_effects)}"
        errors.append(fielderrors.required(fielderrors.child(path, "sideEffects"), detail))
    errors.extend(_enum(hook, "sideEffects", side_effects, path))
    timeout = fields.integer(hook, "timeoutSeconds")
    if timeout is not None and not 1 <= timeout <= 30:
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "timeoutSeconds"),
                timeout,
                "the timeout value must be between 1 and 30 seconds",
            )
        )
    for selector in ("namespaceSelector", "objectSelector"):
        errors.extend(validate_label_selector(hook.get(selector), fielderrors.child(path, selector)))
    if mutating:
        errors.extend(_enum(hook, "reinvocationPolicy", REINVOCATION_POLICIES, path))
    errors.extend(
        validate_client_config(fields.mapping(hook, "clientConfig"), fielderrors.child(path, "clientConfig"))
    )
    errors.extend(
        validate_match_conditions(
            fields.items(hook, "matchConditions"), fielderrors.child(path, "matchConditions")
        )
    )
    return errors


# -- configurations --------------------------------------------------------------------------------


def _all_without_side_effects(configuration: dict[str, Any]) -> bool:
    return all(
        hook.get("sideEffects") in NO_SIDE_EFFECTS for hook in fields.objects(configuration, "webhooks")
    )


def _all_with_known_versions(configuration: dict[str, Any]) -> bool:
    return all(
        not versions or set(versions).intersection(REVIEW_VERSIONS)
        for versions in (
            _strings(hook, "admissionReviewVersions") for hook in fields.objects(configuration, "webhooks")
        )
    )


def _unique_names(configuration: dict[str, Any]) -> bool:
    hook_names = [fields.text(hook, "name") for hook in fields.objects(configuration, "webhooks")]
    return len(hook_names) == len(set(hook_names))


def _validate_configuration(
    configuration: dict[str, Any], *, mutating: bool, old: dict[str, Any] | None
) -> list[FieldError]:
    strict = old is None
    side_effects = NO_SIDE_EFFECTS if strict or _all_without_side_effects(old or {}) else SIDE_EFFECT_CLASSES
    require_known = strict or _all_with_known_versions(old or {})
    require_unique = strict or _unique_names(old or {})
    errors = metadata.validate_object_meta(configuration, namespaced=False)
    seen: set[str] = set()
    for position, hook in enumerate(fields.objects(configuration, "webhooks")):
        path = fielderrors.index("webhooks", position)
        errors.extend(validate_webhook(hook, path, mutating=mutating, side_effects=side_effects))
        errors.extend(
            validate_review_versions(
                _strings(hook, "admissionReviewVersions"),
                fielderrors.child(path, "admissionReviewVersions"),
                require_known=require_known,
            )
        )
        name = fields.text(hook, "name")
        if require_unique and name:
            if name in seen:
                errors.append(fielderrors.duplicate(fielderrors.child(path, "name"), name))
            seen.add(name)
    if old is not None:
        errors.extend(metadata.validate_object_meta_update(configuration, old))
    return errors


def validate_validating_webhook_configuration(configuration: dict[str, Any]) -> list[FieldError]:
    return _validate_configuration(configuration, mutating=False, old=None)


def validate_validating_webhook_configuration_update(
    new: dict[str, Any], old: dict[str, Any]
) -> list[FieldError]:
    return _validate_configuration(new, mutating=False, old=old)


def validate_mutating_webhook_configuration(configuration: dict[str, Any]) -> list[FieldError]:
    return _validate_configuration(configuration, mutating=True, old=None)


def validate_mutating_webhook_configuration_update(
    new: dict[str, Any], old: dict[str, Any]
) -> list[FieldError]:
    return _validate_configuration(new, mutating=True, old=old)
