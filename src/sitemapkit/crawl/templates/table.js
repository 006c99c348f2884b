/* The reports' long tables (report.html, audit.html): every row is in a JSON block next to its table; this shows
   them a page at a time, with a filter, sorting by any column and a pager. Without JavaScript the first rows,
   written in the page, stay. Cells: a string (text), {u, t} a link, {p, c} a pill, {l: [cells], more} a list,
   {s: [cells]} a chain (joined by arrows). */
(function () {
  "use strict";
  var PAGE = 100;
  var collator = new Intl.Collator("en", {numeric: true, sensitivity: "base"});
  function plain(c) {
    if (c === null || c === undefined) return "";
    if (typeof c === "string" || typeof c === "number") return String(c);
    if (c.u !== undefined) return c.u;
    if (c.p !== undefined) return String(c.p);
    if (c.l) return c.l.map(plain).join(" ");
    if (c.s) return c.s.map(plain).join(" ");
    return "";
  }
  function build(c) {
    if (c === null || c === undefined) return document.createTextNode("");
    if (typeof c === "string" || typeof c === "number") return document.createTextNode(String(c));
    if (c.u !== undefined) {
      var a = document.createElement("a");
      if (/^https?:\/\//i.test(c.u)) a.href = c.u;  /* a link only to a web page, never a script */
      a.rel = "nofollow noreferrer"; a.textContent = c.t || c.u;
      return a;
    }
    if (c.p !== undefined) {
      var pill = document.createElement("span");
      pill.className = "pill" + (c.c ? " " + c.c : ""); pill.textContent = String(c.p);
      return pill;
    }
    var frag = document.createDocumentFragment();
    if (c.l) {
      var ul = document.createElement("ul");
      c.l.forEach(function (x) { var li = document.createElement("li"); li.appendChild(build(x)); ul.appendChild(li); });
      if (c.more) { var li = document.createElement("li"); li.className = "muted"; li.textContent = "and " + c.more.toLocaleString("en") + " more"; ul.appendChild(li); }
      frag.appendChild(ul);
    } else if (c.s) {
      c.s.forEach(function (x, i) { if (i && i % 2 === 0) frag.appendChild(document.createTextNode(" \u2192 ")); else if (i) frag.appendChild(document.createTextNode(" ")); frag.appendChild(build(x)); });
    }
    return frag;
  }
  function setup(table) {
    var rows = JSON.parse(document.getElementById(table.getAttribute("data-rows")).textContent);
    var name = table.getAttribute("data-name");
    var texts = rows.map(function (r) { return r.map(plain).join(" ").toLowerCase(); });
    var shown = rows.map(function (_r, i) { return i; });
    var page = 0, sortCol = -1, desc = false;
    var tools = document.getElementById(table.id + "-tools");
    var filter = tools.querySelector("input[type=search]");
    var count = tools.querySelector(".count");
    var pager = document.getElementById(table.id + "-pager");
    var prev = pager.querySelector(".prev"), next = pager.querySelector(".next"), where = pager.querySelector(".where");
    var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
    var note = document.getElementById(table.id + "-more");
    if (note) note.hidden = true;
    tools.hidden = false; pager.hidden = false;
    function draw() {
      var start = page * PAGE, end = Math.min(shown.length, start + PAGE);
      var body = document.createElement("tbody");
      for (var i = start; i < end; i++) {
        var tr = document.createElement("tr");
        rows[shown[i]].forEach(function (c, j) {
          var td = document.createElement("td");
          if (j !== 1 || table.getAttribute("data-mid") !== "pill") td.className = "url";
          td.appendChild(build(c)); tr.appendChild(td);
        });
        body.appendChild(tr);
      }
      if (!shown.length) {
        var tr0 = document.createElement("tr"), td0 = document.createElement("td");
        td0.colSpan = heads.length; td0.className = "muted"; td0.textContent = "No row matches the filter.";
        tr0.appendChild(td0); body.appendChild(tr0);
      }
      table.replaceChild(body, table.tBodies[0]);
      var pages = Math.max(1, Math.ceil(shown.length / PAGE));
      count.textContent = shown.length === rows.length ? rows.length.toLocaleString("en") + " rows" :
        shown.length.toLocaleString("en") + " of " + rows.length.toLocaleString("en") + " rows match";
      where.textContent = "Page " + (page + 1) + " of " + pages + (shown.length ? " (rows " + (start + 1).toLocaleString("en") + "\u2013" + end.toLocaleString("en") + ")" : "");
      prev.disabled = page === 0; next.disabled = page >= pages - 1;
      prev.hidden = next.hidden = pages === 1;
    }
    function order() {
      if (sortCol >= 0) {
        var keys = rows.map(function (r) { return plain(r[sortCol]); });
        shown.sort(function (a, b) { var n = collator.compare(keys[a], keys[b]) || a - b; return desc ? -n : n; });
      }
    }
    filter.addEventListener("input", function () {
      var q = filter.value.trim().toLowerCase();
      shown = [];
      for (var i = 0; i < texts.length; i++) if (!q || texts[i].indexOf(q) >= 0) shown.push(i);
      order(); page = 0; draw();
    });
    heads.forEach(function (th, col) {
      var b = document.createElement("button");
      b.type = "button"; b.className = "sort"; b.textContent = th.textContent;
      th.textContent = ""; th.appendChild(b); th.setAttribute("aria-sort", "none");
      b.addEventListener("click", function () {
        desc = sortCol === col ? !desc : false; sortCol = col;
        heads.forEach(function (h) { h.setAttribute("aria-sort", "none"); });
        th.setAttribute("aria-sort", desc ? "descending" : "ascending");
        order(); page = 0; draw();
      });
    });
    prev.addEventListener("click", function () { if (page > 0) { page--; draw(); } });
    next.addEventListener("click", function () { page++; draw(); });
    table.setAttribute("data-ready", name || "1");
    draw();
  }
  Array.prototype.forEach.call(document.querySelectorAll("table[data-rows]"), setup);
})();
