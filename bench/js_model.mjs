#!/usr/bin/env node
// A whole model through the JavaScript WebNN API against `wnn bench` on the same graph, backend
// and threads (issue 20: resnet18 through the addon within 5% of wnn bench). The JS side loads
// the converted pair with js/loader, then times write, dispatch and await readTensor per run;
// `wnn bench` times Session::run. Rounds alternate between the two; each figure is the median
// of the per-round medians.
//
// usage: node bench/js_model.mjs BUILD [MODEL] [--runs 30] [--warmup 5] [--rounds 5]
//                                      [--backend auto] [--threads 2]
// MODEL: a zoo name (exported with Debian's PyTorch into BUILD/models-zoo when missing; default
// resnet18), an .onnx file (converted into a temporary directory) or a .webnn file.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.join(here, '..');

function parseArgs(argv) {
  const o = { build: null, model: 'resnet18', runs: 30, warmup: 5, rounds: 5, backend: 'auto', threads: 2 };
  const positional = [];
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--warmup') o.warmup = Number(argv[++i]);
    else if (a === '--rounds') o.rounds = Number(argv[++i]);
    else if (a === '--backend') o.backend = argv[++i];
    else if (a === '--threads') o.threads = Number(argv[++i]);
    else if (a === '-h' || a === '--help') {
      console.log('usage: node bench/js_model.mjs BUILD [MODEL] [--runs N] [--warmup N] [--rounds N] [--backend B] [--threads N]');
      process.exit(0);
    } else positional.push(a);
  }
  [o.build, o.model = o.model] = positional;
  if (!o.build) throw new Error('pass the build directory');
  return o;
}

const opts = parseArgs(process.argv.slice(2));
const build = path.resolve(opts.build);
const wnnBin = path.join(build, 'wnn');
process.env.WNN_NODE_ADDON ||= path.join(build, 'js', 'wnn.node');
const require = createRequire(import.meta.url);
const webnn = require(path.join(root, 'js', 'index.js'));
const { loadGraph } = await import(pathToFileURL(path.join(root, 'js', 'loader', 'index.js')).href);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// The .webnn file to time, converting or exporting the model first when needed.
function webnnFile(model) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wnn-js-model-'));
  let onnx = model;
  if (!model.endsWith('.onnx') && !model.endsWith('.webnn')) {
    const zoo = path.join(build, 'models-zoo');
    onnx = path.join(zoo, `${model}.onnx`);
    if (!fs.existsSync(onnx)) {
      console.log(`exporting ${model} into ${zoo} (Debian's PyTorch)`);
      execFileSync('/usr/bin/python3', [path.join(root, 'tests', 'models', 'make_models.py'), zoo, '--only', model],
        { stdio: 'inherit' });
    }
  }
  if (onnx.endsWith('.webnn')) return onnx;
  const out = path.join(tmp, path.basename(onnx, '.onnx'));
  execFileSync(wnnBin, ['convert', onnx, '-o', out], { stdio: ['ignore', 'ignore', 'inherit'] });
  return path.join(out, `${path.basename(onnx, '.onnx')}.webnn`);
}

const graphFile = webnnFile(opts.model);
const weightsFile = graphFile.replace(/\.webnn$/, '.safetensors');

function cppMedianMs() {
  const out = execFileSync(wnnBin, ['bench', graphFile, '--backend', opts.backend, '--threads',
    String(opts.threads), '--runs', String(opts.runs), '--warmup', String(opts.warmup), '--json']);
  return JSON.parse(out).median_ms;
}

webnn.setBackend(opts.backend, opts.threads);
const ctx = await webnn.ml.createContext();
const weights = fs.existsSync(weightsFile) ? fs.readFileSync(weightsFile) : null;
const { graph, inputs, outputs } = await loadGraph(ctx, fs.readFileSync(graphFile, 'utf8'), weights,
  { MLGraphBuilder: webnn.MLGraphBuilder });
const bytesPer = { float32: 4, float16: 2, int32: 4, uint32: 4, int64: 8, uint64: 8, int8: 1, uint8: 1 };
const ins = {}, outs = {}, data = {}, sinks = {};
for (const [name, d] of Object.entries(inputs)) {
  ins[name] = await ctx.createTensor({ ...d, writable: true });
  const n = d.shape.reduce((a, b) => a * b, 1) * bytesPer[d.dataType];
  data[name] = Uint8Array.from({ length: n }, (_, i) => (d.dataType === 'float32' && i % 4 === 3 ? 0x3e : (i * 29) & 0x7f));
}
for (const [name, d] of Object.entries(outputs)) {
  outs[name] = await ctx.createTensor({ ...d, readable: true });
  sinks[name] = new Uint8Array(d.shape.reduce((a, b) => a * b, 1) * bytesPer[d.dataType]);
}
async function run() {
  for (const name of Object.keys(ins)) ctx.writeTensor(ins[name], data[name]);
  ctx.dispatch(graph, ins, outs);
  for (const name of Object.keys(outs)) await ctx.readTensor(outs[name], sinks[name]);
}
async function jsMedianMs() {
  for (let i = 0; i < opts.warmup; ++i) await run();
  const times = [];
  for (let i = 0; i < opts.runs; ++i) {
    const t0 = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

const cpp = [], js = [];
for (let r = 0; r < opts.rounds; ++r) {
  cpp.push(cppMedianMs());
  js.push(await jsMedianMs());
}
const c = median(cpp), j = median(js);
console.log(`${path.basename(graphFile)} on ${opts.backend}, ${opts.threads} threads, ${opts.runs} runs x ${opts.rounds} alternating rounds`);
console.log(`wnn bench (C++)   ${c.toFixed(3)} ms  (rounds ${cpp.map((x) => x.toFixed(2)).join(' ')})`);
console.log(`JS WebNN API      ${j.toFixed(3)} ms  (rounds ${js.map((x) => x.toFixed(2)).join(' ')})`);
console.log(`JS / C++          ${(j / c).toFixed(3)} (target: within 5%, at most 1.05)`);
graph.destroy();
ctx.destroy();
