"""`tests/integration/test_watch.py` with the API server on etcd (see this package's conftest)."""

from tests.integration.test_watch import *  # noqa: F403
