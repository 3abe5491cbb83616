// Flotilla dashboard: a small single-page app without a build step. Every datum comes from /api/…
// (already filtered and paged by the server) and is rendered with textContent only, never as HTML.
"use strict";

const state = { csrf: "", user: "", live: null, page: "", refresh: null, workloadPages: [""] };

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function banner(message, kind) {
  const node = document.getElementById("banner");
  node.textContent = message || "";
  node.className = kind || "";
  node.hidden = !message;
}

const lastAnswers = new Map();

// A GET whose answer is the one the page already shows (since this visit) resolves to null, so a live refresh that
// changed nothing visible does not re-render (and never swaps a button out under the pointer).
async function fresh(path) {
  const data = await call("GET", path);
  const text = JSON.stringify(data);
  if (lastAnswers.get(path) === text) return null;
  lastAnswers.set(path, text);
  return data;
}

async function call(method, path, body) {
  const options = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  if (method !== "GET") options.headers["X-CSRF-Token"] = state.csrf;
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (error) { data = null; }
  if (response.status === 401 && path !== "/api/signin") { showSignIn(); throw new Error("sign in first"); }
  if (!response.ok && response.status !== 207) {
    const causes = ((data && data.details && data.details.causes) || []).map((c) => `${c.field || ""}: ${c.message}`);
    const error = new Error([(data && data.message) || response.statusText, ...causes].join("\n"));
    error.code = response.status;
    throw error;
  }
  return data;
}

function showSignIn() {
  document.getElementById("signin").hidden = false;
  document.getElementById("nav").hidden = true;
  document.getElementById("signout").hidden = true;
  document.getElementById("page").replaceChildren();
  document.getElementById("who").textContent = "";
  if (state.live) { state.live.close(); state.live = null; }
}

function signedIn(session) {
  state.csrf = session.csrf;
  state.user = session.user;
  document.getElementById("signin").hidden = true;
  document.getElementById("nav").hidden = false;
  document.getElementById("signout").hidden = false;
  document.getElementById("who").textContent = session.user;
  startLive();
  route();
}

function startLive() {
  if (state.live) state.live.close();
  const source = new EventSource("/api/live");
  source.addEventListener("change", (message) => {
    const kinds = JSON.parse(message.data).kinds;
    if (state.refresh && state.refresh.kinds.some((kind) => kinds.includes(kind))) state.refresh.run();
  });
  source.addEventListener("timeline", (message) => {
    if (state.page === "events" && state.refresh) state.refresh.run();
  });
  state.live = source;
}

function tile(id, label, value) {
  return h("div", { class: "tile" }, h("div", { class: "label" }, label), h("div", { class: "value", id }, value));
}

function fraction(resource) { return `${resource.allocated} / ${resource.total}`; }

function bytes(value) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let amount = Number(value); let unit = 0;
  while (amount >= 1024 && unit < units.length - 1) { amount /= 1024; unit += 1; }
  return `${amount.toFixed(unit ? 1 : 0)} ${units[unit]}`;
}

// Two requests side by side: the fleet's tiles (a few small lists) paint at once; the workload
// tiles (every binding: the hub's longest list) fill in when their answer arrives.
async function overviewPage(root) {
  const [data, counts] = await Promise.all([
    fresh("/api/overview/fleet"),
    fresh("/api/overview/workloads").catch((error) => { banner(error.message); return null; }),
  ]);
  if (data !== null || !root.firstChild) paintFleet(root, data || state.lastFleet);
  if (counts !== null) paintWorkloads(counts);
}

function paintFleet(root, data) {
  if (!data) return;
  state.lastFleet = data;
  const c = data.clusters, r = data.resources;
  const waiting = "…";
  root.replaceChildren(
    h("h1", {}, "Overview"),
    h("h2", {}, "Clusters"),
    h("div", { class: "tiles" },
      tile("ov-clusters-total", "Clusters", c.total), tile("ov-clusters-ready", "Ready", c.Ready),
      tile("ov-clusters-notready", "Not ready", c.NotReady), tile("ov-clusters-unknown", "Unknown", c.Unknown)),
    h("h2", {}, "Fleet capacity (allocated / total)"),
    h("div", { class: "tiles" },
      tile("ov-nodes", "Nodes ready / total", `${data.nodes.ready} / ${data.nodes.total}`),
      tile("ov-cpu", "CPU", fraction(r.cpu)),
      tile("ov-memory", "Memory", `${bytes(r.memory.allocated)} / ${bytes(r.memory.total)}`),
      tile("ov-pods", "Pods", fraction(r.pods))),
    h("h2", {}, "Workloads"),
    h("div", { class: "tiles" },
      tile("ov-workloads-total", "Workloads", state.lastCounts ? state.lastCounts.workloads.total : waiting),
      ...["ready", "progressing", "failed", "unscheduled"].map((name) =>
        tile(`ov-workloads-${name}`, name[0].toUpperCase() + name.slice(1), state.lastCounts ? state.lastCounts.workloads[name] : waiting))),
    h("h2", {}, "Policies"),
    h("div", { class: "tiles" },
      tile("ov-pp", "Propagation policies", data.policies.PropagationPolicy),
      tile("ov-cpp", "Cluster propagation policies", data.policies.ClusterPropagationPolicy),
      tile("ov-op", "Override policies", data.policies.OverridePolicy),
      tile("ov-cop", "Cluster override policies", data.policies.ClusterOverridePolicy)),
    h("div", { id: "ov-notes" }));
}

function paintWorkloads(counts) {
  state.lastCounts = counts;
  const w = counts.workloads;
  for (const [id, value] of [["total", w.total], ["ready", w.ready], ["progressing", w.progressing], ["failed", w.failed], ["unscheduled", w.unscheduled]]) {
    const node = document.getElementById(`ov-workloads-${id}`);
    if (node) node.textContent = String(value);
  }
  const notes = document.getElementById("ov-notes");
  if (notes) notes.replaceChildren(...counts.notes.map((note) => h("p", { class: "muted" }, note)));
}

function age(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  if (seconds < 120) return `${Math.round(seconds)}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds / 3600)}h`;
}

async function act(label, run) {
  try { await run(); banner(`${label}: done`, "info"); if (state.refresh) await state.refresh.run(); }
  catch (error) { banner(`${label}: ${error.message}`); }
}

function clusterActions(row) {
  const name = row.name;
  return h("td", {},
    h("button", { class: "secondary", "data-action": row.cordoned ? "uncordon" : "cordon", onclick: () =>
      act(row.cordoned ? `uncordon ${name}` : `cordon ${name}`,
        () => call("POST", `/api/clusters/${encodeURIComponent(name)}/cordon`, { cordon: !row.cordoned })) },
      row.cordoned ? "Uncordon" : "Cordon"), " ",
    h("button", { class: "secondary", "data-action": "taint", onclick: () => {
      const spec = window.prompt(`Taints for ${name} (key=value:NoSchedule, or key- to remove), comma-separated`);
      if (spec) act(`taint ${name}`, () => call("POST", `/api/clusters/${encodeURIComponent(name)}/taints`,
        { taints: spec.split(",").map((item) => item.trim()).filter(Boolean), overwrite: true }));
    } }, "Taint"), " ",
    h("button", { class: "danger", "data-action": "unjoin", onclick: () => {
      const typed = window.prompt(`Unjoin ${name}? Its workloads leave the member. Type the cluster's name to confirm.`);
      if (typed !== null) act(`unjoin ${name}`, () => call("POST", `/api/clusters/${encodeURIComponent(name)}/unjoin`, { confirm: typed }));
    } }, "Unjoin"));
}

function joinForm() {
  const name = h("input", { id: "join-name", placeholder: "name" });
  const region = h("input", { id: "join-region", placeholder: "region (optional)" });
  const file = h("input", { id: "join-file", type: "file" });
  const text = h("textarea", { id: "join-kubeconfig", rows: 4, placeholder: "or paste the member's kubeconfig" });
  const command = h("pre", { id: "register-command", hidden: true });
  return h("div", {},
    h("h2", {}, "Join a cluster"),
    h("div", { class: "toolbar" }, name, region, file),
    text,
    h("div", { class: "toolbar" },
      h("button", { id: "join-button", onclick: async () => {
        const uploaded = file.files && file.files[0] ? await file.files[0].text() : text.value;
        act(`join ${name.value}`, () => call("POST", "/api/clusters/join",
          { name: name.value.trim(), kubeconfig: uploaded, region: region.value.trim() }));
      } }, "Join (Push)"),
      h("button", { class: "secondary", id: "register-button", onclick: () => act("pull registration", async () => {
        const answer = await call("POST", "/api/clusters/register", {});
        command.textContent = answer.command; command.hidden = false;
      }) }, "Start a Pull registration")),
    command);
}

async function clustersPage(root) {
  const data = await fresh("/api/clusters");
  if (data === null) return;
  const rows = data.items.map((row) => h("tr", { id: `cluster-${row.name}` },
    h("td", {}, h("strong", {}, row.name), h("div", { class: "muted small" }, [row.region, row.provider].filter(Boolean).join(" · "))),
    h("td", {}, row.version || "—"),
    h("td", { class: `state-${row.state}`, "data-field": "state" }, row.state, row.cordoned ? " (cordoned)" : ""),
    h("td", {}, row.syncMode),
    h("td", {}, `${row.nodes.ready}/${row.nodes.total}`),
    h("td", {}, fraction(row.resources.cpu)),
    h("td", {}, `${bytes(row.resources.memory.allocated)} / ${bytes(row.resources.memory.total)}`),
    h("td", { "data-field": "taints" }, row.taints.map((t) => h("div", { class: "small" }, `${t.key}${t.value ? "=" + t.value : ""}:${t.effect}`))),
    h("td", {}, row.conditions.map((c) => h("div", { class: "small", title: c.message }, `${c.type}=${c.status} ${c.reason} since ${c.lastTransitionTime}`))),
    h("td", {}, age(row.leaseAgeSeconds)),
    clusterActions(row)));
  root.replaceChildren(h("h1", {}, "Clusters"),
    h("table", { id: "clusters-table" },
      h("thead", {}, h("tr", {}, ["Name", "Version", "Ready", "Mode", "Nodes", "CPU", "Memory", "Taints", "Conditions", "Lease age", ""].map((t) => h("th", {}, t)))),
      h("tbody", {}, rows)),
    joinForm());
}

function workloadFilters(filters, apply) {
  const fields = ["namespace", "kind", "cluster", "search"].map((name) =>
    h("input", { id: `filter-${name}`, placeholder: name, value: filters[name] || "" }));
  const stateSelect = h("select", { id: "filter-state" }, ["", "ready", "progressing", "failed", "unscheduled"].map((value) =>
    h("option", { value, selected: filters.state === value }, value || "any state")));
  return h("div", { class: "toolbar" }, fields, stateSelect, h("button", { id: "filter-apply", onclick: () => {
    const chosen = {}; for (const field of fields) chosen[field.id.slice(7)] = field.value.trim();
    chosen.state = stateSelect.value; apply(chosen);
  } }, "Filter"));
}

async function workloadsPage(root, filters, pageIndex) {
  filters = filters || {};
  pageIndex = pageIndex || 0;
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value));
  const token = state.workloadPages[pageIndex] || "";
  if (token) query.set("continue", token);
  query.set("limit", "50");
  const data = await fresh(`/api/workloads?${query}`);
  if (data === null) return;
  state.workloadPages[pageIndex + 1] = data.continue || "";
  const rows = data.items.map((row) => h("tr", { id: `workload-${row.namespace}-${row.name}` },
    h("td", {}, h("a", { href: `#/workload/${encodeURIComponent(row.namespace)}/${encodeURIComponent(row.binding)}` }, `${row.namespace}/${row.name}`)),
    h("td", {}, row.kind),
    h("td", {}, row.policy || "—"),
    h("td", { class: `state-${row.state}`, "data-field": "state" }, row.state),
    h("td", {}, row.clusters.map((c) => h("div", { class: "small", "data-cluster": c.name },
      `${c.name}: ${c.replicas ?? "—"} `, h("span", { class: c.health === "Healthy" ? "ok" : (c.applied === false || c.health === "Unhealthy" ? "bad" : "muted") }, c.health || (c.applied === false ? "not applied" : "pending")))))));
  const rerun = (chosen) => { state.workloadPages = [""]; render(() => workloadsPage(root, chosen, 0), ["workloads"]); };
  results(root, "Workloads", () => workloadFilters(filters, rerun)).replaceChildren(
    h("table", { id: "workloads-table" },
      h("thead", {}, h("tr", {}, ["Workload", "Kind", "Policy", "State", "Replicas per cluster"].map((t) => h("th", {}, t)))),
      h("tbody", {}, rows)),
    h("div", { class: "toolbar" },
      h("span", { class: "muted", id: "workloads-count" }, data.total === null || data.total === undefined ? `${rows.length} shown` : `${data.total} in all`),
      pageIndex > 0 ? h("button", { class: "secondary", onclick: () => render(() => workloadsPage(root, filters, pageIndex - 1), ["workloads"]) }, "Previous") : null,
      data.continue ? h("button", { class: "secondary", id: "next-page", onclick: () => render(() => workloadsPage(root, filters, pageIndex + 1), ["workloads"]) }, "Next") : null));
}

// A page with filters keeps its title and filter toolbar across refreshes (what the user is typing
// stays put); only the results below are replaced.
function results(root, title, toolbar) {
  let area = root.querySelector(":scope > .results");
  if (!area) {
    area = h("div", { class: "results" });
    root.replaceChildren(h("h1", {}, title), toolbar(), area);
  }
  return area;
}

function section(title, ...content) { return h("div", { class: "tile" }, h("h2", {}, title), ...content); }

async function workloadPage(root, namespace, binding) {
  const data = await call("GET", `/api/workloads/${encodeURIComponent(namespace)}/${encodeURIComponent(binding)}`);
  const w = data.workload;
  root.replaceChildren(
    h("h1", {}, `${w.kind} ${w.namespace}/${w.name} `, h("span", { class: `state-${w.state}` }, w.state)),
    h("div", { class: "chain" },
      section("Template", h("div", {}, `policy: ${w.policy || "—"}`), h("div", {}, `replicas: ${w.replicas ?? "—"}`)),
      section("ResourceBinding", h("div", { class: "small" }, data.binding.name),
        data.binding.conditions.map((c) => h("div", { class: "small" }, `${c.type}=${c.status} ${c.reason || ""}`)),
        data.binding.gracefulEvictionTasks.map((t) => h("div", { class: "small bad" }, `evicting from ${t.fromCluster}: ${t.reason || ""}`))),
      section("Works", data.works.map((work) => h("div", { class: "small" }, `${work.namespace}/${work.name} `,
        work.conditions.map((c) => `${c.type}=${c.status}`).join(" ")))),
      ...data.members.map((member) => section(`On ${member.cluster}`,
        member.error ? h("div", { class: "bad small" }, member.error) : null,
        member.object ? h("div", { class: "small" }, `${member.object.kind} ready ${member.object.readyReplicas ?? 0}/${member.object.replicas ?? 0}`) : null,
        member.pods.map((pod) => h("div", { class: "small" }, `pod ${pod.name} ${pod.phase} ${pod.node || ""}`))))),
    h("h2", {}, "Events"),
    eventsTable(data.events));
}

function eventsTable(items) {
  return h("table", { id: "timeline" },
    h("thead", {}, h("tr", {}, ["Time", "Type", "Reason", "Cluster", "Object", "Message"].map((t) => h("th", {}, t)))),
    h("tbody", {}, items.map((e) => h("tr", { "data-cluster": e.cluster, "data-reason": e.reason },
      h("td", { class: "small" }, e.time), h("td", { class: `type-${e.type}` }, e.type), h("td", {}, e.reason),
      h("td", {}, e.cluster || "—"), h("td", { class: "small" }, e.object), h("td", { class: "small" }, e.message)))));
}

async function policiesPage(root) {
  const data = await fresh("/api/policies");
  if (data === null) return;
  root.replaceChildren(h("h1", {}, "Policies"),
    h("table", { id: "policies-table" },
      h("thead", {}, h("tr", {}, ["Kind", "Policy", "Selects", "Cluster names", "Resources", "Clusters"].map((t) => h("th", {}, t)))),
      h("tbody", {}, data.items.map((p) => h("tr", {},
        h("td", {}, p.kind), h("td", {}, p.namespace ? `${p.namespace}/${p.name}` : p.name),
        h("td", { class: "small" }, p.selectors.join(", ")), h("td", { class: "small" }, p.clusterNames.join(", ") || "—"),
        h("td", { class: "small" }, `${p.resourceCount}: ${p.resources.join(", ")}`), h("td", { class: "small" }, p.clusters.join(", ")))))));
}

function planView(plan) {
  if (!plan.ok) return h("div", { class: "bad" }, `flotilla plan: ${plan.error}`);
  return h("div", {}, plan.plan.workloads.map((w) => h("div", { class: "tile", "data-workload": w.name },
    h("strong", {}, `${w.kind} ${w.namespace ? w.namespace + "/" : ""}${w.name}`),
    h("div", { class: "small" }, `policy: ${w.policy ? w.policy.name : "none claims it"}; replicas: ${w.replicas ?? "—"}`),
    w.scheduled ? h("div", { class: "small" }, `Scheduled=${w.scheduled.status} ${w.scheduled.reason}: ${w.scheduled.message || ""}`) : null,
    h("table", {}, h("tbody", {}, (w.clusters || []).map((c) => h("tr", { "data-plan-cluster": c.name },
      h("td", {}, c.name), h("td", { class: c.outcome === "selected" || c.planned ? "ok" : "muted" }, c.outcome),
      h("td", {}, c.planned ?? ""), h("td", { class: "small" }, [c.plugin, c.reason].filter(Boolean).join(": ")))))),
    ...(w.notes || []).map((note) => h("div", { class: "muted small" }, note)))));
}

async function applyPage(root) {
  const editor = h("textarea", { id: "editor", spellcheck: "false", placeholder: "apiVersion: apps/v1\nkind: Deployment\n…\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n…" });
  const result = h("div", { id: "preview-result" });
  const applyButton = h("button", { id: "apply-button", disabled: true }, "Apply");
  let previewed = null;
  editor.addEventListener("input", () => { applyButton.disabled = editor.value !== previewed; });
  const previewButton = h("button", { id: "preview-button", class: "secondary", onclick: async () => {
    result.replaceChildren(h("p", { class: "muted" }, "Planning…"));
    try {
      const text = editor.value;
      const answer = await call("POST", "/api/preview", { yaml: text });
      const dryOk = answer.dryRun.every((item) => item.ok);
      result.replaceChildren(h("h2", {}, "Where it would go (flotilla plan)"), planView(answer.plan),
        h("h2", {}, "Server-side dry run"),
        h("ul", { id: "dry-run" }, answer.dryRun.map((item) => h("li", { class: item.ok ? "ok" : "bad" }, `${item.object}: ${item.message}`))));
      previewed = dryOk ? text : null;
      applyButton.disabled = !dryOk;
    } catch (error) { result.replaceChildren(h("p", { class: "bad" }, error.message)); }
  } }, "Preview");
  applyButton.addEventListener("click", () => act("apply", async () => {
    const answer = await call("POST", "/api/apply", { yaml: editor.value });
    result.append(h("h2", {}, "Applied"), h("ul", { id: "apply-result" }, answer.results.map((item) =>
      h("li", { class: item.ok ? "ok" : "bad" }, `${item.object}: ${item.message}`))));
    applyButton.disabled = true;
  }));
  root.replaceChildren(h("h1", {}, "Apply"), h("p", { class: "muted" }, "Preview shows the placement and the hub's dry run; Apply is enabled once this exact text previewed cleanly."),
    editor, h("div", { class: "toolbar" }, previewButton, applyButton), result);
}

async function eventsPage(root, filters) {
  filters = filters || {};
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value));
  const data = await fresh(`/api/events?${query}`);
  if (data === null) return;
  const cluster = h("input", { id: "events-cluster", placeholder: "cluster", value: filters.cluster || "" });
  const workload = h("input", { id: "events-workload", placeholder: "workload", value: filters.workload || "" });
  results(root, "Events and failover timeline", () =>
    h("div", { class: "toolbar" }, cluster, workload, h("button", { id: "events-filter", onclick: () =>
      render(() => eventsPage(root, { cluster: cluster.value.trim(), workload: workload.value.trim() }), ["events", "clusters"]) }, "Filter")))
    .replaceChildren(eventsTable(data.items));
}

async function render(run, kinds) {
  let busy = false;
  const refresh = { kinds, run: async () => {
    if (busy) return; busy = true;
    try { await run(); } catch (error) { if (error.message !== "sign in first") banner(error.message); } finally { busy = false; }
  } };
  state.refresh = refresh;
  await refresh.run();
}

function route() {
  if (!state.csrf) return;
  const parts = (location.hash || "#/overview").slice(2).split("/").map(decodeURIComponent);
  const page = parts[0] || "overview";
  state.page = page;
  for (const link of document.querySelectorAll("nav a")) link.classList.toggle("active", link.dataset.page === page);
  banner("");
  // Each visit renders into a fresh element: a slower answer for the page left behind lands in a
  // detached element instead of over the page shown now.
  const root = h("div", { id: `page-${page}` });
  document.getElementById("page").replaceChildren(root);
  lastAnswers.clear();
  if (page === "clusters") render(() => clustersPage(root), ["clusters"]);
  else if (page === "workloads") { state.workloadPages = [""]; render(() => workloadsPage(root, {}, 0), ["workloads"]); }
  else if (page === "workload") render(() => workloadPage(root, parts[1], parts[2]), ["workloads"]);
  else if (page === "policies") render(() => policiesPage(root), ["workloads"]);
  else if (page === "apply") { state.refresh = null; applyPage(root); }
  else if (page === "events") render(() => eventsPage(root, {}), ["events", "clusters"]);
  else render(() => overviewPage(root), ["clusters", "workloads"]);
}

document.addEventListener("DOMContentLoaded", async () => {
  document.getElementById("signin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try { signedIn(await call("POST", "/api/signin", { token: document.getElementById("token").value })); banner(""); }
    catch (error) { banner(`Sign-in failed: ${error.message}`); }
  });
  document.getElementById("signout").addEventListener("click", async () => {
    try { await call("POST", "/api/signout", {}); } finally { state.csrf = ""; showSignIn(); }
  });
  window.addEventListener("hashchange", route);
  try { signedIn(await call("GET", "/api/session")); } catch (error) { showSignIn(); }
});
