"""A Swagger 2.0 document as gnostic's `openapi_v2.Document` protobuf message, as kubectl reads it.

client-go fetches `/openapi/v2` only as `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`
and unmarshals the body into gnostic's `openapi_v2.Document` (`openapiv2/OpenAPIv2.proto` in
github.com/google/gnostic); kubectl 1.27 and 1.28 do so on every validating command. kube-apiserver
makes those bytes by parsing its JSON document with gnostic's compiler and marshalling the result;
`encode_document` writes the same message straight from the JSON document (a dict).

The tables give each gnostic message's JSON keys in field-number order (the `.proto` numbers its
fields 1, 2, 3… in that order), with the kind of each where the key's usual kind (`_KINDS`) does
not fit. Swagger's oneofs — a schema's `type` (a string or a list), `items` (a schema or a list),
`additionalProperties` (a schema or a boolean), a parameter (body or not; by `in`), a `$ref` in
place of a parameter or a response — are small functions. Vendor extensions (`x-` keys) are
gnostic `NamedAny`s whose value holds YAML text; kubectl reads them with a YAML parser (the GVK
extension, patch strategies and merge keys).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flotilla.apiserver.encoding.protobuf.jsonmessages import (
    Kind,
    Message,
    any_bytes,
    any_value,
    any_values,
    boolean,
    built,
    double,
    encode,
    entries,
    int64,
    message,
    messages,
    named_pairs,
    string,
    strings,
    write_named_pairs,
)
from flotilla.apiserver.encoding.protobuf.writer import MessageWriter

OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
"""The media type kube answers with."""
OPENAPI_V2_PROTOBUF_DEPRECATED = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
"""The older spelling, which client-go asks for and kube still accepts."""


def _keys(text: str) -> tuple[str, ...]:
    """Field names written as one string, in field-number order."""
    return tuple(text.split())


_STRING_KEYS = (
    "$ref basePath collectionFormat description discriminator email flow format host in name "
    "namespace operationId pattern prefix summary swagger termsOfService title type url version"
)
_KINDS: dict[str, Kind] = {
    **dict.fromkeys(_STRING_KEYS.split(), string),
    **dict.fromkeys(("consumes", "produces", "schemes", "tags"), strings),
    **dict.fromkeys(("maximum", "minimum", "multipleOf"), double),
    **dict.fromkeys(
        ("maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"), int64
    ),
    **dict.fromkeys(
        _keys(
            "allowEmptyValue attribute deprecated exclusiveMaximum exclusiveMinimum readOnly "
            "required uniqueItems wrapped"
        ),
        boolean,
    ),
    "default": any_value,
    "example": any_value,
    "enum": any_values,
}
"""What a key holds unless its message says otherwise."""


def _numbered(name: str, keys: Sequence[str], extensions: int | None, **kinds: Kind) -> Message:
    """A message whose fields are `keys` numbered from 1, with `kinds` overriding `_KINDS`."""
    fields = {key: (index + 1, kinds.get(key) or _KINDS[key]) for index, key in enumerate(keys)}
    return Message(name, fields, extensions)


def _late(of: Message, key: str, kind: Kind) -> None:
    """Give a self-referencing field its kind once its message exists."""
    number, _ = of.fields[key]
    of.fields[key] = (number, kind)


_VALIDATIONS = _keys(
    "maximum exclusiveMaximum minimum exclusiveMinimum maxLength minLength pattern maxItems minItems "
    "uniqueItems enum multipleOf"
)

EXTERNAL_DOCS = _numbered("ExternalDocs", ("description", "url"), 3)
XML = _numbered("Xml", ("name", "namespace", "prefix", "attribute", "wrapped"), 6)
PRIMITIVES_ITEMS = _numbered(
    "PrimitivesItems",
    ("type", "format", "items", "collectionFormat", "default", *_VALIDATIONS),
    18,
    items=string,
)
_late(PRIMITIVES_ITEMS, "items", message(PRIMITIVES_ITEMS))

SCHEMA = _numbered(
    "Schema",
    _keys(
        "$ref format title description default multipleOf maximum exclusiveMaximum minimum "
        "exclusiveMinimum maxLength minLength pattern maxItems minItems uniqueItems maxProperties "
        "minProperties required enum additionalProperties type items allOf properties discriminator "
        "readOnly xml externalDocs example"
    ),
    31,
    required=strings,
    additionalProperties=string,
    type=string,
    items=string,
    allOf=string,
    properties=string,
    xml=message(XML),
    externalDocs=message(EXTERNAL_DOCS),
)


def _type_item(value: Any) -> bytes:
    """TypeItem: `type` is one name or a list of them."""
    writer = MessageWriter()
    strings(writer, 1, [value] if isinstance(value, str) else value)
    return writer.getvalue()


def _items_item(value: Any) -> bytes:
    """ItemsItem: `items` is one schema or a list of them."""
    writer = MessageWriter()
    messages(SCHEMA)(writer, 1, [value] if isinstance(value, Mapping) else value)
    return writer.getvalue()


def _additional_properties_item(value: Any) -> bytes:
    """AdditionalPropertiesItem: a schema, or a boolean."""
    writer = MessageWriter()
    if isinstance(value, bool):
        writer.oneof_boolean(2, value)
    else:
        writer.message(1, encode(SCHEMA, value))
    return writer.getvalue()


def _schema_bytes(value: Any) -> bytes:
    return encode(SCHEMA, value)


_late(SCHEMA, "type", built(_type_item))
_late(SCHEMA, "items", built(_items_item))
_late(SCHEMA, "additionalProperties", built(_additional_properties_item))
_late(SCHEMA, "allOf", messages(SCHEMA))
_late(SCHEMA, "properties", built(named_pairs(_schema_bytes)))

JSON_REFERENCE = _numbered("JsonReference", ("$ref", "description"), None)
BODY_PARAMETER = _numbered(
    "BodyParameter", ("description", "name", "in", "required", "schema"), 6, schema=message(SCHEMA)
)
_SIMPLE_PARAMETER = ("type", "format", "items", "collectionFormat", "default", *_VALIDATIONS)
_NON_BODY_PARAMETERS = {
    # `in` → (NonBodyParameter's field number, the sub-schema message)
    "header": (1, _numbered("HeaderParameterSubSchema", ("required", "in", "description", "name",
               *_SIMPLE_PARAMETER), 22, items=message(PRIMITIVES_ITEMS))),
    "formData": (2, _numbered("FormDataParameterSubSchema", ("required", "in", "description", "name",
                 "allowEmptyValue", *_SIMPLE_PARAMETER), 23, items=message(PRIMITIVES_ITEMS))),
    "query": (3, _numbered("QueryParameterSubSchema", ("required", "in", "description", "name",
              "allowEmptyValue", *_SIMPLE_PARAMETER), 23, items=message(PRIMITIVES_ITEMS))),
    "path": (4, _numbered("PathParameterSubSchema", ("required", "in", "description", "name",
             *_SIMPLE_PARAMETER), 22, items=message(PRIMITIVES_ITEMS))),
}  # fmt: skip


def _parameter(value: Any) -> bytes:
    """Parameter: a body parameter (1), or a non-body one (2) chosen by where it goes (`in`)."""
    writer = MessageWriter()
    location = value.get("in") if isinstance(value, Mapping) else None
    if location == "body":
        writer.message(1, encode(BODY_PARAMETER, value))
        return writer.getvalue()
    if location not in _NON_BODY_PARAMETERS:
        raise ValueError(f"a parameter must be in body, header, formData, query or path, not {location!r}")
    number, sub_schema = _NON_BODY_PARAMETERS[location]
    non_body = MessageWriter()
    non_body.message(number, encode(sub_schema, value))
    writer.message(2, non_body.getvalue())
    return writer.getvalue()


def _parameters_item(value: Any) -> bytes:
    """ParametersItem: a parameter (1), or a `$ref` to a document-level one (2)."""
    writer = MessageWriter()
    if isinstance(value, Mapping) and "$ref" in value:
        writer.message(2, encode(JSON_REFERENCE, value))
    else:
        writer.message(1, _parameter(value))
    return writer.getvalue()


def _schema_item(value: Any) -> bytes:
    """SchemaItem: a response's schema (1; file schemas, 2, are not used by Kubernetes)."""
    writer = MessageWriter()
    writer.message(1, encode(SCHEMA, value))
    return writer.getvalue()


HEADER = _numbered(
    "Header", ("type", "format", "items", "collectionFormat", "default", *_VALIDATIONS, "description"), 19,
    items=message(PRIMITIVES_ITEMS),
)  # fmt: skip
RESPONSE = _numbered(
    "Response",
    ("description", "schema", "headers", "examples"),
    5,
    schema=built(_schema_item),
    headers=built(named_pairs(lambda header: encode(HEADER, header))),
    examples=built(named_pairs(any_bytes)),
)


def _response_value(value: Any) -> bytes:
    """ResponseValue: a response (1), or a `$ref` to a document-level one (2)."""
    writer = MessageWriter()
    if isinstance(value, Mapping) and "$ref" in value:
        writer.message(2, encode(JSON_REFERENCE, value))
    else:
        writer.message(1, encode(RESPONSE, value))
    return writer.getvalue()


def _responses(value: Any) -> bytes:
    """Responses: status code → response (1), vendor extensions (2)."""
    writer = MessageWriter()
    pairs = entries(value)
    codes = [(code, item) for code, item in pairs if not code.startswith("x-")]
    write_named_pairs(writer, 1, codes, _response_value)
    write_named_pairs(writer, 2, [pair for pair in pairs if pair[0].startswith("x-")], any_bytes)
    return writer.getvalue()


def _security_requirement(value: Any) -> bytes:
    """SecurityRequirement: scheme name → the scopes it needs."""

    def scopes(names: Any) -> bytes:
        writer = MessageWriter()
        strings(writer, 1, names)
        return writer.getvalue()

    return named_pairs(scopes)(value)


def _repeated(message_bytes: Any) -> Kind:
    def write(writer: MessageWriter, number: int, value: Any) -> None:
        if not isinstance(value, list):
            raise TypeError(f"expected a list, not {value!r}")
        for item in value:
            writer.message(number, message_bytes(item))

    return write


OPERATION = _numbered(
    "Operation",
    _keys(
        "tags summary description externalDocs operationId produces consumes parameters responses "
        "schemes deprecated security"
    ),
    13,
    externalDocs=message(EXTERNAL_DOCS),
    parameters=_repeated(_parameters_item),
    responses=built(_responses),
    security=_repeated(_security_requirement),
)
PATH_ITEM = _numbered(
    "PathItem",
    ("$ref", "get", "put", "post", "delete", "options", "head", "patch", "parameters"),
    10,
    **dict.fromkeys(("get", "put", "post", "delete", "options", "head", "patch"), message(OPERATION)),
    parameters=_repeated(_parameters_item),
)


def _paths(value: Any) -> bytes:
    """Paths: vendor extensions (1), then URL → path item (2)."""
    writer = MessageWriter()
    pairs = entries(value)
    write_named_pairs(writer, 1, [pair for pair in pairs if pair[0].startswith("x-")], any_bytes)
    urls = [(url, item) for url, item in pairs if not url.startswith("x-")]
    write_named_pairs(writer, 2, urls, lambda item: encode(PATH_ITEM, item))
    return writer.getvalue()


_SECURITY_SCHEMES = {
    # `type` → (SecurityDefinitionsItem's field number, the scheme's message)
    "basic": (1, _numbered("BasicAuthenticationSecurity", ("type", "description"), 3)),
    "apiKey": (2, _numbered("ApiKeySecurity", ("type", "name", "in", "description"), 5)),
}


def _security_definitions_item(value: Any) -> bytes:
    """SecurityDefinitionsItem: one scheme, by its type (OAuth2 flows are not used by Kubernetes)."""
    scheme_type = value.get("type") if isinstance(value, Mapping) else None
    if scheme_type not in _SECURITY_SCHEMES:
        raise ValueError(f"security scheme type {scheme_type!r} is not supported")
    number, scheme = _SECURITY_SCHEMES[scheme_type]
    writer = MessageWriter()
    writer.message(number, encode(scheme, value))
    return writer.getvalue()


INFO = _numbered(
    "Info",
    ("title", "version", "description", "termsOfService", "contact", "license"),
    7,
    contact=message(_numbered("Contact", ("name", "url", "email"), 4)),
    license=message(_numbered("License", ("name", "url"), 3)),
)
TAG = _numbered("Tag", ("name", "description", "externalDocs"), 4, externalDocs=message(EXTERNAL_DOCS))
DOCUMENT = _numbered(
    "Document",
    _keys(
        "swagger info host basePath schemes consumes produces paths definitions parameters responses "
        "security securityDefinitions tags externalDocs"
    ),
    16,
    info=message(INFO),
    paths=built(_paths),
    definitions=built(named_pairs(_schema_bytes)),
    parameters=built(named_pairs(_parameter)),
    responses=built(named_pairs(lambda response: encode(RESPONSE, response))),
    security=_repeated(_security_requirement),
    securityDefinitions=built(named_pairs(_security_definitions_item)),
    tags=messages(TAG),
    externalDocs=message(EXTERNAL_DOCS),
)


def encode_document(document: Mapping[str, Any]) -> bytes:
    """The protobuf bytes of gnostic's `openapi_v2.Document` for a Swagger 2.0 JSON document."""
    return encode(DOCUMENT, document)
