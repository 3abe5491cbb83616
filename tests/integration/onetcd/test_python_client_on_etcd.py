"""`tests/integration/test_python_client.py` with the API server on etcd (see this package's conftest)."""

from tests.integration.test_python_client import *  # noqa: F403
