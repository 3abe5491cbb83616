"""`tests/integration/test_crd_versions.py` with the API server on etcd (see this package's conftest)."""

from tests.integration.test_crd_versions import *  # noqa: F403
