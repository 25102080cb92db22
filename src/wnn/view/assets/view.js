// The script of the page `wnn view` writes. The graph is already drawn (SVG laid out by wnn);
// this pans and zooms it (the SVG viewBox), searches names, switches the colour mode and fills
// the side panel from the JSON in #wnn-data. No network, no libraries.
"use strict";
(function () {
  performance.mark("wnn-script");
  const data = JSON.parse(document.getElementById("wnn-data").textContent);
  const svg = document.getElementById("graph");
  const stage = document.getElementById("stage");
  const details = document.getElementById("details");
  const legend = document.getElementById("legend");
  const W = +svg.dataset.width, H = +svg.dataset.height;
  let view = { x: 0, y: 0, s: 1 };  // graph point at the stage's top-left, and pixels per unit

  // --- view: pan, zoom, fit -------------------------------------------------------------
  function apply() {
    const w = stage.clientWidth / view.s, h = stage.clientHeight / view.s;
    svg.setAttribute("viewBox", `${view.x} ${view.y} ${w} ${h}`);
  }
  function fit() {
    const s = Math.min(stage.clientWidth / W, stage.clientHeight / H);
    view = { s, x: (W - stage.clientWidth / s) / 2, y: (H - stage.clientHeight / s) / 2 };
    apply();
  }
  // The whole graph when it is readable so; else its top, as wide as the stage (at most 1:1).
  function initial() {
    const s = Math.min(stage.clientWidth / W, stage.clientHeight / H);
    if (s >= 0.5) return fit();
    const sw = Math.min(1, stage.clientWidth / W);
    view = { s: sw, x: (W - stage.clientWidth / sw) / 2, y: 0 };
    apply();
  }
  function toGraph(clientX, clientY) {
    const r = svg.getBoundingClientRect();
    return { x: view.x + (clientX - r.left) / view.s, y: view.y + (clientY - r.top) / view.s };
  }
  function zoomAt(clientX, clientY, factor) {
    const p = toGraph(clientX, clientY);
    const s = Math.min(8, Math.max(0.01, view.s * factor));
    const r = svg.getBoundingClientRect();
    view = { s, x: p.x - (clientX - r.left) / s, y: p.y - (clientY - r.top) / s };
    apply();
  }
  function centreOn(el) {
    const r = el.getBoundingClientRect();
    const p = toGraph(r.left + r.width / 2, r.top + r.height / 2);
    view.s = Math.max(view.s, 1);
    view.x = p.x - stage.clientWidth / view.s / 2;
    view.y = p.y - stage.clientHeight / view.s / 2;
    apply();
  }
  svg.addEventListener("wheel", (e) => {
    e.preventDefault();
    zoomAt(e.clientX, e.clientY, Math.exp(-e.deltaY * (e.deltaMode ? 0.05 : 0.0015)));
  }, { passive: false });
  let drag = null;
  svg.addEventListener("mousedown", (e) => {
    drag = { x: e.clientX, y: e.clientY, vx: view.x, vy: view.y, moved: false };
  });
  window.addEventListener("mousemove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    if (!drag.moved) return;
    svg.classList.add("dragging");
    view.x = drag.vx - dx / view.s;
    view.y = drag.vy - dy / view.s;
    apply();
  });
  window.addEventListener("mouseup", () => {
    svg.classList.remove("dragging");
    setTimeout(() => { drag = null; }, 0);
  });
  document.getElementById("fit").addEventListener("click", fit);
  window.addEventListener("resize", apply);

  // --- panel ------------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  }
  function link(text, id) {
    const a = el("a", { class: "go" }, text);
    a.addEventListener("click", () => { const t = document.getElementById(id); if (t) { select(t); centreOn(t); } });
    return a;
  }
  // Rows of cells; `head` a header row; `keyed`: the first column names what the row holds.
  function table(rows, head, keyed) {
    const t = el("table");
    if (head) t.append(el("tr", {}, ...head.map((h) => el("th", {}, h))));
    for (const r of rows) {
      t.append(el("tr", {}, ...r.map((c, i) => el("td", keyed && i === 0 ? { class: "key" } : {}, c))));
    }
    return t;
  }
  const keyed = (rows) => table(rows, null, true);
  // Any JSON value as panel content: objects as key/value tables, arrays of objects as tables
  // with a column per key; "at" holds a node index and becomes a link to it.
  function render(v, key) {
    if (key === "at" && typeof v === "number") return link(`node ${v}`, `n${v}`);
    if (v === null || v === undefined) return "—";
    if (Array.isArray(v)) {
      if (v.length && v.every((x) => x && typeof x === "object" && !Array.isArray(x))) {
        const keys = [...new Set(v.flatMap(Object.keys))];
        return table(v.map((x) => keys.map((k) => render(x[k], k))), keys);
      }
      return v.map((x) => (typeof x === "object" ? JSON.stringify(x) : String(x))).join(", ");
    }
    if (typeof v === "object") return keyed(Object.entries(v).map(([k, x]) => [k, render(x, k)]));
    return String(v);
  }
  function section(title, content) {
    return [el("h3", {}, title), content];
  }
  function overlaySections(entry) {
    const out = [];
    for (const o of data.overlays) if (entry[o.name]) out.push(...section(o.title, render(entry[o.name])));
    return out;
  }
  function nodeDetails(n) {
    const d = data.nodes[n], op = data.ops[d.op];
    const parts = [el("h2", {}, d.op, " ", el("span", { class: "mono" }, d.name)),
                   el("div", { class: "note" }, op.doc)];
    parts.push(...section("inputs", table(d.in.map(([p, name, type, from, note]) => [
      p, el("span", { class: "mono" }, name), type,
      from.startsWith("node ") ? link(from, `n${from.slice(5)}`) : from, note]),
      ["param", "operand", "type", "from", ""])));
    parts.push(...section("outputs", table(d.out.map(([name, type, graphOut]) => [
      el("span", { class: "mono" }, name), type, graphOut ? "graph output" : ""]))));
    if (d.args) parts.push(...section("arguments", render(d.args)));
    if (op.options.length) {
      parts.push(...section("options", keyed(op.options.map(([name, dflt, isOperand]) => {
        const given = name in d.opt;
        return [name, given ? el("span", { class: "mono" }, d.opt[name])
                            : el("span", { class: "dflt" }, isOperand ? "absent" : `${dflt} (default)`)];
      }))));
    }
    if (d.src && d.src.node) {
      parts.push(...section("ONNX source", keyed([["node", d.src.node], ["op_type", d.src.op_type],
        ["domain", d.src.domain]])));
      if (d.src.values.length) {
        parts.push(table(d.src.values.map(([v, o]) => [el("span", { class: "mono" }, v), el("span", { class: "mono" }, o)]),
          ["ONNX value", "operand"]));
      }
    } else {
      parts.push(...section("ONNX source", el("div", { class: "note" }, d.src ? d.src.note : data.source)));
    }
    parts.push(...overlaySections(d));
    return parts;
  }
  function ioDetails(kind, k) {
    const d = (kind === "i" ? data.inputs : data.outputs)[k];
    const rows = [["name", el("span", { class: "mono" }, d.name)], ["type", d.type]];
    if (d.onnx) rows.push(["ONNX name", el("span", { class: "mono" }, d.onnx)]);
    if (d.dynamic) rows.push(["dynamic", d.dynamic.join(", ")]);
    if (d.node !== undefined) rows.push(["computed by", link(`node ${d.node}`, `n${d.node}`)]);
    return [el("h2", {}, kind === "i" ? "graph input" : "graph output"), keyed(rows),
            ...overlaySections(d)];
  }
  function summary() {
    const parts = [el("h2", {}, data.graph), el("div", { class: "note" }, data.title),
      keyed([["nodes", data.nodes.length], ["inputs", data.inputs.length],
             ["outputs", data.outputs.length], ["source", data.source]])];
    for (const w of data.warnings) parts.push(el("div", { class: "warn" }, w));
    const o = data.overlays.find((x) => x.name === mode);
    if (o) parts.push(...section(o.title, render(o.summary)));
    return parts;
  }
  let selected = null;
  function show(parts) { details.replaceChildren(...parts); }
  function select(target) {
    if (selected) selected.classList.remove("sel");
    selected = target;
    if (!target) { show(summary()); return; }
    target.classList.add("sel");
    if (target.dataset.n !== undefined) show(nodeDetails(+target.dataset.n));
    else if (target.dataset.i !== undefined) show(ioDetails("i", +target.dataset.i));
    else show(ioDetails("o", +target.dataset.o));
    history.replaceState(null, "", "#" + target.id);
  }
  svg.addEventListener("click", (e) => {
    if (drag && drag.moved) return;
    select(e.target.closest(".node, .io"));
  });

  // --- colour modes -----------------------------------------------------------------------
  const modeSelect = document.getElementById("mode");
  let mode = data.overlays.length ? data.overlays[0].name : "plain";
  for (const m of [{ name: "plain", title: "no colours" }, ...data.overlays]) {
    modeSelect.append(el("option", { value: m.name }, m.title));
  }
  modeSelect.hidden = data.overlays.length === 0;
  function setMode(m) {
    mode = m;
    modeSelect.value = m;
    document.body.className = `mode-${m}`;
    const o = data.overlays.find((x) => x.name === m);
    legend.replaceChildren(...(o ? o.legend.map(([cls, text]) =>
      el("div", {}, el("span", { class: `sw ${cls}` }), text)) : []));
    if (!selected) show(summary());
  }
  modeSelect.addEventListener("change", () => setMode(modeSelect.value));

  // --- search -----------------------------------------------------------------------------
  const search = document.getElementById("search");
  const hitsText = document.getElementById("hits");
  const index = [];  // [element id, lower-case text]
  data.nodes.forEach((d, n) => index.push([`n${n}`, [d.op, ...d.out.map((o) => o[0]),
    d.src && d.src.node ? d.src.node : ""].join("\n").toLowerCase()]));
  data.inputs.forEach((d, k) => index.push([`i${k}`, `${d.name}\n${d.onnx || ""}`.toLowerCase()]));
  data.outputs.forEach((d, k) => index.push([`o${k}`, `${d.name}\n${d.onnx || ""}`.toLowerCase()]));
  let hits = [], hit = -1;
  function runSearch() {
    for (const h of hits) h.classList.remove("hit");
    const q = search.value.trim().toLowerCase();
    hits = q ? index.filter(([, text]) => text.includes(q)).map(([id]) => document.getElementById(id)) : [];
    for (const h of hits) h.classList.add("hit");
    hit = -1;
    hitsText.textContent = q ? `${hits.length} found` : "";
  }
  search.addEventListener("input", runSearch);
  search.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || !hits.length) return;
    hit = (hit + 1) % hits.length;
    select(hits[hit]);
    centreOn(hits[hit]);
    hitsText.textContent = `${hit + 1} of ${hits.length}`;
  });
  window.addEventListener("keydown", (e) => {
    if (e.target === search) return;
    if (e.key === "f") fit();
    if (e.key === "/") { e.preventDefault(); search.focus(); }
    if (e.key === "Escape") select(null);
  });

  setMode(mode);
  initial();
  const start = location.hash && document.getElementById(location.hash.slice(1));
  if (start && start.closest("#graph")) { select(start); centreOn(start); }
  performance.mark("wnn-ready");
  document.body.dataset.ready = "1";
})();
