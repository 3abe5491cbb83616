"""Jobs and CronJobs validate as in kube: restart policies, generated selectors, frozen specs, schedules."""

from __future__ import annotations

import copy

from tests.unit.apiserver.registry.validation.manifests import (
    CRON_JOB,
    JOB,
    UID,
    create_errors,
    cron_job,
    job,
    pod_template,
    stored,
    update_errors,
)


def test_a_minimal_job_is_valid_with_its_generated_selector() -> None:
    """Defaulting generates the selector and labels the validation then accepts."""
    assert create_errors(JOB, job()) == []


def test_job_pods_may_not_restart_always() -> None:
    """The defaulted `Always` is Required-to-change, with kube's list of values."""
    manifest = job(template=pod_template(labels={}))
    assert create_errors(JOB, manifest) == [
        'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'
    ]


def test_job_counts_must_not_be_negative() -> None:
    """Negative parallelism and backoff limits are Invalid."""
    errors = create_errors(JOB, job(parallelism=-1, backoffLimit=-2))
    assert errors == [
        "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
        "spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0",
    ]


def test_generated_labels_must_carry_this_jobs_uid() -> None:
    """A template label claiming another uid is refused, and so is the selector built on it."""
    manifest = job(template=pod_template(labels={"controller-uid": "someone-else"}, restartPolicy="Never"))
    errors = create_errors(JOB, manifest)
    assert errors[0] == (
        "spec.template.metadata.labels[controller-uid]: Invalid value: "
        '{"batch.kubernetes.io/controller-uid":"' + UID + '","batch.kubernetes.io/job-name":"pi",'
        '"controller-uid":"someone-else","job-name":"pi"}: must be \'' + UID + "'"
    )


def test_manual_selectors_must_still_select_the_template() -> None:
    """With `manualSelector: true` the user's selector must match the pods."""
    manifest = job(manualSelector=True, selector={"matchLabels": {"app": "x"}})
    manifest["spec"]["template"]["metadata"]["labels"] = {"app": "y"}
    assert create_errors(JOB, manifest) == [
        'spec.template.metadata.labels: Invalid value: {"app":"y"}: `selector` does not match template '
        "`labels`"
    ]


def test_indexed_jobs_need_completions() -> None:
    """Indexed completion without a completion count is Required."""
    errors = create_errors(JOB, job(completionMode="Indexed", parallelism=2))
    assert errors == ["spec.completions: Required value: when completion mode is Indexed"]


def test_pod_failure_policies_require_never_restarting_pods() -> None:
    """With a pod failure policy, OnFailure is Invalid."""
    manifest = job(podFailurePolicy={"rules": []})
    manifest["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    assert create_errors(JOB, manifest) == [
        'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
        "podFailurePolicy is specified"
    ]


def test_job_templates_are_immutable() -> None:
    """Changing a running Job's image is `field is immutable` at `spec.template`."""
    old = stored(JOB, job())
    new = copy.deepcopy(old)
    new["spec"]["template"]["spec"]["containers"][0]["image"] = "perl:5.40"
    (error,) = update_errors(JOB, new, old)
    assert error.startswith("spec.template: Invalid value: {")
    assert error.endswith(": field is immutable")


def test_suspended_jobs_that_never_started_may_move() -> None:
    """Node selectors of a suspended, unstarted Job may still change."""
    old = stored(JOB, job(suspend=True))
    new = copy.deepcopy(old)
    new["spec"]["template"]["spec"]["nodeSelector"] = {"zone": "a"}
    assert update_errors(JOB, new, old) == []


def test_job_completions_and_selector_are_immutable() -> None:
    """Both are frozen for NonIndexed Jobs."""
    old = stored(JOB, job())
    new = copy.deepcopy(old)
    new["spec"]["completions"] = 3
    new["spec"]["selector"]["matchLabels"]["extra"] = "x"
    errors = update_errors(JOB, new, old)
    assert "spec.completions: Invalid value: 3: field is immutable" in errors
    assert any(error.startswith("spec.selector: Invalid value:") for error in errors)


def test_job_parallelism_and_suspend_may_change() -> None:
    """Scaling and suspending are ordinary updates."""
    old = stored(JOB, job())
    new = copy.deepcopy(old)
    new["spec"]["parallelism"] = 4
    new["spec"]["suspend"] = True
    assert update_errors(JOB, new, old) == []


def test_a_minimal_cron_job_is_valid() -> None:
    """A schedule and a job template with a restart policy are enough."""
    assert create_errors(CRON_JOB, cron_job()) == []


def test_cron_schedules_must_parse() -> None:
    """A four-field schedule is Invalid with the parser's message."""
    assert create_errors(CRON_JOB, cron_job(schedule="* * * *")) == [
        'spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]'
    ]


def test_cron_schedules_may_not_name_a_time_zone() -> None:
    """`TZ=` in the schedule must move to the timeZone field."""
    assert create_errors(CRON_JOB, cron_job(schedule="TZ=UTC 0 * * * *")) == [
        'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use '
        "timeZone "
        "field instead"
    ]


def test_cron_job_names_leave_room_for_the_job_suffix() -> None:
    """Names longer than 52 characters are refused on create."""
    manifest = cron_job()
    manifest["metadata"]["name"] = "n" * 53
    assert create_errors(CRON_JOB, manifest) == [
        f'metadata.name: Invalid value: "{"n" * 53}": must be no more than 52 characters'
    ]


def test_cron_job_templates_may_not_carry_a_selector() -> None:
    """Each Job gets a generated selector, so the template may not set one."""
    manifest = cron_job()
    manifest["spec"]["jobTemplate"]["spec"]["selector"] = {"matchLabels": {"a": "b"}}
    assert create_errors(CRON_JOB, manifest) == [
        'spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be '
        "auto-generated"
    ]


def test_unknown_concurrency_policies_are_unsupported() -> None:
    """The three policies are listed."""
    assert create_errors(CRON_JOB, cron_job(concurrencyPolicy="Queue")) == [
        'spec.concurrencyPolicy: Unsupported value: "Queue": supported values: "Allow", "Forbid", "Replace"'
    ]


def test_local_time_zone_is_refused() -> None:
    """`Local` depends on the controller's machine, so kube refuses it."""
    assert create_errors(CRON_JOB, cron_job(timeZone="Local")) == [
        'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in '
        "https://www.iana.org/time-zones"
    ]
