// Table Monitor surveillance console. Plain ES module, no build step, no third-party code.
// Every piece of server data is put into the page with textContent (never innerHTML).

const TOKEN_KEY = "tm.token";
const SOUND_KEY = "tm.sound";
const SEVERITIES = ["misdeal", "integrity", "procedure", "device", "data", "info"];
const PAGE = 25;

const $ = (id) => document.getElementById(id);
const state = {
  token: sessionStorage.getItem(TOKEN_KEY),
  me: null,
  alerts: new Map(), // id -> summary, the live feed
  tables: new Map(), // id -> table
  ws: null,
  retry: 1000,
  current: null, // alert id in the detail dialog
  historyOffset: 0,
  handsOffset: 0,
  tablesTimer: null,
};

// ---------------------------------------------------------------- helpers

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// An alert's rule as a person reads it: "Livermore Casino Pai Gow Poker, rule 55" (the stored key where the
// product's references do not hold it).
function citedText(a, fallback = a.code) {
  return a.citation ? a.citation.text : (a.rule || fallback);
}

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

function describe(detail) {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) return detail.map((d) => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ");
  return "request failed";
}

async function api(path, options = {}) {
  const headers = { Authorization: `Bearer ${state.token}`, ...(options.headers || {}) };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    ...options, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (res.status === 401) { signOut("Your token was not accepted. Sign in again."); throw new ApiError(401, "signed out"); }
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try { message = describe((await res.json()).detail); } catch (_) { /* not JSON */ }
    throw new ApiError(res.status, message);
  }
  return res;
}
const getJSON = async (path) => (await api(path)).json();

function fmtTime(iso) {
  if (!iso) return "–";
  const d = new Date(iso);
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
}
function fmtDateTime(iso) {
  if (!iso) return "–";
  const d = new Date(iso);
  return `${d.toLocaleDateString()} ${fmtTime(iso)}`;
}
function ago(iso) {
  const s = Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m ago`;
}
function fmtMedia(t) {
  if (t === null || t === undefined) return "–";
  const m = Math.floor(t / 60), s = (t % 60).toFixed(1).padStart(4, "0");
  return `${m}:${s}`;
}
function money(cents) {
  if (cents === null || cents === undefined) return "";
  return `$${(cents / 100).toLocaleString(undefined, { maximumFractionDigits: 2 })}`;
}
const canAct = () => state.me && state.me.permissions.includes("act");

// ---------------------------------------------------------------- sound

let audio = null;
function beep(severity) {
  if (!$("sound").checked) return;
  audio = audio || new AudioContext();
  const tones = { misdeal: [880, 660, 880], integrity: [740, 740], procedure: [520], device: [400] };
  const seq = tones[severity] || [];
  seq.forEach((f, i) => {
    const o = audio.createOscillator(), g = audio.createGain();
    o.frequency.value = f; o.type = "square";
    g.gain.setValueAtTime(0.08, audio.currentTime + i * 0.18);
    g.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + i * 0.18 + 0.15);
    o.connect(g).connect(audio.destination);
    o.start(audio.currentTime + i * 0.18); o.stop(audio.currentTime + i * 0.18 + 0.16);
  });
}

// ---------------------------------------------------------------- login

async function signIn(token) {
  state.token = token;
  const res = await fetch("/api/v1/me", { headers: { Authorization: `Bearer ${token}` } });
  if (!res.ok) { state.token = null; throw new Error(res.status === 401 ? "That token is not valid." : `Server answered ${res.status}.`); }
  state.me = await res.json();
  if (!state.me.permissions.includes("read")) { state.token = null; throw new Error(`A ${state.me.role} token cannot use the console.`); }
  sessionStorage.setItem(TOKEN_KEY, token);
  $("login").hidden = true;
  $("app").hidden = false;
  $("who").textContent = `${state.me.name} · ${state.me.role}`;
  document.querySelector('[data-view="deliveries"]').hidden = !state.me.permissions.includes("admin");
  connect();
  await Promise.all([loadFeed(), loadTables()]);
  route();
}

function signOut(message = "") {
  sessionStorage.removeItem(TOKEN_KEY);
  state.token = null; state.me = null;
  if (state.ws) { state.ws.onclose = null; state.ws.close(); state.ws = null; }
  $("app").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message;
  $("token").value = "";
  $("token").focus();
}

// ---------------------------------------------------------------- live connection

function setConn(live, text) {
  const el = $("conn");
  el.textContent = text;
  el.className = `conn ${live ? "conn-up" : "conn-down"}`;
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  // batch=true: under load the server sends what is waiting as one "batch" message.
  const ws = new WebSocket(`${proto}://${location.host}/api/v1/live/ws?batch=true`);
  state.ws = ws;
  setConn(false, "connecting…");
  ws.onopen = () => ws.send(JSON.stringify({ type: "auth", token: state.token }));
  ws.onmessage = (msg) => {
    const m = JSON.parse(msg.data);
    if (m.type === "batch") m.data.forEach(onLive); else onLive(m);
  };
  ws.onclose = (ev) => {
    if (state.ws !== ws) return;
    if (ev.code === 4401) { signOut("Your token was not accepted. Sign in again."); return; }
    setConn(false, `reconnecting in ${Math.round(state.retry / 1000)}s`);
    setTimeout(() => { if (state.token && state.ws === ws) connect(); }, state.retry);
    state.retry = Math.min(state.retry * 2, 15000);
  };
}

function onLive(m) {
  if (m.type === "hello") {
    state.retry = 1000; setConn(true, "live");
    loadFeed(); loadTables(); // catch up on anything raised while disconnected
  } else if (m.type === "alert") {
    const isNew = !state.alerts.has(m.data.id);
    upsertAlert(m.data, isNew);
    if (isNew) beep(m.data.severity);
  } else if (m.type === "alert_update") {
    upsertAlert(m.data, false);
    if (state.current === m.data.id) openDetail(m.data.id);
  } else if (m.type === "table") {
    const t = state.tables.get(m.data.table_id) || { id: m.data.table_id, open_alerts: 0 };
    t.state = m.data; t.game = m.data.game;
    state.tables.set(t.id, t);
    renderTables();
  } else if (m.type === "sources") {
    // a table's run reported its camera and dice reader (every few seconds)
    const t = state.tables.get(m.data.table_id);
    if (t) { t.sources = m.data.sources; renderTables(); }
  }
}

// ---------------------------------------------------------------- live feed

async function loadFeed() {
  const statuses = $("show-resolved").checked ? "" : "&status=new&status=acknowledged";
  const page = await getJSON(`/api/v1/alerts?limit=200${statuses}`);
  state.alerts = new Map(page.items.map((a) => [a.id, a]));
  renderFeed();
}

function upsertAlert(alert, fresh) {
  state.alerts.set(alert.id, alert);
  renderFeed(fresh ? alert.id : null);
  if (state.tables.has(alert.table_id)) refreshTablesSoon();
}

// Open-alert counts come from the server; at most one reload a second however many alerts arrive.
function refreshTablesSoon() {
  if (state.tablesTimer) return;
  state.tablesTimer = setTimeout(() => { state.tablesTimer = null; loadTables(); }, 1000);
}

function alertCard(a, fresh) {
  const actions = [];
  if (canAct() && a.status === "new") {
    actions.push(h("button", { class: "small", onclick: (e) => { e.stopPropagation(); quickAck(a.id); } }, "Acknowledge"));
  }
  return h("li", {
    class: `alert sev-${a.severity} status-${a.status}${fresh ? " fresh" : ""}`,
    dataset: { id: a.id }, tabindex: "0", role: "button",
    onclick: () => openDetail(a.id), onkeydown: (e) => { if (e.key === "Enter") openDetail(a.id); },
  },
  h("div", { class: "alert-top" },
    h("span", { class: `sev sev-${a.severity}` }, a.severity),
    h("span", { class: "alert-table" }, `Table ${a.table_id}`),
    h("span", { class: "alert-status" }, a.status),
    h("time", { class: "alert-time", datetime: a.raised_at, title: fmtDateTime(a.raised_at) }, `${fmtTime(a.raised_at)} · ${ago(a.raised_at)}`)),
  h("div", { class: "alert-msg" }, a.message),
  h("div", { class: "alert-meta" },
    h("span", { class: "alert-rule" }, citedText(a)),
    a.round_id ? h("span", {}, `round ${a.round_id.split("/").slice(1).join("/")}`) : null,
    a.acknowledged_by ? h("span", {}, `ack ${a.acknowledged_by}`) : null,
    ...actions));
}

function renderFeed(freshId = null) {
  const showResolved = $("show-resolved").checked;
  const items = [...state.alerts.values()]
    .filter((a) => showResolved || a.status !== "resolved")
    .sort((x, y) => (y.raised_at > x.raised_at ? 1 : y.raised_at < x.raised_at ? -1 : 0));
  const feed = $("feed");
  feed.replaceChildren(...items.map((a) => alertCard(a, a.id === freshId)));
  $("feed-empty").hidden = items.length > 0;
  const unacked = items.filter((a) => a.status === "new").length;
  $("open-count").textContent = `${unacked} new`;
  $("open-count").classList.toggle("hot", unacked > 0);
  document.title = unacked ? `(${unacked}) Table Monitor` : "Table Monitor";
}

async function quickAck(id) {
  try {
    const a = await (await api(`/api/v1/alerts/${encodeURIComponent(id)}/acknowledge`, { method: "POST", body: {} })).json();
    upsertAlert(a, false);
  } catch (e) { if (e.status !== 401) alert(e.message); }
}

// ---------------------------------------------------------------- tables

async function loadTables() {
  const list = await getJSON("/api/v1/tables");
  state.tables = new Map(list.map((t) => [t.id, t]));
  renderTables();
}

function dice(values) {
  if (!values || !values.length) return h("span", { class: "muted" }, "no dice yet");
  return h("span", { class: "dice" }, ...values.map((v) => h("span", { class: "die", title: `die ${v}` }, String(v))),
    h("span", { class: "dice-total" }, `= ${values.reduce((s, v) => s + v, 0)}`));
}

function seatChips(st) {
  const seats = st.seats || {};
  const chips = [];
  for (let n = 1; n <= 7; n += 1) {
    const s = seats[String(n)] || {};
    const banker = st.banker_seat === n;
    const cls = ["seat", banker ? "banker" : "", s.bet ? "bet" : "", s.dead ? "dead" : "", s.set ? "set" : "", s.folded ? "folded" : ""].join(" ");
    const label = [banker ? "banker" : null, s.bet ? money(s.bet) : null, s.pile ? `pile ${s.pile}` : null,
      s.set ? "set" : null, s.dead ? "dead hand" : null].filter(Boolean).join(" · ");
    chips.push(h("div", { class: cls, title: `Seat ${n}${label ? `: ${label}` : ""}` },
      h("div", { class: "seat-n" }, banker ? `${n}★` : String(n)),
      h("div", { class: "seat-x" }, s.bet ? money(s.bet) : banker ? "bank" : "–")));
  }
  return h("div", { class: "seats" }, ...chips);
}

// One line per camera or dice reader: what a floor person needs to trust the table's alerts.
function sourceLine(s) {
  const stale = s.age_s != null && s.age_s > 30;
  const facts = [s.kind === "camera" ? "camera" : "dice reader", s.source];
  if (stale) facts.push(`not reported for ${Math.round(s.age_s)} s`);
  else if (!s.up) facts.push(s.state);
  if (s.kind === "camera") {
    if (s.fps != null) facts.push(`${s.fps.toFixed(1)} fps`);
    if (s.dropped) facts.push(`${s.dropped} dropped`);
  } else {
    if (s.bad_lines) facts.push(`${s.bad_lines} bad lines`);
    if (s.missing_readings) facts.push(`${s.missing_readings} rolls lost`);
    if (s.silent_s != null && s.silent_s > 10) facts.push(`silent ${Math.round(s.silent_s)} s`);
  }
  if (s.reconnects) facts.push(`${s.reconnects} reconnects`);
  return h("div", { class: `source${s.up && !stale ? "" : " source-down"}`, dataset: { kind: s.kind } }, facts.join(" · "));
}

function renderTables() {
  const tables = [...state.tables.values()].sort((a, b) => a.id.localeCompare(b.id));
  $("tables").replaceChildren(...tables.map((t) => {
    const st = t.state || {};
    const devices = Object.entries(st.devices || {}).filter(([, v]) => v === "lost");
    return h("article", { class: `table-card${t.open_alerts ? " has-alerts" : ""}`, dataset: { table: t.id } },
      h("header", {},
        h("h3", {}, `Table ${t.id}`),
        h("span", { class: "game" }, (st.game || t.game || "").replace("_", " ")),
        t.open_alerts ? h("span", { class: "badge" }, `${t.open_alerts} open`) : null),
      // the rules the table is judged by (its table file's profile), so an alert reads against them
      (st.profile || t.profile) ? h("div", { class: "profile muted", title: (st.profile || t.profile).line },
        `Profile ${(st.profile || t.profile).line}`) : null,
      h("div", { class: "phase-row" },
        h("span", { class: "phase" }, st.phase || "idle"),
        st.round_id ? h("span", { class: "muted" }, `round ${st.round_id}`) : null),
      h("div", { class: "dice-row" }, h("span", { class: "label" }, "Last dice"), dice(st.last_dice),
        st.action_pile ? h("span", { class: "muted" }, `action pile ${st.action_pile}`) : null),
      seatChips(st),
      st.board && st.board.length ? h("div", { class: "board" }, `Board ${st.board.join(" ")}`) : null,
      devices.length ? h("div", { class: "device-lost" }, `Lost: ${devices.map(([k]) => k).join(", ")}`) : null,
      // what the camera could not judge this round, said rather than left blank
      ...(st.not_judged || []).map((n) => h("div", { class: "not-judged" }, n)),
      t.sources && t.sources.length ? h("div", { class: "sources" }, ...t.sources.map(sourceLine)) : null,
      h("footer", { class: "muted" }, `last event ${st.last_wall_time ? ago(st.last_wall_time) : "–"} · media ${fmtMedia(st.last_media_time)}`));
  }));
  $("tables-empty").hidden = tables.length > 0;
}

// ---------------------------------------------------------------- detail

function fact(k, v) { return [h("dt", {}, k), h("dd", {}, v)]; }

function eventDetails(e) {
  const skip = new Set(["type", "table_id", "seq", "media_time", "wall_time", "schema_version", "source", "confidence", "frame"]);
  return Object.entries(e).filter(([k]) => !skip.has(k)).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`).join("  ");
}

async function openDetail(id) {
  state.current = id;
  let d;
  try { d = await getJSON(`/api/v1/alerts/${encodeURIComponent(id)}`); } catch (e) { return; }
  const dlg = $("detail");
  dlg.className = `detail sev-${d.severity}`;
  $("detail-sev").textContent = d.severity;
  $("detail-sev").className = `sev sev-${d.severity}`;
  $("detail-title").textContent = d.message;
  $("detail-facts").replaceChildren(
    ...fact("Table", d.table_id), ...fact("Round", d.round_id || "–"), ...fact("Alert", d.code),
    ...fact("Profile", d.profile || "–"),
    ...fact("Status", d.status), ...fact("Raised", fmtDateTime(d.raised_at)),
    ...fact("Media", `${fmtMedia(d.media.begin)} → ${fmtMedia(d.media.trigger)} → ${fmtMedia(d.media.end)}`),
    ...fact("Bookmark", d.bookmark.trigger ? `${fmtDateTime(d.bookmark.begin)} – ${fmtTime(d.bookmark.end)}` : "–"),
    ...(d.acknowledged_by ? fact("Acknowledged", `${d.acknowledged_by}, ${fmtDateTime(d.acknowledged_at)}${d.acknowledge_comment ? ` — ${d.acknowledge_comment}` : ""}`) : []),
    ...(d.resolved_by ? fact("Resolved", `${d.resolved_by}, ${fmtDateTime(d.resolved_at)} — ${d.resolve_comment}`) : []));
  const rule = d.alert.rule;
  const c = d.citation;
  // The citation opens the product's own reference for the rule (/rules/<rulebook>#rule-<n>).
  const link = (href, text) => h("a", { href, target: "_blank", rel: "noopener" }, text);
  $("detail-rule").replaceChildren(
    h("strong", {}, c ? link(c.href, c.text) : citedText(d)), " ", rule.text,
    ...(c ? c.rules.map((r) => h("div", { class: "rule-ref" },
      link(r.href, `Rule ${r.number}: ${r.title}`), ` — what the monitor checks: ${r.checks}`)) : []));
  const fig = $("detail-snapshot");
  fig.hidden = true;
  if (d.has_snapshot) {
    api(`/api/v1/alerts/${encodeURIComponent(id)}/snapshot`).then((r) => r.blob()).then((b) => {
      fig.querySelector("img").src = URL.createObjectURL(b); fig.hidden = false;
    }).catch(() => {});
  }
  $("detail-evidence").replaceChildren(...d.alert.evidence.map((e) => h("tr", {},
    h("td", {}, String(e.seq)), h("td", {}, fmtMedia(e.media_time)), h("td", {}, e.type), h("td", { class: "mono" }, eventDetails(e)))));
  if (!d.alert.evidence.length) $("detail-evidence").append(h("tr", {}, h("td", { colspan: "4", class: "muted" }, d.alert.raw_input || "no events")));
  $("detail-audit").replaceChildren(...d.audit.map((a) => h("li", {},
    h("span", { class: "mono" }, `#${a.seq}`), ` ${a.action.replace("alert.", "")} by ${a.actor} at ${fmtDateTime(a.recorded_at)} `,
    h("span", { class: "mono muted", title: a.hash }, a.hash.slice(0, 12)))));
  $("ack-button").disabled = !canAct() || d.status !== "new";
  $("resolve-button").disabled = !canAct() || d.status === "resolved";
  $("detail-actions").hidden = !canAct();
  $("action-error").textContent = "";
  if (!dlg.open) { $("detail-comment").value = ""; dlg.showModal(); }
}

async function act(kind) {
  const comment = $("detail-comment").value.trim();
  if (kind === "resolve" && !comment) { $("action-error").textContent = "Write what was found and done before resolving."; return; }
  try {
    const body = comment ? { comment } : {};
    const d = await (await api(`/api/v1/alerts/${encodeURIComponent(state.current)}/${kind}`, { method: "POST", body })).json();
    upsertAlert(d, false);
    $("detail-comment").value = "";
    openDetail(d.id);
  } catch (e) { $("action-error").textContent = e.message; }
}

// ---------------------------------------------------------------- history

function localToIso(v) { return v ? new Date(v).toISOString() : ""; }

async function loadHistory() {
  const f = new FormData($("history-form"));
  const q = new URLSearchParams({ limit: PAGE, offset: state.historyOffset });
  if (f.get("table_id")) q.set("table_id", f.get("table_id"));
  if (f.get("severity")) q.set("severity", f.get("severity"));
  if (f.get("status")) q.set("status", f.get("status"));
  if (f.get("since")) q.set("since", localToIso(f.get("since")));
  if (f.get("until")) q.set("until", localToIso(f.get("until")));
  const page = await getJSON(`/api/v1/alerts?${q}`);
  $("history-rows").replaceChildren(...page.items.map((a) => h("tr", { class: `row sev-${a.severity}`, dataset: { id: a.id }, onclick: () => openDetail(a.id) },
    h("td", {}, fmtDateTime(a.raised_at)), h("td", {}, h("span", { class: `sev sev-${a.severity}` }, a.severity)),
    h("td", {}, a.table_id), h("td", {}, a.message), h("td", {}, citedText(a, "")), h("td", {}, a.status),
    h("td", {}, a.resolved_by || a.acknowledged_by || ""))));
  if (!page.items.length) $("history-rows").append(h("tr", {}, h("td", { colspan: "7", class: "muted" }, "No alerts match.")));
  pager("history", page);
}

function pager(kind, page) {
  const end = Math.min(page.offset + page.items.length, page.total);
  $(`${kind}-page`).textContent = page.total ? `${page.offset + 1}–${end} of ${page.total}` : "";
  $(`${kind}-prev`).disabled = page.offset === 0;
  $(`${kind}-next`).disabled = end >= page.total;
}

// ---------------------------------------------------------------- hands

async function loadHands() {
  const f = new FormData($("hands-form"));
  const q = new URLSearchParams({ limit: PAGE, offset: state.handsOffset });
  if (f.get("table_id")) q.set("table_id", f.get("table_id"));
  const page = await getJSON(`/api/v1/hands?${q}`);
  $("hands-rows").replaceChildren(...page.items.map((hh) => h("tr", { class: "row", onclick: () => showHand(hh) },
    h("td", {}, fmtDateTime(hh.recorded_at)), h("td", {}, hh.table_id), h("td", {}, hh.history.round_id || hh.round_id),
    h("td", {}, hh.game || ""))));
  if (!page.items.length) $("hands-rows").append(h("tr", {}, h("td", { colspan: "4", class: "muted" }, "No hand histories yet.")));
  pager("hands", page);
}

function renderValue(v) {
  if (v === null || v === undefined || v === "") return h("span", { class: "muted" }, "–");
  if (Array.isArray(v)) {
    if (v.length && typeof v[0] === "object" && v[0] !== null) {
      const filled = (x) => !(x === null || x === undefined || x === false || (Array.isArray(x) && !x.length));
      const keys = [...new Set(v.flatMap((o) => Object.keys(o)))].filter((k) => v.some((o) => filled(o[k])));
      return h("table", { class: "grid small" }, h("thead", {}, h("tr", {}, ...keys.map((k) => h("th", {}, k.replace(/_/g, " "))))),
        h("tbody", {}, ...v.map((o) => h("tr", {}, ...keys.map((k) => h("td", {}, renderValue(o[k])))))));
    }
    return v.length ? v.map((x) => (x === null ? "??" : String(x))).join(" ") : h("span", { class: "muted" }, "–");
  }
  if (typeof v === "object") {
    const entries = Object.entries(v).filter(([, x]) => !(x === null || (Array.isArray(x) && !x.length)));
    return h("dl", { class: "facts nested" }, ...entries.flatMap(([k, x]) => fact(k.replace(/_/g, " "), renderValue(x))));
  }
  if (typeof v === "boolean") return v ? "yes" : "no";
  return String(v);
}

function showHand(hh) {
  $("hand-detail").replaceChildren(h("h3", {}, `Table ${hh.table_id} · round ${hh.history.round_id || hh.round_id}`), renderValue(hh.history));
}

// ---------------------------------------------------------------- webhook deliveries (admin)

async function loadDeliveries() {
  $("deliveries-error").textContent = "";
  const [outbox, dead] = await Promise.all([getJSON("/api/v1/webhooks"), getJSON("/api/v1/webhooks/dead")]);
  const owed = Object.entries(outbox.pending).map(([t, n]) => `${t}: ${n}`).join(", ");
  $("deliveries-owed").textContent = owed ? `still being retried: ${owed}` : "nothing waiting to be retried";
  $("deliveries-retry-all").disabled = dead.length === 0;
  $("deliveries-rows").replaceChildren(...dead.map((d) => h("tr", { class: "row", dataset: { id: String(d.id) } },
    h("td", {}, fmtDateTime(d.created_at)), h("td", {}, d.target),
    h("td", {}, h("a", { href: "#", onclick: (e) => { e.preventDefault(); openDetail(d.alert_id); } }, d.alert_id)),
    h("td", {}, String(d.attempts)), h("td", {}, d.last_error || ""),
    h("td", {}, h("button", { class: "ghost", onclick: () => retryDeliveries(`/api/v1/webhooks/deliveries/${d.id}/retry`) }, "Retry")))));
  if (!dead.length) $("deliveries-rows").append(h("tr", {}, h("td", { colspan: "6", class: "muted" }, "No refused deliveries.")));
}

async function retryDeliveries(path) {
  try { await api(path, { method: "POST" }); } catch (err) { $("deliveries-error").textContent = err.message; return; }
  await loadDeliveries();
}

// ---------------------------------------------------------------- routing and wiring

function route() {
  const view = (location.hash.replace("#/", "") || "live").split("?")[0];
  for (const v of ["live", "history", "hands", "deliveries"]) {
    $(`view-${v}`).hidden = v !== view;
    document.querySelector(`[data-view="${v}"]`).classList.toggle("active", v === view);
  }
  if (view === "history") loadHistory().catch(() => {});
  if (view === "hands") loadHands().catch(() => {});
  if (view === "deliveries") loadDeliveries().catch((err) => { $("deliveries-error").textContent = err.message; });
}

function wire() {
  $("login-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    $("login-error").textContent = "";
    try { await signIn($("token").value.trim()); } catch (err) { $("login-error").textContent = err.message; }
  });
  $("logout").addEventListener("click", () => signOut());
  $("sound").checked = localStorage.getItem(SOUND_KEY) === "1";
  $("sound").addEventListener("change", () => { localStorage.setItem(SOUND_KEY, $("sound").checked ? "1" : "0"); if ($("sound").checked) beep("procedure"); });
  $("show-resolved").addEventListener("change", () => loadFeed());
  $("detail-close").addEventListener("click", () => { $("detail").close(); });
  $("detail").addEventListener("close", () => { state.current = null; });
  $("ack-button").addEventListener("click", () => act("acknowledge"));
  $("resolve-button").addEventListener("click", () => act("resolve"));
  $("history-form").addEventListener("submit", (e) => { e.preventDefault(); state.historyOffset = 0; loadHistory(); });
  $("history-prev").addEventListener("click", () => { state.historyOffset = Math.max(0, state.historyOffset - PAGE); loadHistory(); });
  $("history-next").addEventListener("click", () => { state.historyOffset += PAGE; loadHistory(); });
  $("hands-form").addEventListener("submit", (e) => { e.preventDefault(); state.handsOffset = 0; loadHands(); });
  $("hands-prev").addEventListener("click", () => { state.handsOffset = Math.max(0, state.handsOffset - PAGE); loadHands(); });
  $("hands-next").addEventListener("click", () => { state.handsOffset += PAGE; loadHands(); });
  $("deliveries-retry-all").addEventListener("click", () => retryDeliveries("/api/v1/webhooks/dead/retry"));
  window.addEventListener("hashchange", route);
  setInterval(() => { if (state.me) { renderFeed(); renderTables(); } }, 15000); // keep "x ago" honest
}

wire();
if (state.token) signIn(state.token).catch(() => signOut("Sign in again."));
else signOut();
