"""Go's quoting of strings (`strconv.Quote`, `%q`), for the messages kube-apiserver prints with it.

kube quotes a field name it reports — `unknown field "spec.replica"`, `duplicate field "name"` —
with Go's `%q`, which escapes what is not printable: a field name that holds a control character
comes out as `"\\x01"`, never as the raw byte. Such a message may travel in a `Warning` header,
where a raw control character would break the response, so Flotilla quotes the same way.
"""

from __future__ import annotations

_SHORT_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    '"': '\\"',
    "\\": "\\\\",
}


def go_quote(text: str) -> str:
    """`text` in double quotes, as Go's strconv.Quote writes it: printable characters (any script)
    as they are, quotes and backslashes escaped, anything else as `\\n`, `\\x01`, `\\u200b`, `\\U000e0001`."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return '"' + "".join(_quote_char(char) for char in text) + '"'


def _quote_char(char: str) -> str:
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    if char.isprintable():
        return char
    code = ord(char)
    if code < 0x80:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
