/* sitemapkit web: plain JavaScript over the pages and the JSON API (no build step, no external assets).
   Every form works without it (it posts to a page that answers HTML); with it, the page stays put: results are
   fetched and swapped in, long tables are paged, filtered and sorted on the server, a live crawl is streamed. */
"use strict";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = v; else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/* The server's CSRF token (in every page): sent back with each API request, so that no other site can use it. */
const CSRF = document.querySelector('meta[name="csrf-token"]')?.content || "";

function withToken(url) {
  return `${url}${url.includes("?") ? "&" : "?"}csrf_token=${encodeURIComponent(CSRF)}`;
}

class ApiError extends Error {
  constructor(message, field) { super(message); this.field = field; }
}

async function api(method, url, body) {
  const init = {method, headers: {Accept: "application/json", "X-CSRF-Token": CSRF}};
  if (body instanceof FormData || body instanceof URLSearchParams) init.body = body;
  else if (body !== undefined) { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
  let response;
  try { response = await fetch(url, init); } catch (e) { throw new ApiError("cannot reach the sitemapkit server: is it still running?"); }
  const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(data.error || `HTTP ${response.status}`, data.field);
  return data;
}

/* A page of this app, fetched as HTML (a form's answer), parsed: its parts are swapped into the open page. */
async function fetchPage(url, init) {
  let response;
  try { response = await fetch(url, {...(init || {}), headers: {"X-CSRF-Token": CSRF}}); }
  catch (e) { throw new ApiError("cannot reach the sitemapkit server: is it still running?"); }
  const text = await response.text();
  if ((response.headers.get("content-type") || "").includes("application/json")) {
    let data = {}; try { data = JSON.parse(text); } catch (e) { /* not JSON */ }
    throw new ApiError(data.error || `HTTP ${response.status}`, data.field);
  }
  return new DOMParser().parseFromString(text, "text/html");
}

function swap(doc, id) {
  const fresh = doc.getElementById(id), old = document.getElementById(id);
  if (fresh && old) old.replaceWith(document.importNode(fresh, true));
  return document.getElementById(id);
}

/* A form's error: said in the alert, the field at fault marked invalid and focused (else the message). */
function showError(form, message, field) {
  const node = form ? form.querySelector(".error[role=alert]") : null;
  if (form) form.querySelectorAll("[aria-invalid]").forEach((n) => n.removeAttribute("aria-invalid"));
  if (!node) return;
  node.textContent = message || "";
  node.hidden = !message;
  if (!message) return;
  let target = field ? form.querySelector(`[name="${field}"]:not([type=hidden])`) : null;
  if (field === "formats") {
    const box = form.querySelector("#formats");
    if (box) box.setAttribute("aria-invalid", "true");
  }
  if (target) {
    const details = target.closest("details");
    if (details) details.open = true;
    if (target.type !== "checkbox") target.setAttribute("aria-invalid", "true");
    target.focus();
  } else node.focus();
}

function busy(form, on, status) {
  const button = form.querySelector("button[type=submit]");
  if (button) { button.disabled = on; button.setAttribute("aria-busy", on ? "true" : "false"); }
  if (status) status.hidden = !on;
}

function formatSeconds(s) {
  if (s === undefined || s === null) return "";
  s = Math.round(s);
  const two = (n) => String(n).padStart(2, "0");
  return s >= 3600 ? `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}` : `${Math.floor(s / 60)}:${two(s % 60)}`;
}

/* ---------------------------------------------------------------- new crawl + history */
function initHome() {
  const form = document.getElementById("crawl-form");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError(form, "");
    busy(form, true);
    try {
      const created = await api("POST", "/api/crawls", new URLSearchParams(new FormData(form)));
      window.location.assign(`/crawls/${created.id}`);
    } catch (e) {
      busy(form, false);
      showError(form, e.message, e.field);
    }
  });
  document.querySelectorAll("#history button[data-action]").forEach((button) => {
    button.closest("form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const id = button.dataset.id;
      try {
        if (button.dataset.action === "delete") {
          if (!window.confirm("Delete this crawl and its files?")) return;
          await api("DELETE", `/api/crawls/${id}`);
          button.closest("tr").remove();
        } else {
          await api("POST", `/api/crawls/${id}/resume`);
          window.location.assign(`/crawls/${id}`);
        }
      } catch (e) { window.alert(e.message); }
    });
  });
}

/* ---------------------------------------------------------------- live crawl + results */
const COUNT_KEYS = ["crawled", "in_sitemap", "broken", "redirects", "excluded", "queue", "pages_per_second"];
const STATUS_TEXT = {queued: "Waiting to start", running: "Crawling", paused: "Paused", done: "Done",
  failed: "Failed", cancelled: "Cancelled"};

function initCrawl() {
  const root = document.getElementById("crawl");
  const id = root.dataset.id;
  let shownFiles = document.getElementById("downloads").children.length;
  const render = async (crawl) => {
    const changed = root.dataset.status !== crawl.status;
    root.dataset.status = crawl.status;
    const badge = document.getElementById("status");
    badge.textContent = STATUS_TEXT[crawl.status] || crawl.status;
    badge.className = `badge ${crawl.status}`;
    document.getElementById("note").textContent = crawl.note || "";
    const elapsed = crawl.counts.elapsed;
    document.getElementById("elapsed").textContent = elapsed !== undefined ? `${formatSeconds(elapsed)} elapsed` : "";
    const error = document.getElementById("crawl-error");
    error.textContent = crawl.error || ""; error.hidden = !crawl.error;
    for (const key of COUNT_KEYS) {
      const value = crawl.counts[key];
      if (value !== undefined) document.getElementById(`count-${key}`).textContent = value.toLocaleString("en");
    }
    const running = crawl.status === "running" || crawl.status === "queued";
    document.getElementById("pause").disabled = !running;
    document.getElementById("cancel").disabled = !running;
    document.getElementById("resume").disabled = !(crawl.status === "paused" || crawl.status === "cancelled");
    root.querySelector(".controls").hidden = crawl.status === "done" || crawl.status === "failed";
    if (crawl.files.length && (changed || crawl.files.length !== shownFiles) && !running) {
      shownFiles = crawl.files.length;
      const doc = await fetchPage(window.location.pathname);
      const results = swap(doc, "results");
      results.hidden = false;
      initTables(id);
    } else if (running && changed) {
      document.getElementById("results").hidden = true;
    }
  };
  for (const form of root.querySelectorAll(".controls form")) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const action = form.querySelector("button").dataset.action;
      try {
        await api("POST", `/api/crawls/${id}/${action}`);
        if (action === "resume") listen();
      } catch (e) {
        const error = document.getElementById("crawl-error");
        error.textContent = e.message; error.hidden = false;
      }
    });
  }
  let source = null;
  const listen = () => {
    if (source) source.close();
    source = new EventSource(withToken(`/api/crawls/${id}/events`));
    source.addEventListener("crawl", (event) => render(JSON.parse(event.data)));
    source.addEventListener("end", () => { source.close(); source = null; });
  };
  initTables(id);
  listen();
}

/* The long tables: a page of rows at a time from the server, filtered and sorted there. */
const PAGE_ROWS = 100;

function initTables(id) {
  document.querySelectorAll("table[data-table]").forEach((table) => {
    if (table.dataset.ready) return;
    table.dataset.ready = "1";
    const kind = table.dataset.table;
    const filter = document.querySelector(`input[data-filter=${kind}]`);
    const shown = document.getElementById(`${kind}-shown`);
    const pager = document.getElementById(`pager-${kind}`);
    const heads = [...table.tHead.rows[0].cells];
    const columns = {broken: ["url", "status", "referrers"], redirects: ["url", "chain", "final_url"],
      excluded: ["url", "reason", "detail"]}[kind];
    const start = Number(new URLSearchParams(window.location.search).get(kind)) || 0;  // a no-JS page link
    const state = {offset: Math.max(0, start), q: "", sort: null, dir: "asc"};
    const prev = el("button", {type: "button", class: "secondary small", text: "Previous page"});
    const next = el("button", {type: "button", class: "secondary small", text: "Next page"});
    const where = el("span", {class: "where", "aria-live": "polite"});
    pager.replaceChildren(prev, where, next);
    let ticket = 0;
    const load = async () => {
      const mine = ++ticket;
      table.setAttribute("aria-busy", "true");
      const params = new URLSearchParams({offset: state.offset, limit: PAGE_ROWS, q: state.q});
      if (state.sort) { params.set("sort", state.sort); params.set("dir", state.dir); }
      let page;
      try { page = await api("GET", `/api/crawls/${id}/rows/${kind}?${params}`); }
      catch (e) { shown.textContent = e.message; table.removeAttribute("aria-busy"); return; }
      if (mine !== ticket) return;  // a newer request (the next keystroke) answers instead
      const rows = page.rows.map((r) => el("tr", {}, ...rowCells(kind, r)));
      if (!rows.length) rows.push(el("tr", {class: "empty"}, el("td", {colspan: "3", class: "muted",
        text: page.total ? "No row matches the filter." : "None."})));
      table.tBodies[0].replaceChildren(...rows);
      table.removeAttribute("aria-busy");
      const end = Math.min(page.offset + PAGE_ROWS, page.matched);
      where.textContent = page.matched ? `Rows ${(page.offset + 1).toLocaleString("en")}–${end.toLocaleString("en")} of ${page.matched.toLocaleString("en")}` : "";
      shown.textContent = state.q ? `${page.matched.toLocaleString("en")} of ${page.total.toLocaleString("en")} match` : "";
      prev.disabled = page.offset === 0;
      next.disabled = end >= page.matched;
      prev.hidden = next.hidden = page.offset === 0 && end >= page.matched;  // one page: nothing to turn
      table.dataset.loaded = String(ticket);
    };
    let timer = null;
    filter.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => { state.q = filter.value; state.offset = 0; load(); }, 120);
    });
    heads.forEach((th, col) => {
      const b = el("button", {type: "button", class: "sort", text: th.textContent});
      th.replaceChildren(b);
      th.setAttribute("aria-sort", "none");
      b.addEventListener("click", () => {
        const same = state.sort === columns[col];
        state.dir = same && state.dir === "asc" ? "desc" : "asc";
        state.sort = columns[col];
        heads.forEach((h) => h.setAttribute("aria-sort", "none"));
        th.setAttribute("aria-sort", state.dir === "asc" ? "ascending" : "descending");
        state.offset = 0;
        load();
      });
    });
    prev.addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE_ROWS); load(); });
    next.addEventListener("click", () => { state.offset += PAGE_ROWS; load(); });
    load();
  });
}

function cellLink(url) {
  return el("a", {href: /^https?:\/\//i.test(url) ? url : null, rel: "noreferrer nofollow", text: url});
}

function rowCells(kind, r) {
  if (kind === "broken") {
    const refs = r.referrers.length ? el("details", {class: "referrers"},
      el("summary", {text: `${r.referrer_count.toLocaleString("en")} referrer${r.referrer_count === 1 ? "" : "s"}`}),
      el("ul", {}, ...r.referrers.map((u) => el("li", {}, cellLink(u))))) : "";
    return [el("td", {class: "url"}, cellLink(r.url)), el("td", {text: r.status}), el("td", {}, refs)];
  }
  if (kind === "redirects") {
    return [el("td", {class: "url"}, cellLink(r.url)), el("td", {text: r.chain}),
      el("td", {class: "url"}, r.final_url ? cellLink(r.final_url) : "")];
  }
  return [el("td", {class: "url"}, cellLink(r.url)), el("td", {text: r.reason}), el("td", {text: r.detail})];
}

/* ---------------------------------------------------------------- check a sitemap, discover: forms answered in place */
function initResultForm(formId, resultsId, busyId, extra) {
  const form = document.getElementById(formId);
  const status = document.getElementById(busyId);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError(form, "");
    const results = document.getElementById(resultsId);
    results.hidden = true;
    results.replaceChildren();
    busy(form, true, status);
    try {
      const doc = await fetchPage(form.action, {method: "POST", body: new FormData(form)});
      const fresh = swap(doc, resultsId);
      const error = doc.querySelector(`#${formId} .error[role=alert]`);
      if (error && !error.hidden) showError(form, error.textContent, "url");
      else if (fresh) {
        fresh.hidden = false;
        if (formId === "check-form") initUrlFilter();
        const h = fresh.querySelector("h2");
        if (h) { h.tabIndex = -1; h.focus(); }
      }
    } catch (e) {
      showError(form, e.message, e.field);
    } finally {
      busy(form, false, status);
    }
  });
  if (extra) extra(form);
}

/* The URLs of a checked sitemap (up to 50,000, as JSON in the page): the first 200 that match the filter. */
const URLS_SHOWN = 200;

function initUrlFilter() {
  const data = document.getElementById("check-urls");
  if (!data || data.dataset.ready) return;
  data.dataset.ready = "1";
  const urls = JSON.parse(data.textContent);
  const lower = urls.map((u) => u.toLowerCase());
  const search = document.getElementById("url-search");
  const list = document.getElementById("url-list");
  const shown = document.getElementById("url-shown");
  const more = document.getElementById("url-more");
  document.getElementById("url-tools").hidden = false;
  const show = () => {
    const q = search.value.trim().toLowerCase();
    const hits = [];
    let matched = 0;
    for (let i = 0; i < urls.length; i++) {
      if (q && !lower[i].includes(q)) continue;
      matched++;
      if (hits.length < URLS_SHOWN) hits.push(el("li", {text: urls[i]}));
    }
    list.replaceChildren(...hits);
    shown.textContent = q ? `${matched.toLocaleString("en")} of ${urls.length.toLocaleString("en")} match` : "";
    more.hidden = matched <= URLS_SHOWN;
    more.textContent = `The first ${URLS_SHOWN} of ${matched.toLocaleString("en")}.`;
  };
  search.addEventListener("input", show);
}

function initCheck() {
  initUrlFilter();
  initResultForm("check-form", "check-results", "check-busy", (form) => {
    const url = document.getElementById("check-url");
    const file = document.getElementById("check-file");
    const clear = document.getElementById("check-clear");
    const sync = () => {
      const chosen = file.files && file.files.length > 0;
      clear.hidden = !chosen;
      url.disabled = chosen;
      if (chosen) url.value = "";
    };
    file.addEventListener("change", sync);
    clear.addEventListener("click", () => { file.value = ""; sync(); file.focus(); });
    sync();
  });
}

function initDiscover() { initResultForm("discover-form", "discover-results", "discover-busy"); }

/* ---------------------------------------------------------------- audit */
function initAudit() {
  const form = document.getElementById("audit-form");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError(form, "");
    busy(form, true);
    try {
      const created = await api("POST", "/api/audits", {url: new FormData(form).get("url")});
      window.location.assign(`/audits/${created.id}`);
    } catch (e) { busy(form, false); showError(form, e.message, e.field); }
  });
  const root = document.getElementById("audit");
  if (!root || !["queued", "running"].includes(root.dataset.status)) return;
  const poll = async () => {
    let job;
    try { job = await api("GET", `/api/audits/${root.dataset.id}`); } catch (e) { setTimeout(poll, 2000); return; }
    document.getElementById("audit-step").textContent = job.step || "";
    document.getElementById("audit-elapsed").textContent = `${formatSeconds(job.elapsed)} elapsed`;
    if (job.status === "done" || job.status === "failed") {
      const doc = await fetchPage(window.location.pathname);
      swap(doc, "audit");
    } else setTimeout(poll, 1000);
  };
  poll();
}

document.addEventListener("DOMContentLoaded", () => {
  const page = document.body.dataset.page;
  if (page === "home") initHome();
  else if (page === "crawl") initCrawl();
  else if (page === "check") initCheck();
  else if (page === "discover") initDiscover();
  else if (page === "audit") initAudit();
});
