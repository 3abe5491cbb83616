"""A bounded schemathesis run against `flotilla apiserver`'s own `/openapi/v3` (issue #13, deliverable 2).

The hub publishes one OpenAPI v3 document per group version; schemathesis (its Python API: each
operation's Hypothesis strategy, `Case.call`, `Case.validate_response`) turns the operations of a
selection of them into requests, valid and invalid ones (bodies, query and path parameters, media
types), sent as the admin to a real server process on loopback. Meanwhile the bench measures what a
hostile or careless client could cost the server:

  requests       every request sent, and how many answered 2xx, 4xx and 5xx (goal: no 5xx)
  longest stall  the slowest answer to `GET /readyz`, asked every 20 ms on one kept-alive connection
                 (`readyz.py`; a request that blocks the event loop delays it; goal <= 100 ms)
  RSS growth     the server's peak RSS during the run (VmHWM, or VmRSS sampled every 0.25 s) less
                 its RSS once set up

and prints every 5xx (status, method, operation, the Status message, a curl line to repeat it),
every request that got no answer, and the requests that ran during the three slowest `/readyz`
answers over half the limit. It exits 1 when there was a 5xx, a request without an answer, a failed
`/readyz` or a stall over `--stall-limit-ms`, unless `--no-fail` (for exploratory runs). The last
line is the figures as JSON.

Documents: core/v1, apps/v1, the three Karmada groups and the group of the CRD the bench installs
(`hostile_objects.py`); `--groups` picks others (keys as in `/openapi/v3`, e.g. `apis/batch/v1`).
Every operation is run, with up to `--max-examples` cases and a share of the time left (`--seconds`
over the operations still to run), so a short budget still reaches all of them. `--workers`
processes (2) generate and send cases, each owning whole resources: generating cases for kube's big
schemas, not the server, is what limits one process (~20 requests a second).

Cases are aimed (`hostile_aim.py`) three times in four, the fourth goes as generated: namespaces at
the bench's, names at a seed object of the collection (`hostile_objects.SEEDS`, made again when a
case deletes it) or one an earlier case created, bodies sent as JSON (for kube's `*/*` schemathesis
picks any media type, all 415) with the operation's apiVersion/kind and the path's name (or a fresh
one), a JSON patch as a list of operations, and (two aimed cases in three) the query parameters
kube refuses first (dryRun, fieldValidation, fieldManager, force) made valid; so cases reach
validation, admission, patching and storage. A watch gets `timeoutSeconds=1` so that it ends.

Checks (schemathesis' own): `not_a_server_error`, `content_type_conformance` and
`response_schema_conformance`, the last two judging only the statuses a document declares (as in
kube's documents: the 2xx answers and 401), and neither on watches (a stream of events, not one
document) nor on the answers kube gives whatever its documents say (a Success Status for a pod's
binding or an eviction, the object for a DELETE still pending on finalizers or a grace period, as
a namespace's). The schema check reads the body without its null members: Go writes null for
unset pointers (TokenRequest's `spec.boundObjectRef`) where kube's schemas declare no `nullable`.
Left out, as Kubernetes does not follow their rules and every run would report them:
`status_code_conformance` (kube's documents declare no 4xx: every 404/409/422 would fail it),
`negative_data_rejection` (kube ignores unknown query parameters, and many "invalid" strings, such
as selectors of any text, are valid) and `positive_data_acceptance` (a body valid by the schema is
still refused by validation, or names no object).

Run: `.venv/bin/python bench/hostile.py [--seconds 120] [--max-examples 100] [--workers 2]
[--seed N] [--groups api/v1,...] [--verbose] [--no-fail]`.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from apiserver import start_apiserver, stop
from hostile_aim import Aim, resource_of
from hostile_objects import CRD_GROUP, GADGET_CRD, NAMESPACE, SEEDS, seed_body, seed_path
from readyz import Readyz, Watchdog, admin_connection, proc_status

MIB = 1024 * 1024
REQUEST_TIMEOUT = 15.0
CHECKS = [not_a_server_error, content_type_conformance, response_schema_conformance]
DEFAULT_GROUPS = [
    "api/v1",
    "apis/apps/v1",
    "apis/policy.karmada.io/v1alpha1",
    "apis/cluster.karmada.io/v1alpha1",
    "apis/work.karmada.io/v1alpha2",
    f"apis/{CRD_GROUP}/v1",
]


class OutOfTime(BaseException):
    """An operation's share of the budget is spent: ends its Hypothesis run (not an Exception, so not a
    failing example to shrink or replay)."""


def call(url: str, data_dir: Path, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """One plain request as the admin (setting up, fetching documents)."""
    connection = admin_connection(url, data_dir)
    try:
        data = json.dumps(body).encode() if body is not None else None
        connection.request(method, path, body=data, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


@dataclass
class Target:
    """The server the cases go to, as requests' arguments."""

    url: str
    data_dir: Path

    def call_arguments(self) -> dict[str, Any]:
        pki = self.data_dir / "pki"
        return {
            "base_url": self.url,
            "timeout": REQUEST_TIMEOUT,
            "verify": str(pki / "ca.crt"),
            "cert": (str(pki / "admin.crt"), str(pki / "admin.key")),
        }

    def session(self) -> requests.Session:
        session = requests.Session()
        session.trust_env = False  # loopback: no proxy, and our CA rather than the environment's bundle
        return session


@dataclass
class Tally:
    """What a worker sent and what came back; `merge` adds another worker's."""

    requests: int = 0
    operations: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    server_errors: dict[tuple[str, str, int, str], list[str]] = field(default_factory=dict)
    """(method, operation path, status, message) → the curl lines of the cases that got it."""
    no_answer: list[str] = field(default_factory=list)
    not_sent: Counter[str] = field(default_factory=Counter)
    check_failures: Counter[str] = field(default_factory=Counter)
    check_examples: dict[str, str] = field(default_factory=dict)
    spans: list[tuple[float, float, str]] = field(default_factory=list)
    """(monotonic start, end, "status METHOD path") of every request, to name what ran during a stall."""

    def by_class(self, first_digit: int) -> int:
        return sum(count for status, count in self.statuses.items() if status // 100 == first_digit)

    def merge(self, other: Tally) -> None:
        self.requests += other.requests
        self.operations += other.operations
        self.statuses.update(other.statuses)
        for key, curls in other.server_errors.items():
            self.server_errors.setdefault(key, []).extend(curls)
        self.no_answer.extend(other.no_answer)
        self.not_sent.update(other.not_sent)
        self.check_failures.update(other.check_failures)
        self.check_examples = {**other.check_examples, **self.check_examples}
        self.spans.extend(other.spans)


def without_nulls(response: schemathesis.Response) -> schemathesis.Response:
    """The response with every null member dropped from its JSON body, for the schema check: Go
    writes null for an unset pointer or slice where kube's schemas (which ours are) declare an
    object, array or string without `nullable` (a TokenRequest's `spec.boundObjectRef`, a
    `creationTimestamp` never set), and clients read that null as absent."""
    body = json_body(response)
    if body is None:
        return response
    return schemathesis.Response(
        status_code=response.status_code,
        headers=response.headers,
        content=json.dumps(_drop_nulls(body)).encode(),
        request=response.request,
        elapsed=response.elapsed,
        verify=response.verify,
        message=response.message,
        http_version=response.http_version,
        encoding=response.encoding,
    )


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _drop_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_drop_nulls(item) for item in value]
    return value


def undeclared_answer(case: schemathesis.Case, response: schemathesis.Response) -> bool:
    """Whether this is one of the answers kube gives beside what its documents declare: a Success
    Status for some writes (a pod's binding, an eviction), or the object itself for a DELETE that is
    still pending (finalizers, a grace period), where the documents say Status."""
    body = json_body(response)
    if not isinstance(body, dict):
        return False
    if body.get("kind") == "Status":
        return body.get("status") == "Success"
    metadata = body.get("metadata")
    return case.method.upper() == "DELETE" and isinstance(metadata, dict) and "deletionTimestamp" in metadata


def json_body(response: schemathesis.Response) -> Any:
    """The JSON body of an answer, or None when it has none."""
    if "json" not in (response.headers.get("content-type") or [""])[0]:  # lower-case names, lists
        return None
    try:
        return response.json()
    except ValueError:
        return None


def message_of(response: schemathesis.Response) -> str:
    body = json_body(response)
    if body is None:
        return response.text[:300]
    return str(body.get("message", body))[:300] if isinstance(body, dict) else str(body)[:300]


def fuzz_operation(
    operation: schemathesis.APIOperation,
    target: Target,
    tally: Tally,
    aim: Aim,
    deadline: float,
    args: argparse.Namespace,
    seed: int,
) -> None:
    """Up to `--max-examples` cases of one operation, or fewer if its time runs out first."""
    session, arguments = target.session(), target.call_arguments()
    modes = [GenerationMode(mode) for mode in args.modes.split(",")]
    cases = st.one_of(*(operation.as_strategy(generation_mode=mode) for mode in modes))
    rng = random.Random(seed)  # noqa: S311 - picks among names to aim at, not a secret

    @settings(
        max_examples=args.max_examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=cases, aimed=st.integers(0, 3))
    def run(case: schemathesis.Case, aimed: int) -> None:
        if time.monotonic() > deadline:
            raise OutOfTime
        if aimed:
            aim.steer(case, rng, query=aimed > 1)
        watching = case.query is not None and "watch" in case.query
        if watching:
            case.query["timeoutSeconds"] = 1  # a watch that never ends would hold the run
        started = time.monotonic()
        try:
            response = case.call(session=session, **arguments)
        except requests.RequestException as exc:
            tally.requests += 1
            tally.no_answer.append(f"{case.method} {case.formatted_path}: {type(exc).__name__}: {exc}")
            return
        except Exception as exc:  # a case schemathesis cannot serialize is counted, not fatal
            tally.not_sent[f"{type(exc).__name__}: {str(exc)[:80]}"] += 1
            return
        status = response.status_code
        tally.requests += 1
        tally.statuses[status] += 1
        tally.spans.append(
            (started, time.monotonic(), f"{status} {case.method.upper()} {case.formatted_path}")
        )
        aim.remember(case, status, None if watching else json_body(response))
        if args.verbose:
            sent = response.request.headers.get("Content-Type", "-")
            print(
                f"{status} {case.method.upper()} {case.formatted_path} [{sent}] {message_of(response)[:160]}"
            )
        if status >= 500:
            key = (case.method.upper(), operation.path, status, message_of(response))
            tally.server_errors.setdefault(key, []).append(case.as_curl_command(verify=False))
        try:
            if watching or undeclared_answer(case, response):
                case.validate_response(response, checks=CHECKS[:1])
            else:
                case.validate_response(without_nulls(response), checks=CHECKS)
        except FailureGroup as group:
            for failure in group.exceptions:
                tally.check_failures[failure.title] += 1
                tally.check_examples.setdefault(
                    failure.title, f"{case.method.upper()} {case.formatted_path}: {failure.message[:300]}"
                )

    tally.operations += 1
    try:
        # A seed of our own: Hypothesis prints how to repeat a run it seeded itself when one ends early.
        hypothesis_seed(seed)(run)()
    except OutOfTime:
        pass
    except Exception as exc:  # an operation schemathesis cannot generate for is reported
        tally.not_sent[f"{operation.label}: {type(exc).__name__}: {str(exc)[:80]}"] += 1


def run_worker(
    worker: int,
    target: Target,
    documents: list[dict[str, Any]],
    finish: float,
    args: argparse.Namespace,
    results: Any,
) -> None:
    """One worker process: the operations of every `--workers`-th resource, until `finish`."""
    operations = [
        result.ok()
        for document in documents
        for result in schemathesis.openapi.from_dict(document).get_all_operations()
    ]
    resources = sorted({resource_of(operation.path) for operation in operations})
    mine = set(resources[worker :: args.workers])
    operations = [operation for operation in operations if resource_of(operation.path) in mine]

    def restore_seed(collection: str) -> None:
        call(target.url, target.data_dir, "POST", seed_path(collection), seed_body(collection))

    tally, aim = Tally(), Aim(restore_seed, prefix=f"fz-{worker}")
    for index, operation in enumerate(operations):
        share = (finish - time.monotonic()) / (len(operations) - index)
        seed = args.seed + worker * 100_000 + index
        fuzz_operation(operation, target, tally, aim, time.monotonic() + share, args, seed)
    results.put(tally)


def fuzz(target: Target, documents: list[dict[str, Any]], args: argparse.Namespace) -> Tally:
    """`--workers` processes generating and sending cases (generation, not the server, is the
    bottleneck: one Python process sends ~20 requests a second) until `--seconds` have passed."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    finish = time.monotonic() + args.seconds
    workers = [
        context.Process(target=run_worker, args=(worker, target, documents, finish, args, results))
        for worker in range(args.workers)
    ]
    for process in workers:
        process.start()
    tally = Tally()
    for _ in workers:
        tally.merge(results.get(timeout=args.seconds + 300))
    for process in workers:
        process.join(timeout=30)
    return tally


def set_up(url: str, data_dir: Path) -> None:
    status, body = call(url, data_dir, "POST", "/api/v1/namespaces", {"metadata": {"name": NAMESPACE}})
    assert status == 201, body
    status, body = call(
        url, data_dir, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", GADGET_CRD
    )
    assert status == 201, body
    for _ in range(200):
        if call(url, data_dir, "GET", f"/apis/{CRD_GROUP}/v1/namespaces/{NAMESPACE}/gadgets")[0] == 200:
            break
        time.sleep(0.05)
    else:
        raise TimeoutError("the CRD was not served within 10 s")
    for collection in SEEDS:
        status, body = call(url, data_dir, "POST", seed_path(collection), seed_body(collection))
        assert status == 201, (collection, body)


def fetch_documents(url: str, data_dir: Path, groups: list[str]) -> list[dict[str, Any]]:
    documents = []
    for key in groups:
        status, document = call(url, data_dir, "GET", f"/openapi/v3/{key}")
        if status != 200:
            raise SystemExit(f"no OpenAPI document for {key} (HTTP {status})")
        documents.append(document)
    return documents


def report(tally: Tally, readyz: Readyz, memory: dict[str, int], args: argparse.Namespace) -> bool:
    """Print the figures; whether the run passed."""
    growth = memory["peak"] - memory["start"]
    print(f"operations  {tally.operations} in {len(args.groups)} documents ({', '.join(args.groups)})")
    classes = ", ".join(f"{digit}xx {tally.by_class(digit)}" for digit in (2, 4, 5))
    print(f"requests    {tally.requests}: {classes}")
    print(f"            by status: {dict(sorted(tally.statuses.items()))}; no answer: {len(tally.no_answer)}")
    print(f"stall       longest /readyz {readyz.slowest * 1000:.0f} ms over {readyz.answers} pings")
    print(
        f"RSS         start {memory['start'] / MIB:.1f} MiB, peak {memory['peak'] / MIB:.1f} MiB, "
        f"end {memory['end'] / MIB:.1f} MiB: peak growth {growth / MIB:+.1f} MiB"
    )
    for name, count in sorted(tally.check_failures.items()):
        print(f"check       {name}: {count}, e.g. {tally.check_examples[name]}")
    for reason, count in tally.not_sent.most_common(10):
        print(f"not sent    {count} x {reason}")
    for (method, path, status, message), curls in sorted(tally.server_errors.items()):
        print(f"5xx         {status} {method} {path} ({len(curls)} x): {message}\n            {curls[0]}")
    for line in tally.no_answer[:20]:
        print(f"no answer   {line}")
    for line in readyz.failures[:5]:
        print(f"readyz      {line}")
    for started, elapsed in sorted(readyz.slow, key=lambda slow: -slow[1])[:3]:
        running = [what for begin, end, what in tally.spans if begin <= started + elapsed and end >= started]
        print(f"slow readyz {elapsed * 1000:.0f} ms while: {'; '.join(running)[:600] or 'no fuzz request'}")
    figures = {
        "requests": tally.requests,
        "2xx": tally.by_class(2),
        "4xx": tally.by_class(4),
        "5xx": tally.by_class(5),
        "no_answer": len(tally.no_answer),
        "longest_stall_ms": round(readyz.slowest * 1000, 1),
        "rss_growth_mib": round(growth / MIB, 1),
    }
    print(
        json.dumps(
            {**figures, **{key: getattr(args, key) for key in ("seconds", "max_examples", "workers", "seed")}}
        )
    )
    stalled = readyz.slowest * 1000 > args.stall_limit_ms
    return not (tally.server_errors or tally.no_answer or readyz.failures or stalled)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=120.0, help="time budget of the fuzzing")
    parser.add_argument("--max-examples", type=int, default=100, help="cases per operation at most")
    parser.add_argument("--workers", type=int, default=2, help="processes generating and sending cases")
    parser.add_argument("--groups", type=lambda text: text.split(","), default=DEFAULT_GROUPS)
    parser.add_argument("--modes", default="positive,negative", help="schemathesis generation modes")
    parser.add_argument("--seed", type=int, default=None, help="seed of the cases (printed), to repeat a run")
    parser.add_argument("--stall-limit-ms", type=float, default=100.0)
    parser.add_argument("--verbose", action="store_true", help="print every request and its answer")
    parser.add_argument("--no-fail", action="store_true", help="exit 0 whatever was found")
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.randrange(2**32)  # noqa: S311 - a seed to repeat the run, not a secret

    with tempfile.TemporaryDirectory(prefix="flotilla-hostile-") as workdir:
        data_dir = Path(workdir) / "hub"
        process, url = start_apiserver(data_dir)
        try:
            set_up(url, data_dir)
            documents = fetch_documents(url, data_dir, args.groups)
            # Answers over half the limit are kept, to name what ran during the slowest even in a passing run.
            watchdog = Watchdog(url, data_dir, process.pid, args.stall_limit_ms / 2000)
            memory = {"start": proc_status(process.pid)["VmRSS"], "hwm": proc_status(process.pid)["VmHWM"]}
            watchdog.start()
            tally = fuzz(Target(url, data_dir), documents, args)
            readyz = watchdog.stop()
            status = proc_status(process.pid)
            # VmHWM counts from start-up: only a high-water mark above start-up's says the run's peak.
            peak = status["VmHWM"] if status["VmHWM"] > memory["hwm"] else readyz.peak_rss
            memory.update(peak=max(peak, readyz.peak_rss, status["VmRSS"]), end=status["VmRSS"])
        finally:
            stop(process)
    passed = report(tally, readyz, memory, args)
    if not passed and not args.no_fail:
        sys.exit(1)


if __name__ == "__main__":
    main()
