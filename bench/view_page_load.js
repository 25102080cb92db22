// How long a `wnn view` page takes to open in headless Chromium: from navigation start until
// the page's script has run and two frames are drawn (and the script's own share), median of
// 5 loads, for a generated
// 2,000-node graph (tests/view/big_graph.js) and resnet18 of the test zoo. Numbers only: no
// assertion (docs/benchmarks.md records them with the command).
// usage: node bench/view_page_load.js BUILD_DIR
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { Browser } = require("../tests/view/cdp.js");
const { bigGraph } = require("../tests/view/big_graph.js");

async function main() {
  const build = path.resolve(process.argv[2] || "build");
  const wnn = path.join(build, "wnn");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "wnn-view-bench-"));
  const pages = [];
  const big = path.join(tmp, "big2000.webnn");
  fs.writeFileSync(big, bigGraph(2000).text);
  pages.push(["generated, 2,000 nodes", big]);
  const zoo = path.join(build, "models-zoo", "resnet18.onnx");
  if (!fs.existsSync(zoo)) {
    execFileSync("/usr/bin/python3", [path.join(__dirname, "../tests/models/make_models.py"),
      path.dirname(zoo), "--only", "resnet18"], { stdio: "ignore" });
  }
  pages.push(["resnet18 --partition", zoo, "--partition"]);
  const browser = await Browser.launch();
  try {
    for (const [name, input, ...flags] of pages) {
      const html = path.join(tmp, `${path.basename(input)}.html`);
      const t0 = process.hrtime.bigint();
      execFileSync(wnn, ["view", input, ...flags, "-o", html], { stdio: "ignore" });
      const writeMs = Number(process.hrtime.bigint() - t0) / 1e6;
      const loads = [], script = [];
      for (let i = 0; i < 6; ++i) {
        await browser.open(html);
        const t = await browser.evaluate(`new Promise((r) => requestAnimationFrame(() =>
          requestAnimationFrame(() => r({ drawn: performance.now(),
            script: performance.getEntriesByName("wnn-ready")[0].startTime -
                    performance.getEntriesByName("wnn-script")[0].startTime }))))`);
        loads.push(t.drawn);
        script.push(t.script);
      }
      loads.shift();  // the first load also warms Chromium's caches
      script.shift();
      loads.sort((a, b) => a - b);
      script.sort((a, b) => a - b);
      const kib = fs.statSync(html).size / 1024;
      console.log(`${name.padEnd(26)} page ${kib.toFixed(0).padStart(6)} KiB  wnn view ${writeMs.toFixed(0).padStart(5)} ms  ` +
        `load median ${loads[2].toFixed(0)} ms (min ${loads[0].toFixed(0)}, max ${loads[4].toFixed(0)}), ` +
        `of which the page's script ${script[2].toFixed(0)} ms`);
    }
  } finally {
    await browser.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
