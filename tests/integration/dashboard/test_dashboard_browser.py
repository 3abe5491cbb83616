"""The dashboard in a headless chromium against a real hub: what a person sees and can do.

Each test drives the pages as a person would (sign in, read the tiles, write in the editor, click)
and checks them against the hub's objects; each page is saved as a screenshot to `artifacts`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.integration.dashboard.dashboardclient import DashboardProcess, DashboardUser
from tests.integration.federation import Federation, deployment, propagation_policy, resource_selector
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl


def text_of(browser: Any, selector: str) -> str:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    try:
        return str(browser.find_element("css selector", selector).text)
    except (NoSuchElementException, StaleElementReferenceException):
        return ""


def element(browser: Any, selector: str) -> Any:
    """The element `selector` finds, or None (yet)."""
    found = browser.find_elements("css selector", selector)
    return found[0] if found else None


def click(browser: Any, selector: str) -> None:
    """Click `selector` once it is there; again if a live refresh replaced it in between."""
    from selenium.common.exceptions import StaleElementReferenceException

    def clicked() -> bool:
        found = element(browser, selector)
        if found is None:
            return False
        try:
            found.click()
        except StaleElementReferenceException:
            return False
        return True

    eventually(clicked, timeout=15, what=f"{selector} clicked")


def wait_text(browser: Any, selector: str, until: Any, what: str, timeout: float = 30) -> str:
    """The text of `selector` once `until` holds; on failure, what the page showed instead."""
    try:
        return eventually(lambda: text_of(browser, selector), until=until, timeout=timeout, what=what)
    except AssertionError as failure:
        shown = f"banner: {text_of(browser, '#banner')!r}; page: {text_of(browser, 'main')[:2000]!r}"
        raise AssertionError(f"{failure}\n{shown}") from None


def sign_in(browser: Any, url: str, token: str) -> None:
    browser.delete_all_cookies()
    browser.get(url)
    browser.get(url)  # with no cookie left, the sign-in form shows
    eventually(
        lambda: (found := element(browser, "#token")) and found.is_displayed(),
        timeout=15,
        what="the sign-in form",
    )
    browser.find_element("id", "token").send_keys(token)
    browser.find_element("id", "signin-button").click()


def show(browser: Any, url: str, page: str) -> None:
    browser.get(f"{url}#/{page}")


def screenshot(browser: Any, artifacts: Path, name: str) -> None:
    browser.save_screenshot(str(artifacts / f"{name}.png"))


def test_sign_in_shows_the_overview_of_the_hubs_objects(
    chromium: Any, dashboard: DashboardProcess, admin_token: str, hub: Kubectl, artifacts: Path
) -> None:
    """After signing in, the overview's tiles are the hub's clusters, nodes and workloads."""
    sign_in(chromium, dashboard.url, admin_token)
    wait_text(chromium, "#who", lambda text: text.endswith(":admin"), "signed in as the admin")
    clusters = hub.json("get", "clusters")["items"]
    bindings = hub.json("get", "resourcebindings", "-A")["items"]
    nodes = sum(c["status"]["nodeSummary"]["totalNum"] for c in clusters)
    wait_text(chromium, "#ov-clusters-total", lambda text: text == str(len(clusters)), "cluster tile")
    assert text_of(chromium, "#ov-nodes").endswith(f"/ {nodes}")
    wait_text(chromium, "#ov-workloads-total", lambda text: text == str(len(bindings)), "workload tile")
    screenshot(chromium, artifacts, "overview")


def manifests(namespace: str) -> str:
    documents: list[dict[str, Any]] = [
        deployment("shop", namespace=namespace, replicas=2),
        propagation_policy(
            "shop",
            [resource_selector("Deployment", "shop")],
            {"clusterAffinity": {"clusterNames": ["member1", "member3"]}},
            namespace=namespace,
        ),
    ]
    return "\n---\n".join(json.dumps(document, indent=2) for document in documents)


def test_apply_through_the_editor_after_its_preview_then_ready_per_cluster(
    chromium: Any, dashboard: DashboardProcess, admin_token: str, hub: Kubectl, ns: str, artifacts: Path
) -> None:
    """Apply stays disabled until the preview shows the plan and a clean dry run; once applied, the
    workload list shows it ready on both chosen clusters, and its page shows the chain."""
    sign_in(chromium, dashboard.url, admin_token)
    wait_text(chromium, "#who", bool, "signed in")
    show(chromium, dashboard.url, "apply")
    editor = eventually(lambda: element(chromium, "#editor"), timeout=10, what="the editor")
    chromium.execute_script(
        "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));",
        editor,
        manifests(ns),
    )
    assert not chromium.find_element("id", "apply-button").is_enabled()
    chromium.find_element("id", "preview-button").click()
    wait_text(
        chromium, "#dry-run", lambda text: text.count("applied (dry run)") == 2, "the dry run", timeout=60
    )
    planned = text_of(chromium, "[data-workload='shop']")
    assert "member1" in planned and "member3" in planned and "member2" in planned, planned
    screenshot(chromium, artifacts, "apply-preview")
    assert not hub.succeeds("get", "deployment", "shop", "-n", ns)
    chromium.find_element("id", "apply-button").click()
    wait_text(chromium, "#apply-result", lambda text: text.count("applied") == 2, "applied")

    show(chromium, dashboard.url, "workloads")
    eventually(lambda: element(chromium, "#filter-namespace"), timeout=10, what="the filters")
    chromium.find_element("id", "filter-namespace").send_keys(ns)
    chromium.find_element("id", "filter-apply").click()
    row = f"#workload-{ns}-shop"
    wait_text(chromium, f"{row} [data-field='state']", lambda text: text == "ready", "shop ready", timeout=60)
    assert "Healthy" in text_of(chromium, f"{row} [data-cluster='member1']")
    assert "Healthy" in text_of(chromium, f"{row} [data-cluster='member3']")
    screenshot(chromium, artifacts, "workloads")
    click(chromium, f"{row} a")
    wait_text(chromium, ".chain", lambda text: "karmada-es-member3" in text, "the chain")
    screenshot(chromium, artifacts, "workload")
    show(chromium, dashboard.url, "policies")
    wait_text(chromium, "#policies-table", lambda text: f"{ns}/shop" in text, "the policy")
    screenshot(chromium, artifacts, "policies")


def test_an_unreachable_member_shows_live_on_the_clusters_page_and_in_the_timeline(
    chromium: Any, dashboard: DashboardProcess, admin_token: str, federation: Federation, artifacts: Path
) -> None:
    """With the clusters page open, `flotilla sim fault --unreachable` turns member2 NotReady without a
    reload (the live stream), and the timeline filtered to member2 shows ClusterNotReady."""
    sign_in(chromium, dashboard.url, admin_token)
    wait_text(chromium, "#who", bool, "signed in")
    show(chromium, dashboard.url, "clusters")
    state = "#cluster-member2 [data-field='state']"
    wait_text(chromium, state, lambda text: text.startswith("Ready"), "member2 Ready")
    federation.sim.fault("member2", "--unreachable")
    try:
        wait_text(chromium, state, lambda text: text.startswith("NotReady"), "member2 NotReady, live")
        screenshot(chromium, artifacts, "clusters")
        show(chromium, dashboard.url, "events")
        eventually(lambda: element(chromium, "#events-cluster"), timeout=10, what="the filters")
        chromium.find_element("id", "events-cluster").send_keys("member2")
        chromium.find_element("id", "events-filter").click()
        wait_text(chromium, "#timeline", lambda text: "ClusterNotReady" in text, "the timeline")
        clusters = {
            row.get_attribute("data-cluster")
            for row in chromium.find_elements("css selector", "#timeline tbody tr")
        }
        assert clusters == {"member2"}
        screenshot(chromium, artifacts, "events")
    finally:
        federation.sim.fault("member2", "--recover")
        federation.wait_clusters_ready()


def test_a_read_only_user_is_refused_a_write(
    chromium: Any, dashboard: DashboardProcess, viewer_token: str, hub: Kubectl, artifacts: Path
) -> None:
    """The viewer sees the clusters; Cordon comes back Forbidden from the hub and the cluster is unchanged."""
    sign_in(chromium, dashboard.url, viewer_token)
    wait_text(chromium, "#who", lambda text: text.endswith(":viewer"), "signed in as the viewer")
    show(chromium, dashboard.url, "clusters")
    button = "#cluster-member1 [data-action='cordon']"
    click(chromium, button)
    wait_text(chromium, "#banner", lambda text: "forbidden" in text.lower(), "the refusal")
    screenshot(chromium, artifacts, "read-only-refused")
    assert not hub.json("get", "cluster", "member1")["spec"].get("taints")


def test_a_cluster_joins_from_the_clusters_page(
    chromium: Any,
    dashboard: DashboardProcess,
    admin_token: str,
    hub_ca: Path,
    federation: Federation,
    hub: Kubectl,
    artifacts: Path,
) -> None:
    """member3, unjoined, joins again from the page's form with its kubeconfig pasted, and turns Ready."""
    admin = DashboardUser(dashboard.url, hub_ca).sign_in(admin_token)
    assert admin.post("/api/clusters/member3/unjoin", {"confirm": "member3"}).status == 200
    sign_in(chromium, dashboard.url, admin_token)
    wait_text(chromium, "#who", bool, "signed in")
    show(chromium, dashboard.url, "clusters")
    eventually(lambda: element(chromium, "#join-kubeconfig"), timeout=15, what="the join form")
    assert element(chromium, "#cluster-member3") is None
    chromium.find_element("id", "join-name").send_keys("member3")
    chromium.find_element("id", "join-region").send_keys("region-b")
    chromium.execute_script(
        "document.getElementById('join-kubeconfig').value = arguments[0];",
        federation.sim.kubeconfig("member3").read_text(),
    )
    click(chromium, "#join-button")
    wait_text(chromium, "#banner", lambda text: "join member3: done" in text, "joined")
    wait_text(
        chromium, "#cluster-member3 [data-field='state']", lambda t: t.startswith("Ready"), "member3 Ready"
    )
    assert hub.json("get", "cluster", "member3")["spec"]["region"] == "region-b"
    screenshot(chromium, artifacts, "clusters-joined")
