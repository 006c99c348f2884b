/* sitemapkit web: plain JavaScript over the JSON API (no build step, no external assets). */
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

async function api(method, url, body) {
  const init = {method, headers: {Accept: "application/json", "X-CSRF-Token": CSRF}};
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
  const response = await fetch(url, init);
  const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function showError(node, message) {
  node.textContent = message || "";
  node.hidden = !message;
}

/* ---------------------------------------------------------------- new crawl + history */
function initHome() {
  const form = document.getElementById("crawl-form");
  const error = document.getElementById("form-error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fd = new FormData(form);
    const body = {url: fd.get("url"), max_pages: fd.get("max_pages") || null, max_depth: fd.get("max_depth") || null,
      concurrency: fd.get("concurrency") || null,
      include: fd.get("include") || "", exclude: fd.get("exclude") || "", base_url: fd.get("base_url") || null,
      respect_robots: fd.get("respect_robots") === "true", gzip: fd.get("gzip") === "true",
      formats: fd.getAll("formats")};
    showError(error, "");
    form.querySelector("button[type=submit]").disabled = true;
    try {
      const created = await api("POST", "/api/crawls", body);
      window.location.assign(`/crawls/${created.id}`);
    } catch (e) {
      showError(error, e.message);
      form.querySelector("button[type=submit]").disabled = false;
    }
  });
  document.querySelectorAll("#history button[data-action]").forEach((button) => {
    button.addEventListener("click", async () => {
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

function initCrawl() {
  const root = document.getElementById("crawl");
  const id = root.dataset.id;
  let resultsShown = false;
  const render = (crawl) => {
    root.dataset.status = crawl.status;
    const badge = document.getElementById("status");
    badge.textContent = crawl.status;
    badge.className = `badge ${crawl.status}`;
    document.getElementById("note").textContent = crawl.note || "";
    showError(document.getElementById("crawl-error"), crawl.error);
    for (const key of COUNT_KEYS) {
      const value = crawl.counts[key];
      if (value !== undefined) document.getElementById(`count-${key}`).textContent = value.toLocaleString("en");
    }
    const running = crawl.status === "running" || crawl.status === "queued";
    document.getElementById("pause").disabled = !running;
    document.getElementById("cancel").disabled = !running;
    document.getElementById("resume").disabled = !(crawl.status === "paused" || crawl.status === "cancelled");
    root.querySelector(".controls").hidden = crawl.status === "done" || crawl.status === "failed";
    if (crawl.status === "done" && !resultsShown) { resultsShown = true; showResults(id, crawl); }
  };
  for (const button of root.querySelectorAll(".controls button")) {
    button.addEventListener("click", async () => {
      try {
        await api("POST", `/api/crawls/${id}/${button.dataset.action}`);
        if (button.dataset.action === "resume") listen();
      } catch (e) { showError(document.getElementById("crawl-error"), e.message); }
    });
  }
  let source = null;
  const listen = () => {
    if (source) source.close();
    source = new EventSource(withToken(`/api/crawls/${id}/events`));
    source.addEventListener("crawl", (event) => render(JSON.parse(event.data)));
    source.addEventListener("end", () => { source.close(); source = null; });
  };
  api("GET", `/api/crawls/${id}`).then(render).catch(() => {});
  listen();
}

async function showResults(id, crawl) {
  const downloads = document.getElementById("downloads");
  downloads.replaceChildren(...crawl.files.map((f) => el("li", {}, el("a", {
    href: withToken(`/api/crawls/${id}/files/${f.name}`), download: f.name,
    text: f.size === null ? `${f.name} (everything)` : `${f.name} (${formatSize(f.size)})`}))));
  const report = await api("GET", `/api/crawls/${id}/files/crawl-report.json`);
  const chart = document.getElementById("chart");
  const statuses = Object.entries(report.status_counts || {});
  const peak = Math.max(1, ...statuses.map(([, n]) => n));
  chart.replaceChildren(...statuses.map(([label, n]) => {
    const fill = el("span", {class: "fill"});
    fill.style.width = `${Math.max(1, (100 * n) / peak)}%`;
    return el("div", {class: `bar s${label[0] === "e" ? "error" : label[0]}`}, el("span", {text: label}),
      el("span", {}, fill), el("span", {text: n.toLocaleString("en")}));
  }));
  fillTable("broken", report.broken, (b) => [
    cellLink(b.url), b.error ? `${b.status || ""} ${b.error}`.trim() : String(b.status),
    referrers(b)]);
  fillTable("redirects", report.redirects, (r) => [cellLink(r.url),
    r.chain.map((h) => h.status).join(" → "), cellLink(r.final_url || "")]);
  fillTable("excluded", report.excluded, (x) => [cellLink(x.url), x.reason, x.detail || ""]);
  document.getElementById("results").hidden = false;
}

function formatSize(n) {
  return n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`;
}

function cellLink(url) { return el("a", {href: url, rel: "noreferrer nofollow", text: url}); }

function referrers(item) {
  const list = el("ul", {}, ...item.referrers.map((r) => el("li", {}, cellLink(r))));
  return el("details", {class: "referrers"}, el("summary", {text: `${item.referrer_count} referrer${item.referrer_count === 1 ? "" : "s"}`}), list);
}

function fillTable(key, rows, cells) {
  const table = document.getElementById(`table-${key}`);
  const body = table.tBodies[0];
  document.getElementById(`${key}-count`).textContent = `(${rows.length.toLocaleString("en")})`;
  const trs = rows.map((row) => el("tr", {}, ...cells(row).map((c, i) => el("td", {class: i === 0 ? "url" : null},
    typeof c === "string" ? document.createTextNode(c) : c))));
  if (!trs.length) trs.push(el("tr", {class: "empty"}, el("td", {colspan: "3", class: "muted", text: "None."})));
  body.replaceChildren(...trs);
  const filter = document.querySelector(`input[data-filter=${key}]`);
  filter.addEventListener("input", () => {
    const q = filter.value.toLowerCase();
    for (const tr of body.rows) tr.hidden = q !== "" && !tr.textContent.toLowerCase().includes(q);
  });
  for (const button of table.querySelectorAll("button.sort")) {
    button.addEventListener("click", () => {
      const col = Number(button.dataset.col);
      const ascending = button.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("button.sort").forEach((b) => b.removeAttribute("aria-sort"));
      button.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      const sorted = [...body.rows].sort((a, b) => {
        const x = a.cells[col]?.textContent || "", y = b.cells[col]?.textContent || "";
        const n = x.localeCompare(y, "en", {numeric: true});
        return ascending ? n : -n;
      });
      body.replaceChildren(...sorted);
    });
  }
}

/* ---------------------------------------------------------------- check a sitemap */
function initCheck() {
  const form = document.getElementById("check-form");
  const error = document.getElementById("form-error");
  let urls = [];
  const search = document.getElementById("url-search");
  const list = document.getElementById("url-list");
  const showUrls = () => {
    const q = search.value.toLowerCase();
    const shown = urls.filter((u) => !q || u.toLowerCase().includes(q)).slice(0, 2000);
    list.replaceChildren(...shown.map((u) => el("li", {text: u})));
  };
  search.addEventListener("input", showUrls);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fd = new FormData(form);
    const file = fd.get("file");
    if (!(file && file.name)) fd.delete("file");
    if (!fd.get("url")) fd.delete("url");
    showError(error, "");
    try {
      const result = await api("POST", "/api/validate", fd);
      const verdict = result.valid ? "Valid" : "Not valid";
      document.getElementById("check-summary").textContent =
        `${verdict}: ${result.source} (${result.kind}), ${result.errors} error${result.errors === 1 ? "" : "s"}, ` +
        `${result.warnings} warning${result.warnings === 1 ? "" : "s"}`;
      const groups = document.getElementById("groups");
      groups.replaceChildren(...result.groups.map((g) => el("div", {class: "group"},
        el("h3", {}, el("span", {class: `badge ${g.severity}`, text: g.severity}), ` ${g.code}: ${g.title} (${g.count})`),
        g.fix ? el("p", {class: "muted", text: g.fix}) : null,
        el("ul", {}, ...g.problems.map((p) => el("li", {text: `${p.line ? `line ${p.line}` : "document"}: ${p.message}`}))))));
      if (!result.groups.length) groups.replaceChildren(el("p", {text: "No problems found."}));
      urls = result.urls;
      document.getElementById("url-count").textContent = `(${result.url_count.toLocaleString("en")})`;
      showUrls();
      document.getElementById("check-results").hidden = false;
    } catch (e) { showError(error, e.message); }
  });
}

/* ---------------------------------------------------------------- discover */
function initDiscover() {
  const form = document.getElementById("discover-form");
  const error = document.getElementById("form-error");
  const node = (s) => el("li", {}, el("span", {class: "u", text: s.url}), " ",
    el("span", {class: "meta", text: `[${s.kind || "not read"}] ${s.status ?? "no response"} · ${s.entries} URLs`}),
    s.sitemaps && s.sitemaps.length ? el("ul", {}, ...s.sitemaps.map(node)) : null);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError(error, "");
    try {
      const url = new FormData(form).get("url");
      const result = await api("GET", `/api/discover?url=${encodeURIComponent(url)}`);
      document.getElementById("discover-summary").textContent =
        `${result.total_sitemaps} sitemap${result.total_sitemaps === 1 ? "" : "s"}, ${result.total_urls.toLocaleString("en")} URLs`;
      const robots = result.discovery && result.discovery.robots;
      document.getElementById("robots").textContent = robots ?
        `robots.txt: ${robots.url} (${robots.status ?? "no response"}), ${robots.sitemaps.length} sitemap(s) listed` : "";
      document.getElementById("tree").replaceChildren(...result.sitemaps.map(node));
      document.getElementById("discover-results").hidden = false;
    } catch (e) { showError(error, e.message); }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  const page = document.body.dataset.page;
  if (page === "home") initHome();
  else if (page === "crawl") initCrawl();
  else if (page === "check") initCheck();
  else if (page === "discover") initDiscover();
});
