"""The remote command protocol's pieces: channel framing, v5's close signal, the exit status kubectl reads."""

from __future__ import annotations

import orjson
import pytest

from flotilla.sim.podstreams.channels import (
    V4,
    V5,
    Channel,
    ProtocolError,
    choose_protocol,
    closed_stream,
    decode,
    encode,
    exit_status,
    failure_status,
)


def test_a_message_is_its_channel_byte_then_data() -> None:
    assert encode(Channel.STDOUT, b"hi\n") == b"\x01hi\n"
    message = decode(b"\x00typed")
    assert (message.channel, message.data) == (Channel.STDIN, b"typed")
    with pytest.raises(ProtocolError):
        decode(b"")


def test_v5s_close_signal_names_the_stream_it_closes() -> None:
    assert closed_stream(decode(bytes([255, 0]))) == Channel.STDIN
    for bad in (bytes([255]), bytes([255, 0, 1]), bytes([0, 0])):
        with pytest.raises(ProtocolError):
            closed_stream(decode(bad))


@pytest.mark.parametrize(
    ("offered", "chosen"),
    [
        ([V5, V4, "v3.channel.k8s.io", "channel.k8s.io"], V5),
        (["v3.channel.k8s.io", V4], V4),
        (["channel.k8s.io", "base64.channel.k8s.io"], None),
        ([], None),
    ],
)
def test_the_clients_preferred_served_protocol_is_chosen(offered: list[str], chosen: str | None) -> None:
    assert choose_protocol(offered) == chosen


def test_success_is_a_bare_success_status_on_the_error_channel() -> None:
    message = decode(exit_status(["true"], 0))
    assert message.channel == Channel.ERROR
    assert orjson.loads(message.data) == {"metadata": {}, "status": "Success"}


def test_a_non_zero_exit_code_is_kubes_non_zero_exit_code_status() -> None:
    message = decode(exit_status(["sh", "-c", "exit 3"], 3))
    status = orjson.loads(message.data)
    assert status["reason"] == "NonZeroExitCode"
    assert status["details"]["causes"] == [{"reason": "ExitCode", "message": "3"}]
    assert status["message"] == (
        "command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3"
    )


def test_a_command_that_could_not_run_is_a_failure_kubectl_prints() -> None:
    status = orjson.loads(decode(failure_status('exec: "nope": No such file or directory')).data)
    assert (status["status"], status["message"]) == ("Failure", 'exec: "nope": No such file or directory')
