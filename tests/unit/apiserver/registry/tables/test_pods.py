from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from flotilla.apiserver.registry.tables.pods import POD, pod_row_conditions

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


def ago(**delta: float) -> str:
    return (NOW - timedelta(**delta)).strftime("%Y-%m-%dT%H:%M:%SZ")


def running(ready: bool = True, restarts: int = 0, last_restart: str | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {
        "ready": ready,
        "restartCount": restarts,
        "state": {"running": {"startedAt": ago(hours=1)}},
    }
    if last_restart is not None:
        status["lastState"] = {"terminated": {"exitCode": 1, "finishedAt": last_restart}}
    return status


def waiting(reason: str, restarts: int = 0) -> dict[str, Any]:
    return {"ready": False, "restartCount": restarts, "state": {"waiting": {"reason": reason}}}


def terminated(reason: str = "", exit_code: int = 0, signal: int = 0, restarts: int = 0) -> dict[str, Any]:
    state: dict[str, Any] = {"exitCode": exit_code}
    if reason:
        state["reason"] = reason
    if signal:
        state["signal"] = signal
    return {"ready": False, "restartCount": restarts, "state": {"terminated": state}}


def pod(
    statuses: list[dict[str, Any]],
    *,
    phase: str = "Running",
    containers: int | None = None,
    init: list[dict[str, Any]] | None = None,
    init_statuses: list[dict[str, Any]] | None = None,
    conditions: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    count = len(statuses) if containers is None else containers
    obj: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "creationTimestamp": ago(minutes=5)},
        "spec": {"containers": [{"name": f"c{i}", "image": "nginx"} for i in range(count)]},
        "status": {"phase": phase, "containerStatuses": statuses, "conditions": conditions or []},
    }
    if init is not None:
        obj["spec"]["initContainers"] = init
    if init_statuses is not None:
        obj["status"]["initContainerStatuses"] = init_statuses
    for key, value in extra.items():
        obj["status"][key] = value
    return obj


def cells(obj: dict[str, Any]) -> list[Any]:
    return POD.cells(obj, NOW)


def test_running_pod_row_matches_kubectl_including_wide_columns() -> None:
    """A healthy two-container pod prints every default and wide cell as kubectl shows it."""
    obj = pod(
        [running(), running(restarts=2, last_restart=ago(minutes=3))],
        conditions=[{"type": "Ready", "status": "True"}],
    )
    obj["spec"]["nodeName"] = "node-1"
    obj["status"]["podIPs"] = [{"ip": "10.244.1.7"}, {"ip": "fd00::7"}]
    assert cells(obj) == [
        "web",
        "2/2",
        "Running",
        "2 (3m ago)",
        "5m",
        "10.244.1.7",
        "node-1",
        "<none>",
        "<none>",
    ]


def test_columns_are_the_kubernetes_pod_columns_with_wide_ones_at_priority_one() -> None:
    """The header is NAME READY STATUS RESTARTS AGE, plus four `-o wide` columns."""
    assert [(column.name, column.priority) for column in POD.columns] == [
        ("Name", 0),
        ("Ready", 0),
        ("Status", 0),
        ("Restarts", 0),
        ("Age", 0),
        ("IP", 1),
        ("Node", 1),
        ("Nominated Node", 1),
        ("Readiness Gates", 1),
    ]
    assert POD.columns[0].format == "name"


def test_first_container_reason_wins_over_later_ones_and_the_phase() -> None:
    """Containers are read last to first, so the first container's waiting reason is shown."""
    obj = pod(
        [waiting("ImagePullBackOff", restarts=3), terminated("OOMKilled", exit_code=137, restarts=3)],
        phase="Pending",
    )
    assert cells(obj)[1:4] == ["0/2", "ImagePullBackOff", "6"]


def test_crash_looping_container_shows_reason_and_restart_age() -> None:
    """A container in CrashLoopBackOff shows that reason and its restart count with the last restart's age."""
    status = waiting("CrashLoopBackOff", restarts=12)
    status["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": ago(seconds=40)}}
    assert cells(pod([status]))[1:4] == ["0/1", "CrashLoopBackOff", "12 (40s ago)"]


def test_ready_without_running_state_is_not_counted() -> None:
    """A container marked ready but not running does not count as ready and the phase stays."""
    assert cells(pod([running(), {"ready": True, "restartCount": 0}]))[1:3] == ["1/2", "Running"]


def test_pod_reason_replaces_phase() -> None:
    """`status.reason` (e.g. Evicted) is shown instead of the phase."""
    obj = pod([], phase="Failed", containers=1, reason="Evicted")
    assert cells(obj)[1:3] == ["0/1", "Evicted"]


@pytest.mark.parametrize(("ready_condition", "expected"), [(True, "Running"), (False, "NotReady")])
def test_completed_container_beside_a_running_one(ready_condition: bool, expected: str) -> None:
    """`Completed` beside a running container reads Running, or NotReady without the Ready condition."""
    conditions = [{"type": "Ready", "status": "True"}] if ready_condition else []
    obj = pod([terminated("Completed"), running()], conditions=conditions)
    assert cells(obj)[1:3] == ["1/2", expected]


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (terminated(exit_code=2), "ExitCode:2"),
        (terminated(exit_code=0, signal=9), "Signal:9"),
        (terminated("Error", exit_code=1), "Error"),
    ],
)
def test_terminated_container_without_reason_shows_exit_code_or_signal(
    state: dict[str, Any], expected: str
) -> None:
    """A terminated container reports its reason, else `Signal:N`, else `ExitCode:N`."""
    assert cells(pod([state], phase="Failed"))[2] == expected


def test_running_init_container_shows_progress_and_its_restarts() -> None:
    """While the first of two init containers runs, STATUS is `Init:0/2` and restarts count init restarts."""
    init = [{"name": "migrate", "image": "tool"}, {"name": "seed", "image": "tool"}]
    init_statuses = [
        {
            "name": "migrate",
            "restartCount": 3,
            "state": {"running": {}},
            "lastState": {"terminated": {"finishedAt": ago(seconds=10)}},
        },
        {"name": "seed", "restartCount": 0, "state": {"waiting": {"reason": "PodInitializing"}}},
    ]
    obj = pod([waiting("PodInitializing")], phase="Pending", init=init, init_statuses=init_statuses)
    assert cells(obj)[1:4] == ["0/1", "Init:0/2", "3 (10s ago)"]


def test_second_init_container_progress_counts_completed_ones() -> None:
    """A completed first init container moves the progress to `Init:1/2`."""
    init = [{"name": "a"}, {"name": "b"}]
    init_statuses = [{"name": "a", **terminated("Completed")}, {"name": "b", "state": {"running": {}}}]
    obj = pod([waiting("PodInitializing")], phase="Pending", init=init, init_statuses=init_statuses)
    assert cells(obj)[2] == "Init:1/2"


@pytest.mark.parametrize(
    ("init_status", "expected"),
    [
        (terminated("Error", exit_code=1), "Init:Error"),
        (terminated(exit_code=3), "Init:ExitCode:3"),
        (terminated(exit_code=143, signal=15), "Init:Signal:15"),
        (waiting("CrashLoopBackOff"), "Init:CrashLoopBackOff"),
        (waiting("PodInitializing"), "Init:0/1"),
    ],
)
def test_failed_or_waiting_init_container_prefixes_its_reason(
    init_status: dict[str, Any], expected: str
) -> None:
    """Init container failures and waits show as `Init:<reason>`; PodInitializing shows progress instead."""
    obj = pod(
        [waiting("PodInitializing")],
        phase="Pending",
        init=[{"name": "i"}],
        init_statuses=[{"name": "i", **init_status}],
    )
    assert cells(obj)[2] == expected


def test_restarts_after_initialisation_count_only_app_containers() -> None:
    """Once initialised, init container restarts no longer count; the app container's do."""
    init_status = {"name": "i", **terminated("Completed", restarts=2)}
    init_status["lastState"] = {"terminated": {"finishedAt": ago(minutes=2)}}
    obj = pod(
        [running(ready=False, restarts=4, last_restart=ago(seconds=20))],
        init=[{"name": "i"}],
        init_statuses=[init_status],
    )
    assert cells(obj)[1:4] == ["0/1", "Running", "4 (20s ago)"]


def test_started_sidecars_count_as_containers_and_their_restarts_stay() -> None:
    """Restartable init containers add to the total, count as ready once started, and keep their restarts."""
    init = [{"name": "proxy", "restartPolicy": "Always"}, {"name": "log", "restartPolicy": "Always"}]
    init_statuses = [
        {
            "name": "proxy",
            "ready": True,
            "started": True,
            "restartCount": 3,
            "state": {"running": {}},
            "lastState": {"terminated": {"finishedAt": ago(seconds=10)}},
        },
        {"name": "log", "ready": False, "started": True, "restartCount": 0, "state": {"running": {}}},
    ]
    obj = pod(
        [running(restarts=4, last_restart=ago(seconds=20))],
        init=init,
        init_statuses=init_statuses,
        conditions=[{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"}],
    )
    assert cells(obj)[1:4] == ["2/3", "Running", "7 (10s ago)"]


def test_sidecar_not_yet_started_blocks_initialisation() -> None:
    """A sidecar that has not started keeps the pod in `Init:i/n`."""
    init = [{"name": "proxy", "restartPolicy": "Always"}]
    init_statuses = [{"name": "proxy", "started": False, "restartCount": 0, "state": {"running": {}}}]
    obj = pod([waiting("PodInitializing")], phase="Pending", init=init, init_statuses=init_statuses)
    assert cells(obj)[1:3] == ["0/2", "Init:0/1"]


def test_scheduling_gated_pod() -> None:
    """A pod held by scheduling gates shows SchedulingGated."""
    conditions = [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]
    assert cells(pod([], phase="Pending", containers=1, conditions=conditions))[1:4] == [
        "0/1",
        "SchedulingGated",
        "0",
    ]


@pytest.mark.parametrize(
    ("phase", "reason", "expected"),
    [
        ("Running", "", "Terminating"),
        ("Pending", "", "Terminating"),
        ("Succeeded", "", "Succeeded"),
        ("Running", "NodeLost", "Unknown"),
    ],
)
def test_deleted_pod_reads_terminating_unless_finished_or_node_lost(
    phase: str, reason: str, expected: str
) -> None:
    """Deleting shows Terminating for live pods, Unknown on a lost node, nothing new for finished pods."""
    obj = pod([], phase=phase, containers=1)
    if reason:
        obj["status"]["reason"] = reason
    obj["metadata"]["deletionTimestamp"] = ago(seconds=10)
    assert cells(obj)[2] == expected


def test_readiness_gates_count_true_conditions() -> None:
    """READINESS GATES shows how many gates have a True condition, out of all gates."""
    obj = pod([running()])
    obj["spec"]["readinessGates"] = [{"conditionType": "a"}, {"conditionType": "b"}, {"conditionType": "c"}]
    obj["status"]["conditions"] = [{"type": "a", "status": "False"}, {"type": "b", "status": "True"}]
    obj["status"]["nominatedNodeName"] = "node-2"
    assert cells(obj)[5:] == ["<none>", "<none>", "node-2", "1/3"]


def test_restart_without_termination_time_shows_only_the_count() -> None:
    """Without a last termination time, RESTARTS is just the number."""
    assert cells(pod([running(restarts=5)]))[3] == "5"


def test_empty_pod_renders_zero_values() -> None:
    """A pod with nothing but a name still renders a full row."""
    assert POD.cells({"metadata": {"name": "bare"}}, NOW) == [
        "bare",
        "0/0",
        "",
        "0",
        "<unknown>",
        "<none>",
        "<none>",
        "<none>",
        "<none>",
    ]


def test_row_conditions_mark_finished_pods_completed() -> None:
    """Succeeded and Failed pods get a Completed row condition; running pods none."""
    assert pod_row_conditions(pod([], phase="Succeeded")) == [
        {
            "type": "Completed",
            "status": "True",
            "reason": "Succeeded",
            "message": "The pod has completed successfully.",
        }
    ]
    assert pod_row_conditions(pod([], phase="Failed"))[0]["message"] == "The pod failed."
    assert pod_row_conditions(pod([], phase="Running")) == []
