"""The tunnel's frames round-trip, and what is not a frame is refused with a FrameError."""

from __future__ import annotations

import pytest

from flotilla.client.tunnelframes import (
    MAX_CHUNK,
    Frame,
    FrameError,
    FrameType,
    data_frames,
    decode,
    headers_of,
    request_frame,
    reset_frame,
    response_frame,
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
