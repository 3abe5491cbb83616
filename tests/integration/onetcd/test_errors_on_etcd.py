"""`tests/integration/test_errors.py` with the API server on etcd (see this package's conftest)."""

from tests.integration.test_errors import *  # noqa: F403
