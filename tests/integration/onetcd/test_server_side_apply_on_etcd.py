"""`tests/integration/test_server_side_apply.py` with the API server on etcd (see this package's conftest)."""

from tests.integration.test_server_side_apply import *  # noqa: F403
