// js/loader in a real browser (Debian's headless Chromium, driven as tests/view/ drives it): a
// page served from 127.0.0.1 imports the loader as an ES module, fetches a small .webnn +
// .safetensors pair, parses both and reaches navigator.ml. This Chromium has no WebNN: the test
// then checks the parse and says navigator.ml is absent; where navigator.ml exists, the page
// also builds and runs the graph and the test checks its output.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { safetensors } from '../tools/loader-test-files.mjs';

const require = createRequire(import.meta.url);
const { Browser } = require('../../tests/view/cdp.js');
const LOADER = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'loader');

const GRAPH = `webnn_graph "browser" v2 {
  inputs { x: f32[dyn("batch", 4), 3]; }
  consts { w: f32[3, 2]; b: f32[2] @scalar(-0.5); }
  nodes { m = matmul(x, w); y = add(m, b); }
  outputs { y; }
}
`;
const WEIGHTS = safetensors({ w: { dtype: 'F32', shape: [3, 2], data: new Float32Array([1, -1, 0.5, 2, -2, 0]) } });

const PAGE = `<!doctype html><meta charset="utf-8"><title>loader</title><script type="module">
import { parseGraph, SafetensorsArchive, loadGraph } from '/loader/index.js';
window.result = (async () => {
  const text = await (await fetch('/model.webnn')).text();
  const weights = await (await fetch('/model.safetensors')).arrayBuffer();
  const g = parseGraph(text, { fileName: 'model.webnn' });
  const archive = new SafetensorsArchive(weights, 'model.safetensors');
  const w = archive.load('w', g.consts[0]);
  const r = {
    inputs: g.inputs.map((i) => ({ name: i.name, dataType: i.dataType, shape: i.shape, dims: i.dims })),
    nodes: g.nodes.map((n) => n.op),
    weights: Array.from(new Float32Array(w.buffer, w.byteOffset, w.byteLength / 4)),
    mlPresent: typeof navigator.ml !== 'undefined',
    builderPresent: typeof globalThis.MLGraphBuilder === 'function',
  };
  try {
    parseGraph('webnn_graph "bad" v1 {\\n  nodes { y = relu(x) }\\n}', { fileName: 'bad.webnn' });
  } catch (e) {
    r.error = e.name + ': ' + e.message;
  }
  if (r.mlPresent) {
    const context = await navigator.ml.createContext();
    const loaded = await loadGraph(context, text, weights, { dims: { batch: 2 } });
    const x = await context.createTensor({ ...loaded.inputs.x, writable: true });
    const y = await context.createTensor({ ...loaded.outputs.y, readable: true });
    context.writeTensor(x, new Float32Array([1, 2, 3, -1, 0, 0.5]));
    context.dispatch(loaded.graph, { x }, { y });
    r.output = Array.from(new Float32Array(await context.readTensor(y)));
  }
  return r;
})();
</script>`;

const TYPES = { '.js': 'text/javascript', '.json': 'application/json' };

function serve() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    let body, type;
    if (url.pathname === '/') {
      [body, type] = [PAGE, 'text/html'];
    } else if (url.pathname === '/model.webnn') {
      [body, type] = [GRAPH, 'text/plain'];
    } else if (url.pathname === '/model.safetensors') {
      [body, type] = [Buffer.from(WEIGHTS), 'application/octet-stream'];
    } else if (url.pathname.startsWith('/loader/')) {
      const file = path.join(LOADER, path.basename(url.pathname));
      if (fs.existsSync(file)) [body, type] = [fs.readFileSync(file), TYPES[path.extname(file)] || 'text/plain'];
    }
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': type }).end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

test('the loader parses a .webnn + .safetensors pair in headless Chromium and reaches navigator.ml', async (t) => {
  const server = await serve();
  const browser = await Browser.launch();
  t.after(async () => {
    await browser.close();
    server.close();
  });
  const url = `http://127.0.0.1:${server.address().port}/`;
  const loaded = browser.waitFor('Page.loadEventFired');
  await browser.page('Page.navigate', { url });
  await loaded;
  const r = await browser.evaluate('window.result');
  assert.deepEqual(r.inputs, [{ name: 'x', dataType: 'float32', shape: [4, 3], dims: [{ name: 'batch', max: 4 }, null] }]);
  assert.deepEqual(r.nodes, ['matmul', 'add']);
  assert.deepEqual(r.weights, [1, -1, 0.5, 2, -2, 0]);
  assert.equal(r.error, "LoaderError: bad.webnn:2:23: expected ';' after the statement, got '}'");
  assert.deepEqual(browser.errors, []);
  if (!r.mlPresent) {
    console.log('navigator.ml is absent in this Chromium (no WebNN): the pair was parsed; building was not tried');
    assert.equal(r.output, undefined);
    return;
  }
  console.log('navigator.ml is present: the graph was built and run in the browser');
  // [1, 2, 3; -1, 0, .5] x [1, -1; .5, 2; -2, 0] - .5
  assert.deepEqual(r.output, [-4.5, 2.5, -2.5, 0.5]);
});
