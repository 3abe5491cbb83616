"""One hub with three simulated members, the controller manager and a dashboard, shared by this package.

The dashboard runs as `flotilla dashboard` against the hub's admin kubeconfig (used only to find the
hub and its CA: users sign in with their own tokens), with its serving certificate issued by the
hub's CA, which the tests trust and nothing else. Tokens: the local admin's (`flotilla dashboard
token`) and a read-only ServiceAccount's (`kubectl create token`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.dashboard.dashboardclient import DashboardProcess, DashboardUser
from tests.integration.federation import FAST_CLUSTER_STATUS, Federation, MemberCluster
from tests.support.kubectl import Kubectl
from tests.support.processes import flotilla

ADMIN = "system:serviceaccount:flotilla-dashboard:admin"
MANAGER_ARGS = (*FAST_CLUSTER_STATUS, "--cluster-failure-threshold", "1")
"""Members probed every second, Ready at the first success, NotReady after a second of failures."""
MEMBERS = (
    MemberCluster("member1", region="region-a"),
    MemberCluster("member2", region="region-a"),
    MemberCluster("member3", region="region-b"),
)
READ_ONLY = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dashboard-viewers"}},
    {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": "viewer", "namespace": "dashboard-viewers"},
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "dashboard-read-only"},
        "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["get", "list", "watch"]}],
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "dashboard-read-only"},
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "ClusterRole",
            "name": "dashboard-read-only",
        },
        "subjects": [{"kind": "ServiceAccount", "name": "viewer", "namespace": "dashboard-viewers"}],
    },
]


@pytest.fixture(scope="package")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    with Federation(tmp_path_factory.mktemp("dashboard"), MEMBERS, manager_args=MANAGER_ARGS) as federation:
        yield federation.start()


@pytest.fixture(scope="package")
def dashboard(federation: Federation) -> Iterator[DashboardProcess]:
    process = DashboardProcess(federation.hub.kubeconfig, federation.root / "logs")
    try:
        yield process.start()
    finally:
        process.stop()


@pytest.fixture(scope="package")
def hub_ca(federation: Federation) -> Path:
    return federation.hub.data_dir / "pki" / "ca.crt"


@pytest.fixture(scope="package")
def admin_token(federation: Federation, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The local admin's token. The members let that ServiceAccount in too: through the hub's cluster
    proxy a member sees the hub's user, and its own RBAC decides (as in Karmada)."""
    cache = tmp_path_factory.mktemp("member-rbac")
    for name in federation.names:
        member = federation.member(name, cache / name)
        member(
            "create",
            "clusterrolebinding",
            "dashboard-admin",
            "--clusterrole=cluster-admin",
            f"--user={ADMIN}",
        )
    return flotilla("dashboard", "token", "--kubeconfig", str(federation.hub.kubeconfig)).stdout.strip()


@pytest.fixture(scope="package")
def viewer_token(federation: Federation, tmp_path_factory: pytest.TempPathFactory) -> str:
    hub = federation.kubectl(tmp_path_factory.mktemp("viewer-cache"))
    hub.apply_yaml(READ_ONLY)
    return hub("create", "token", "viewer", "-n", "dashboard-viewers").strip()


@pytest.fixture
def admin(dashboard: DashboardProcess, hub_ca: Path, admin_token: str) -> DashboardUser:
    return DashboardUser(dashboard.url, hub_ca).sign_in(admin_token)


@pytest.fixture
def hub(federation: Federation, tmp_path: Path) -> Kubectl:
    return federation.kubectl(tmp_path / "hub-cache")


@pytest.fixture(scope="package")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the browser tests save a screenshot of each page: `$FLOTILLA_TEST_ARTIFACTS/dashboard`,
    else a pytest temporary directory; never inside the repository."""
    root = os.environ.get("FLOTILLA_TEST_ARTIFACTS")
    directory = Path(root) / "dashboard" if root else tmp_path_factory.mktemp("dashboard-screenshots")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@pytest.fixture(scope="package")
def chromium() -> Iterator[Any]:
    """A headless Debian chromium driven by chromium-driver through Selenium (`make system-packages`)."""
    binary, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if binary is None or driver is None:
        pytest.skip("chromium and chromium-driver are not installed (make system-packages installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in (
        "--headless=new",
        "--no-sandbox",  # the tests may run as root, where chromium's sandbox refuses to start
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1400,1000",
        # The dashboard's certificate is issued by the hub's CA, which this browser profile does not
        # trust; the API tests check that chain with the CA itself.
        "--ignore-certificate-errors",
    ):
        options.add_argument(argument)
    browser = webdriver.Chrome(options=options, service=Service(driver))
    browser.set_page_load_timeout(30)
    try:
        yield browser
    finally:
        browser.quit()
