"""`tests/integration/test_kubectl.py` with the API server on etcd (see this package's conftest)."""

from tests.integration.test_kubectl import *  # noqa: F403
