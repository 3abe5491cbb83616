"""The scheduler's plugin framework: what a filter or score plugin is, and the registry that holds them.

A plugin is a small object with a `name` and one method. A filter plugin answers whether a
binding may go to a cluster — `Result.success()` or a result carrying the reasons it may not, in
Karmada's words (`cluster(s) had untolerated taint {key:NoSchedule}`), which the scheduler counts
into the `0/N clusters are available: …` message. A score plugin returns an integer
(`MIN_CLUSTER_SCORE`..`MAX_CLUSTER_SCORE`); scores of all plugins are summed per cluster. One
object may be both (ClusterAffinity is).

The `Registry` maps plugin names to factories, in a fixed order: the order filters run in, and so
the reason reported when several would reject a cluster. (Karmada iterates a Go map, so its order
is random; a fixed order keeps our messages reproducible.) `enabled(["*", "-ClusterLocality"])`
applies the scheduler's `--plugins` flag: `*` turns on every in-tree plugin, a bare name turns one
on, `-name` turns one off. The registry builds its plugins once; plugins are stateless.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo

MIN_CLUSTER_SCORE = 0
MAX_CLUSTER_SCORE = 100


@dataclass(frozen=True, slots=True)
class Result:
    """A filter plugin's answer: success, or the reasons the cluster does not fit."""

    reasons: tuple[str, ...] = ()

    @property
    def is_success(self) -> bool:
        return not self.reasons

    @classmethod
    def success(cls) -> Result:
        return _SUCCESS

    @classmethod
    def unschedulable(cls, *reasons: str) -> Result:
        if not reasons:
            raise ValueError("an unschedulable result needs at least one reason")
        return cls(tuple(reasons))


_SUCCESS = Result()


@runtime_checkable
class Plugin(Protocol):
    @property
    def name(self) -> str: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    def filter(self, binding: BindingInfo, cluster: ClusterInfo) -> Result:
        """Whether `binding` may be placed on `cluster`."""


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    def score(self, binding: BindingInfo, cluster: ClusterInfo) -> int:
        """How much `cluster` is preferred for `binding`, from 0 to 100."""


PluginFactory = Callable[[], Plugin]


class Registry:
    """Named plugin factories in run order, and the plugins they built."""

    def __init__(self, factories: Mapping[str, PluginFactory] | Iterable[tuple[str, PluginFactory]]) -> None:
        entries = list(factories.items()) if isinstance(factories, Mapping) else list(factories)
        self._factories: dict[str, PluginFactory] = {}
        for name, factory in entries:
            if name in self._factories:
                raise ValueError(f"a plugin named {name} already exists")
            self._factories[name] = factory
        plugins = [factory() for factory in self._factories.values()]
        self._filter_plugins = tuple(plugin for plugin in plugins if isinstance(plugin, FilterPlugin))
        self._score_plugins = tuple(plugin for plugin in plugins if isinstance(plugin, ScorePlugin))

    @property
    def names(self) -> list[str]:
        return list(self._factories)

    @property
    def filter_plugins(self) -> tuple[FilterPlugin, ...]:
        return self._filter_plugins

    @property
    def score_plugins(self) -> tuple[ScorePlugin, ...]:
        return self._score_plugins

    def register(self, name: str, factory: PluginFactory) -> Registry:
        """A registry with one more plugin, run after the others."""
        return Registry([*self._factories.items(), (name, factory)])

    def enabled(self, flags: Sequence[str]) -> Registry:
        """The plugins `--plugins` turns on: `*` (all), `name` (one), `-name` (not that one).

        Unknown names are refused rather than ignored, so a typo cannot silently drop a filter.
        """
        unknown = sorted({flag.lstrip("-") for flag in flags if flag != "*"} - set(self._factories))
        if unknown:
            raise ValueError(f"unknown scheduler plugin(s): {', '.join(unknown)}")
        chosen = set(self._factories) if "*" in flags else set()
        chosen.update(flag for flag in flags if flag in self._factories)
        if chosen:
            chosen.difference_update(flag[1:] for flag in flags if flag.startswith("-"))
        return Registry([(name, factory) for name, factory in self._factories.items() if name in chosen])
