#!/usr/bin/env node
// The JavaScript WebNN API's per-dispatch overhead over wnn's C++ Session::run (issue 20), side
// by side on the same one-node graph (relu of 4 floats, so the kernel costs well under a
// microsecond), on each backend:
//   - C++: `wnn bench` on the same graph written as .webnn (median of --runs timed runs);
//   - JS latency: writeTensor, dispatch and await readTensor, per iteration (what a caller that
//     needs each result sees);
//   - JS pipelined: N dispatches queued back to back, then one readTensor, divided by N.
// Each figure is the median over --rounds rounds, the two runtimes alternating. The overhead is
// the JS figure minus the C++ one. Issue 20's target: under 20 us.
//
// usage: node bench/js_dispatch.mjs BUILD [--runs 20000] [--rounds 5] [--backends ref,auto]
//                                         [--threads 2]
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);

function parseArgs(argv) {
  const o = { build: null, runs: 20000, rounds: 5, backends: ['ref', 'onednn', 'xnnpack', 'auto'], threads: 2 };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--rounds') o.rounds = Number(argv[++i]);
    else if (a === '--backends') o.backends = argv[++i].split(',');
    else if (a === '--threads') o.threads = Number(argv[++i]);
    else if (a === '-h' || a === '--help') {
      console.log('usage: node bench/js_dispatch.mjs BUILD [--runs N] [--rounds N] [--backends a,b] [--threads N]');
      process.exit(0);
    } else if (!o.build) o.build = a;
    else throw new Error(`unexpected argument '${a}'`);
  }
  if (!o.build) throw new Error('pass the build directory');
  return o;
}

const opts = parseArgs(process.argv.slice(2));
const build = path.resolve(opts.build);
process.env.WNN_NODE_ADDON ||= path.join(build, 'js', 'wnn.node');
const require = createRequire(import.meta.url);
const webnn = require(path.join(here, '..', 'js', 'index.js'));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wnn-js-dispatch-'));
const graphFile = path.join(dir, 'one_node.webnn');
fs.writeFileSync(graphFile, `webnn_graph "one_node" v1 {
  inputs {
    x: f32[4];
  }
  nodes {
    y = relu(x);
  }
  outputs {
    y;
  }
}
`);

function cppMedianUs(backend) {
  const out = execFileSync(path.join(build, 'wnn'), ['bench', graphFile, '--backend', backend,
    '--threads', String(opts.threads), '--runs', String(opts.runs), '--warmup', '1000', '--json']);
  return JSON.parse(out).median_ms * 1e3;
}

async function jsSetup(backend) {
  webnn.setBackend(backend, opts.threads);
  const ctx = await webnn.ml.createContext();
  const b = new webnn.MLGraphBuilder(ctx);
  const x = b.input('x', { dataType: 'float32', shape: [4] });
  const graph = await b.build({ y: b.relu(x) });
  const xin = await ctx.createTensor({ dataType: 'float32', shape: [4], writable: true });
  const yout = await ctx.createTensor({ dataType: 'float32', shape: [4], readable: true });
  const data = new Float32Array([-1.5, 0, 2.25, -0]);
  const got = new Float32Array(4);
  ctx.writeTensor(xin, data);
  ctx.dispatch(graph, { x: xin }, { y: yout });
  await ctx.readTensor(yout, got);
  const want = [0, 0, 2.25, 0];
  if (got.some((v, i) => v !== want[i])) throw new Error(`${backend}: relu gave ${got}`);
  return { ctx, graph, xin, yout, data, got };
}

// Per-iteration latency: write, dispatch, read back, as a caller needing each result does.
async function jsLatencyUs(s, runs) {
  const { ctx, graph, xin, yout, data, got } = s;
  for (let i = 0; i < 1000; ++i) {
    ctx.writeTensor(xin, data);
    ctx.dispatch(graph, { x: xin }, { y: yout });
    await ctx.readTensor(yout, got);
  }
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < runs; ++i) {
    ctx.writeTensor(xin, data);
    ctx.dispatch(graph, { x: xin }, { y: yout });
    await ctx.readTensor(yout, got);
  }
  return Number(process.hrtime.bigint() - t0) / 1e3 / runs;
}

// Throughput: dispatches queued back to back, one read at the end.
async function jsPipelinedUs(s, runs) {
  const { ctx, graph, xin, yout, got } = s;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < runs; ++i) ctx.dispatch(graph, { x: xin }, { y: yout });
  await ctx.readTensor(yout, got);
  return Number(process.hrtime.bigint() - t0) / 1e3 / runs;
}

console.log(`one-node graph (relu of 4 floats), ${opts.threads} threads, ${opts.runs} runs, ` +
  `median of ${opts.rounds} alternating rounds; node ${process.version}`);
console.log('backend    C++ run us   JS latency us  overhead us   JS pipelined us  overhead us');
const rows = [];
for (const backend of opts.backends) {
  const s = await jsSetup(backend);
  const cpp = [], lat = [], pipe = [];
  for (let r = 0; r < opts.rounds; ++r) {
    cpp.push(cppMedianUs(backend));
    lat.push(await jsLatencyUs(s, opts.runs));
    pipe.push(await jsPipelinedUs(s, opts.runs));
  }
  s.graph.destroy();
  s.ctx.destroy();
  const row = { backend, cpp: median(cpp), latency: median(lat), pipelined: median(pipe) };
  rows.push(row);
  console.log(`${backend.padEnd(10)} ${row.cpp.toFixed(2).padStart(10)} ${row.latency.toFixed(2).padStart(15)} ` +
    `${(row.latency - row.cpp).toFixed(2).padStart(12)} ${row.pipelined.toFixed(2).padStart(17)} ` +
    `${(row.pipelined - row.cpp).toFixed(2).padStart(12)}`);
}
fs.rmSync(dir, { recursive: true, force: true });
const worst = Math.max(...rows.map((r) => r.latency - r.cpp));
console.log(`largest per-dispatch overhead (latency form): ${worst.toFixed(2)} us (target: under 20 us)`);
