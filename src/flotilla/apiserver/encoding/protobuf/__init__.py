"""Reading Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`) as JSON objects.

kubectl's generators (`create configmap|deployment|…`, `auth can-i`, `create token`) and Go typed
clients send protobuf bodies, and a 415 answer is not retried as JSON. The server decodes such bodies
with `decode_object` into exactly the dict the same object would be as JSON, then handles it like any
JSON body; responses are always JSON. `wire` reads the wire format, `tables` describe the messages,
`wellknown` renders apimachinery's special types, `decode` puts them together.

The one protobuf the server writes is `/openapi/v2`, which kubectl reads only as gnostic's
`openapi_v2.Document`: `writer` writes the wire format, `jsonmessages` walks JSON through a table
of fields, `openapiv2` holds gnostic's tables.
"""

from flotilla.apiserver.encoding.protobuf.decode import (
    MAGIC,
    PROTOBUF_CONTENT_TYPE,
    UnsupportedKindError,
    decode_object,
    supported_kinds,
)
from flotilla.apiserver.encoding.protobuf.wire import ProtobufError

__all__ = [
    "MAGIC",
    "PROTOBUF_CONTENT_TYPE",
    "ProtobufError",
    "UnsupportedKindError",
    "decode_object",
    "supported_kinds",
]
