"""`tests/integration/test_karmada_api.py` with the API server on etcd (see this package's conftest)."""

from tests.integration.test_karmada_api import *  # noqa: F403
