"""`flotilla interpret`: run a ResourceInterpreterCustomization on objects from files, before it ships.

The flags are `karmadactl interpret`'s: `-f` (also `--customization`) names the customization files
(JSON or YAML, directories with `-R`, `-` for standard input), and either

- `--check` compiles every script of every customization and prints, per customization, its source,
  target and each operation as `PASS`, `UNSET` or `ERROR: <Lua's message with the line>`; here a
  script that compiles but does not define its operation's function (`GetReplicas` for
  InterpretReplica…) is an error too. Exit code 1 if anything failed;
- or `--operation OP` (case ignored: `interpretReplica`, `reviseReplica`, `retain`,
  `interpretStatus`, `aggregateStatus`, `interpretHealth`, `interpretDependency`,
  `interpretComponent`) runs that operation's script on `--desired-file` or `--observed-file` (one
  of them; `retain` takes both), with `--desired-replica N` for reviseReplica and `--status-file`
  (AggregatedStatusItems: a YAML list, a stream of documents, or `{items: [...]}`) for
  aggregateStatus, and prints each result as karmadactl does (`---`, `# [1/2] replica:`, YAML).
  A failing script prints `Execute OP error: ...` with the Lua line on standard error, exit code 1.

It runs the same sandbox, conversions and helper functions as the controllers, offline: nothing is
written to a hub, and nothing is read from one unless `--from-hub` asks for the hub's
customizations too (with `--kubeconfig`/`--context`; a file's customization replaces the hub's of
the same name, as applying it would). Several customizations are merged as the hub merges them (by
name, first script wins), so a set of files behaves as it would once applied.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
import yaml

from flotilla.api.karmada.config import RESOURCE_INTERPRETER_CUSTOMIZATION
from flotilla.cli.arguments.manifests import read_manifests
from flotilla.cli.hub.connection import HubTarget, hub_options
from flotilla.interpreter.lua import (
    CustomizationIndex,
    CustomizedInterpreter,
    LuaSandbox,
    LuaScriptError,
    Operation,
    parse_customization,
)

CUSTOMIZATION_KIND = "ResourceInterpreterCustomization"
OPERATION_NAMES = ", ".join(operation.value for operation in Operation)

Result = list[tuple[str, Any]]


@click.command()
@click.option(
    "-f",
    "--filename",
    "--customization",
    "filenames",
    multiple=True,
    help="Files, directories or - holding the ResourceInterpreterCustomizations (JSON or YAML).",
)
@click.option("-R", "--recursive", is_flag=True, help="Read directories given with -f recursively.")
@click.option("--check", is_flag=True, help="Validate the customizations' scripts.")
@click.option("--operation", default="", help=f"The operation to run. One of: {OPERATION_NAMES}.")
@click.option("--desired-file", "--desired", default="", help="The object passed as desiredObj.")
@click.option("--observed-file", "--observed", default="", help="The object passed as observedObj.")
@click.option("--status-file", default="", help="The AggregatedStatusItems passed as statusItems.")
@click.option("--desired-replica", type=int, default=0, help="The desiredReplica argument of ReviseReplica.")
@click.option(
    "--from-hub",
    is_flag=True,
    help="Also use the hub's customizations (a file's replaces the hub's of its name).",
)
@hub_options
def interpret(
    filenames: tuple[str, ...],
    recursive: bool,
    check: bool,
    operation: str,
    desired_file: str,
    observed_file: str,
    status_file: str,
    desired_replica: int,
    from_hub: bool,
    kubeconfig: Path | None,
    context: str | None,
) -> None:
    """Check a ResourceInterpreterCustomization, or run one of its scripts on objects from files.

    Nothing is read from or written to the hub: the scripts run in the same sandbox as the
    controllers', on the objects given.

    \b
    Examples:
      # Check every script of the customizations in a file
      flotilla interpret -f customization.yaml --check
      # The replicas and replica requirements of an object
      flotilla interpret -f customization.yaml --operation interpretReplica --observed-file obj.yaml
      # A copy for one cluster with 2 replicas
      flotilla interpret -f customization.yaml --operation reviseReplica --observed-file obj.yaml \\
        --desired-replica 2
      # What is kept of the member's object
      flotilla interpret -f customization.yaml --operation retain --desired-file desired.yaml \\
        --observed-file observed.yaml
      # The health of a member's object
      flotilla interpret -f customization.yaml --operation interpretHealth --observed-file observed.yaml
      # The template's status folded from the members' statuses
      flotilla interpret -f customization.yaml --operation aggregateStatus --desired-file obj.yaml \\
        --status-file status.yaml
    """
    if not filenames and not from_hub:
        raise click.UsageError("must specify -f with the customization file(s), or --from-hub")
    manifests = read_manifests(filenames, recursive, sys.stdin)
    for error in manifests.errors:
        click.echo(f"error: {error}", err=True)
    if manifests.errors:
        sys.exit(1)
    customizations = [(m.source, m.object) for m in manifests.manifests if m.kind == CUSTOMIZATION_KIND]
    if from_hub:
        from flotilla.cli.hub.connection import HubTarget, run

        named = {str((obj.get("metadata") or {}).get("name")) for _, obj in customizations}
        on_hub = run(_hub_customizations(HubTarget(kubeconfig, context)))
        customizations += [("hub", obj) for obj in on_hub if obj["metadata"].get("name") not in named]
    if not customizations:
        raise click.UsageError(f"no {CUSTOMIZATION_KIND} in {', '.join(filenames) or 'the hub'}")
    if check:
        sys.exit(0 if _check(customizations) else 1)
    if not operation:
        raise click.UsageError("operation is not set for executing (use --operation, or --check)")
    try:
        chosen = Operation.parse(operation)
    except ValueError as error:
        raise click.UsageError(str(error)) from error
    desired = _object(desired_file) if desired_file else None
    observed = _object(observed_file) if observed_file else None
    items = _status_items(status_file) if status_file else None
    interpreter = CustomizedInterpreter(CustomizationIndex.from_objects(obj for _, obj in customizations))
    try:
        result = _run(interpreter, chosen, desired, observed, items, desired_replica)
    except LuaScriptError as error:
        click.echo(f"Execute {chosen} error: {error}", err=True)
        sys.exit(1)
    for position, (name, value) in enumerate(result, start=1):
        click.echo("---")
        click.echo(f"# [{position}/{len(result)}] {name}:")
        click.echo(_yaml(value), nl=False)


async def _hub_customizations(target: HubTarget) -> list[dict[str, Any]]:
    async with target.client("flotilla-interpret") as hub:
        items, _ = await hub.list(RESOURCE_INTERPRETER_CUSTOMIZATION)
    return items


def _yaml(value: Any) -> str:
    """YAML as karmadactl prints it (through JSON, so keys sorted; a scalar without `...`)."""
    text = yaml.safe_dump(value, sort_keys=True, default_flow_style=False)
    return text.removesuffix("...\n")


def _check(customizations: Sequence[tuple[str, dict[str, Any]]]) -> bool:
    sandbox = LuaSandbox()
    passed = True
    for source, obj in customizations:
        click.echo("-----------------------------------")
        name = (obj.get("metadata") or {}).get("name")
        click.echo(f"SOURCE: {name or source}")
        customization = parse_customization(obj)
        if not customization.kind or not customization.api_version:
            click.echo(f"target.{'kind' if not customization.kind else 'apiVersion'} no set")
            passed = False
            continue
        click.echo(f"TARGET: {customization.api_version} {customization.kind}")
        click.echo("RULERS:")
        width = max(len(operation.value) for operation in Operation) + 1
        for operation in Operation:
            label = f"    {operation.value + ':':<{width}} "
            script = customization.scripts.get(operation)
            if script is None:
                click.echo(label + "UNSET")
                continue
            problem = _script_problem(sandbox, script, operation)
            if problem:
                click.echo(f"{label}ERROR: {problem}")
                passed = False
                continue
            click.echo(label + "PASS")
    return passed


def _script_problem(sandbox: LuaSandbox, script: str, operation: Operation) -> str:
    """What is wrong with a script: Lua's compile or top-level error, or a missing function."""
    try:
        sandbox.check(script)
        defined = sandbox.defines(script, operation.function)
    except LuaScriptError as error:
        return str(error).strip()
    return "" if defined else f"the script does not define the function {operation.function}"


def _object(filename: str) -> dict[str, Any]:
    found = read_manifests([filename], False, sys.stdin)
    if found.errors or len(found.manifests) != 1:
        problem = "; ".join(found.errors) or f"{filename} must hold exactly one object"
        raise click.UsageError(problem)
    return found.manifests[0].object


def _status_items(filename: str) -> list[dict[str, Any]]:
    try:
        text = sys.stdin.read() if filename == "-" else Path(filename).read_text(encoding="utf-8")
        documents = list(yaml.safe_load_all(text))
    except (OSError, yaml.YAMLError) as error:
        raise click.UsageError(f"cannot read the status file {filename}: {error}") from error
    items: list[dict[str, Any]] = []
    for document in documents:
        listed = document.get("items") if isinstance(document, dict) else document
        for item in listed if isinstance(listed, list) else [document]:
            if isinstance(item, dict):
                items.append(item)
            elif item is not None:
                raise click.UsageError(f"{filename}: a status item must be an object, got {item!r}")
    return items


def _one_object(desired: dict[str, Any] | None, observed: dict[str, Any] | None) -> dict[str, Any]:
    if desired is None and observed is None:
        raise click.UsageError("desired-file, observed-file options are not set")
    if desired is not None and observed is not None:
        raise click.UsageError("you can not specify both desired-file and observed-file options")
    return desired if desired is not None else observed  # type: ignore[return-value]


def _run(
    interpreter: CustomizedInterpreter,
    operation: Operation,
    desired: dict[str, Any] | None,
    observed: dict[str, Any] | None,
    items: list[dict[str, Any]] | None,
    desired_replica: int,
) -> Result:
    if operation is Operation.RETAIN:
        if desired is None:
            raise click.UsageError("desired, desired-file options are not set")
        if observed is None:
            raise click.UsageError("observed, observed-file options are not set")
        return _answer(operation, "retained", interpreter.retain(desired, observed))
    obj = _one_object(desired, observed)
    runs: dict[Operation, Callable[[], Result]] = {
        Operation.INTERPRET_REPLICA: lambda: _replicas(operation, interpreter, obj),
        Operation.REVISE_REPLICA: lambda: _answer(
            operation, "revised", interpreter.revise_replica(obj, desired_replica)
        ),
        Operation.INTERPRET_STATUS: lambda: _answer(operation, "status", interpreter.reflect_status(obj)),
        Operation.AGGREGATE_STATUS: lambda: _answer(
            operation, "aggregatedStatus", interpreter.aggregate_status(obj, items)
        ),
        Operation.INTERPRET_HEALTH: lambda: _answer(operation, "healthy", interpreter.interpret_health(obj)),
        Operation.INTERPRET_DEPENDENCY: lambda: _answer(
            operation, "dependencies", interpreter.get_dependencies(obj)
        ),
        Operation.INTERPRET_COMPONENT: lambda: _answer(
            operation, "components", interpreter.get_components(obj)
        ),
    }
    return runs[operation]()


def _answer(operation: Operation, name: str, value: Any) -> Result:
    if value is None:
        raise LuaScriptError(f"no customization scripts {operation} for this object's apiVersion and kind")
    return [(name, value)]


def _replicas(operation: Operation, interpreter: CustomizedInterpreter, obj: dict[str, Any]) -> Result:
    found = interpreter.get_replicas(obj)
    if found is None:
        return _answer(operation, "replica", None)
    return [("replica", found.replicas), ("requires", found.requirements)]
