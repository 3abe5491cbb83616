"""Dependencies distribution (`propagateDeps`): what a workload uses follows it to its clusters.

`attached` builds the attached binding of a dependency from the bindings that need it; the
`dependencies` controller (`controller`) records each workload's dependencies on its binding and
keeps the attached bindings in step.
"""

from flotilla.controllers.dependencies.controller import DependenciesController

__all__ = ["DependenciesController"]
