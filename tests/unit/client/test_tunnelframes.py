"""The tunnel's frames round-trip, and what is not a frame is refused with a FrameError."""

from __future__ import annotations

import pytest

from flotilla.client.tunnelframes import (
    MAX_CHUNK,
    Frame,
    FrameError,
    FrameType,
    MessageAssembler,
    MessageKind,
    data_frames,
    decode,
    headers_of,
    message_frames,
    protocols_of,
    request_frame,
    reset_frame,
    response_frame,
    upgrade_frame,
)


def test_a_request_frame_round_trips() -> None:
    frame = request_frame(
        7, "GET", "/api/v1/pods", "watch=1", [("Accept", "application/json")], has_body=False
    )
    decoded = decode(frame.encode())
    assert decoded == frame
    assert decoded.json() == {
        "method": "GET",
        "path": "/api/v1/pods",
        "query": "watch=1",
        "headers": [["Accept", "application/json"]],
        "body": False,
    }
    assert headers_of(decoded.json()) == [("Accept", "application/json")]


def test_response_and_reset_frames_carry_their_json() -> None:
    assert decode(response_frame(1, 200, [("A", "b")]).encode()).json()["status"] == 200
    assert decode(reset_frame(2**32 - 1, "gone").encode()).json() == {"message": "gone"}


def test_a_body_is_cut_into_chunks_that_add_up() -> None:
    body = bytes(range(256)) * (MAX_CHUNK // 100)
    frames = data_frames(3, body)
    assert len(frames) == -(-len(body) // MAX_CHUNK)
    assert b"".join(frame.payload for frame in frames) == body
    assert all(frame.type == FrameType.DATA and frame.stream == 3 for frame in frames)


@pytest.mark.parametrize(
    "message", [b"", b"\x00\x00", b"\x00\x00\x00\x01\x09", Frame(1, FrameType.RESPONSE, b"[1]").encode()]
)
def test_what_is_not_a_frame_is_refused(message: bytes) -> None:
    with pytest.raises(FrameError):
        decode(message).json()


def test_headers_that_are_not_string_pairs_are_refused() -> None:
    with pytest.raises(FrameError):
        headers_of({"headers": [["only-a-name"]]})


def test_an_upgrade_carries_the_offered_subprotocols() -> None:
    frame = decode(
        upgrade_frame(
            9, "/api/v1/namespaces/d/pods/p/exec", "command=ls", [("A", "b")], ["v5", "v4"]
        ).encode()
    )
    assert frame.type == FrameType.UPGRADE
    assert protocols_of(frame.json()) == ["v5", "v4"]
    assert headers_of(frame.json()) == [("A", "b")]
    with pytest.raises(FrameError):
        protocols_of({"protocols": "v5"})


@pytest.mark.parametrize("size", [0, 1, MAX_CHUNK, MAX_CHUNK + 1, 3 * MAX_CHUNK + 5])
@pytest.mark.parametrize("kind", [MessageKind.BINARY, MessageKind.TEXT])
def test_a_websocket_message_is_cut_and_joined_back_whole(size: int, kind: MessageKind) -> None:
    data = bytes(i % 251 for i in range(size))
    frames = message_frames(4, kind, data)
    assert len(frames) == max(1, -(-size // MAX_CHUNK))
    assembler = MessageAssembler()
    results = [assembler.add(decode(frame.encode())) for frame in frames]
    assert results[:-1] == [None] * (len(frames) - 1)
    assert results[-1] == (kind, data)


def test_messages_follow_one_another_on_one_assembler() -> None:
    assembler = MessageAssembler()
    for data in (b"\x01stdout", b"x" * (MAX_CHUNK + 3), b""):
        *head, last = message_frames(1, MessageKind.BINARY, data)
        assert all(assembler.add(frame) is None for frame in head)
        assert assembler.add(last) == (MessageKind.BINARY, data)


@pytest.mark.parametrize("payload", [b"", b"\x09data"])
def test_a_message_frame_without_a_known_kind_is_refused(payload: bytes) -> None:
    with pytest.raises(FrameError):
        MessageAssembler().add(Frame(1, FrameType.MESSAGE, payload))
