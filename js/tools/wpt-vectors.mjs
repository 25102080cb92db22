#!/usr/bin/env node
// Runs the WPT WebNN conformance vectors (DIR/*.json, laid out as ../shared/wpt/FORMAT.md says)
// through the JavaScript WebNN API alone: MLGraphBuilder builds each graph, MLContext runs it
// with MLTensors. Reading the vectors' numbers and comparing with the WPT tolerances use the same
// code as `wnn conformance` (the addon's conformance helpers), so the two runners differ only in
// how the graph is built and run.
//
// usage: node js/tools/wpt-vectors.mjs DIR [--backend B] [--filter TEXT] [-v]
//                                          [--expect-like WNN_BINARY]
// --expect-like runs `WNN_BINARY conformance DIR --backend B --json` too and fails unless every
// case it passes passes here and both runners skip exactly the same cases.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);
const webnn = require('../index.js');
const { ml, MLGraphBuilder } = webnn;

function parseArgs(argv) {
  const opts = { dir: null, backend: 'ref', filter: '', verbose: false, expectLike: null };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--backend') opts.backend = argv[++i];
    else if (a === '--filter') opts.filter = argv[++i];
    else if (a === '--expect-like') opts.expectLike = argv[++i];
    else if (a === '-v' || a === '--verbose') opts.verbose = true;
    else if (a === '-h' || a === '--help') {
      console.log('usage: node js/tools/wpt-vectors.mjs DIR [--backend ref|onednn|xnnpack|auto] [--filter TEXT] [-v] [--expect-like WNN_BINARY]');
      process.exit(0);
    } else if (!opts.dir) opts.dir = a;
    else throw new Error(`unexpected argument '${a}'`);
  }
  if (!opts.dir) throw new Error('pass the WPT conformance JSON directory');
  return opts;
}

function containsNull(v) {
  if (v === null) return true;
  if (typeof v === 'object') return Object.values(v).some(containsNull);
  return false;
}

class Skip extends Error {}

// A JSON argument value as a JavaScript API argument: names of operands become the MLOperands,
// BigInt literals ("-9007199254740995n") become BigInts.
function toArg(v, operands) {
  if (typeof v === 'string') {
    if (operands.has(v)) return operands.get(v);
    if (/^-?[0-9]+n$/.test(v)) return BigInt(v.slice(0, -1));
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => toArg(x, operands));
  if (v !== null && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = toArg(x, operands);
    return out;
  }
  return v;
}

function typedView(bytes) {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

async function runCase(context, test) {
  const graph = test.graph;
  if (containsNull(graph)) throw new Skip('data contains null (NaN or infinity lost by an older JSON dump)');
  const builder = new MLGraphBuilder(context);
  const operands = new Map();
  const inputs = [];
  for (const [name, operand] of Object.entries(graph.inputs)) {
    const t = webnn.conformance.tensor(JSON.stringify(operand));
    const desc = { dataType: operand.descriptor.dataType, shape: operand.descriptor.shape };
    if (operand.constant) {
      operands.set(name, builder.constant(desc, t.data));
    } else {
      operands.set(name, builder.input(name, desc));
      inputs.push([name, desc, t.data]);
    }
  }
  for (const op of graph.operators) {
    const method = builder[op.name];
    if (typeof method !== 'function') throw new TypeError(`MLGraphBuilder has no method '${op.name}'`);
    const positional = [];
    let options;
    for (const arg of op.arguments) {
      const [[key, value]] = Object.entries(arg);
      if (key === 'options') options = toArg(value, operands);
      else positional.push(toArg(value, operands));
    }
    while (options !== undefined && positional.length < method.length) positional.push(undefined);
    const result = method.call(builder, ...positional, ...(options === undefined ? [] : [options]));
    const names = typeof op.outputs === 'string' ? [op.outputs] : op.outputs;
    const results = Array.isArray(result) ? result : [result];
    names.forEach((n, i) => operands.set(n, results[i]));
  }
  const outputs = {};
  for (const [name, operand] of Object.entries(graph.expectedOutputs)) {
    const o = operands.get(name);
    if (!o) throw new Error(`expected output '${name}' is not produced by any operator`);
    const want = operand.descriptor;
    if (o.dataType !== want.dataType || o.shape.length !== want.shape.length || o.shape.some((d, i) => d !== want.shape[i])) {
      throw new Error(`output '${name}' is ${o.dataType}[${o.shape}], expected ${want.dataType}[${want.shape}]`);
    }
    outputs[name] = o;
  }
  const mlgraph = await builder.build(outputs);
  try {
    const inTensors = {};
    for (const [name, desc, data] of inputs) {
      inTensors[name] = await context.createTensor({ ...desc, writable: true });
      context.writeTensor(inTensors[name], data);
    }
    const outTensors = {};
    for (const [name, o] of Object.entries(outputs)) {
      outTensors[name] = await context.createTensor({ dataType: o.dataType, shape: o.shape, readable: true });
    }
    context.dispatch(mlgraph, inTensors, outTensors);
    for (const [name, operand] of Object.entries(graph.expectedOutputs)) {
      const bytes = new Uint8Array(await context.readTensor(outTensors[name]));
      const tol = test.tolerance
        ? { metric: test.tolerance.metricType === 'ATOL' ? 'ATOL' : 'ULP', value: test.tolerance.value }
        : webnn.conformance.tolerance(mlgraph, name);
      const diff = webnn.conformance.compare(outputs[name].dataType, outputs[name].shape, typedView(bytes),
        JSON.stringify(operand), tol);
      if (diff) return `output '${name}' ${diff}`;
    }
    for (const t of [...Object.values(inTensors), ...Object.values(outTensors)]) t.destroy();
  } finally {
    mlgraph.destroy();
  }
  return '';
}

export async function runDirectory(dir, { backend = 'ref', filter = '' } = {}) {
  webnn.setBackend(backend);
  const context = await ml.createContext();
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  if (files.length === 0) throw new Error(`${dir}: no .json files`);
  const results = [];
  for (const file of files) {
    const doc = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    for (const test of doc.tests) {
      if (filter && !String(test.name).includes(filter)) continue;
      const r = { file, name: test.name ?? '?', op: test.graph?.operators?.[0]?.name ?? '?', status: 'pass', detail: '' };
      if (!test.graph?.operators?.length) {
        Object.assign(r, { status: 'fail', detail: 'no operators' });
      } else {
        try {
          const diff = await runCase(context, test);
          if (diff) Object.assign(r, { status: 'fail', detail: diff });
        } catch (e) {
          if (e instanceof Skip) Object.assign(r, { status: 'skip', detail: e.message });
          else Object.assign(r, { status: 'fail', detail: `${e.name}: ${e.message}` });
        }
      }
      results.push(r);
    }
  }
  context.destroy();
  return results;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const results = await runDirectory(opts.dir, opts);
  const perOp = new Map();
  for (const r of results) {
    if (!perOp.has(r.op)) perOp.set(r.op, { pass: 0, fail: 0, skip: 0 });
    perOp.get(r.op)[r.status]++;
  }
  console.log(`${'operator'.padEnd(24)} ${'passed'.padStart(7)} ${'failed'.padStart(7)} ${'skipped'.padStart(7)}`);
  for (const [op, c] of [...perOp].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    console.log(`${op.padEnd(24)} ${String(c.pass).padStart(7)} ${String(c.fail).padStart(7)} ${String(c.skip).padStart(7)}`);
  }
  for (const r of results) {
    if (r.status === 'fail') console.log(`FAIL ${r.file}: ${r.name}: ${r.detail}`);
    else if (r.status === 'skip') console.log(`SKIP ${r.file}: ${r.name}: ${r.detail}`);
    else if (opts.verbose) console.log(`PASS ${r.file}: ${r.name}`);
  }
  const count = (s) => results.filter((r) => r.status === s).length;
  console.log(`${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped (backend ${opts.backend})`);
  let ok = count('fail') === 0;
  if (opts.expectLike) {
    let out;
    try {
      out = execFileSync(opts.expectLike, ['conformance', opts.dir, '--backend', opts.backend, '--json',
        ...(opts.filter ? ['--filter', opts.filter] : [])], { maxBuffer: 1 << 28 });
    } catch (e) {
      out = e.stdout;  // exit 1 when a case fails there: its JSON is still complete
    }
    const cpp = JSON.parse(out.toString());
    const key = (r) => `${r.file}\u0000${r.name}`;
    const mine = new Map(results.map((r) => [key(r), r]));
    let mismatches = 0;
    for (const c of cpp.cases) {
      const m = mine.get(key(c));
      const bad = !m || (c.status === 'pass' && m.status !== 'pass') || ((c.status === 'skip') !== (m.status === 'skip'));
      if (bad) {
        ++mismatches;
        console.log(`MISMATCH ${c.file}: ${c.name}: wnn conformance ${c.status}, JavaScript ${m ? m.status : 'missing'}${m?.detail ? `: ${m.detail}` : ''}`);
      }
    }
    if (cpp.cases.length !== results.length) {
      ++mismatches;
      console.log(`MISMATCH: wnn conformance ran ${cpp.cases.length} cases, JavaScript ${results.length}`);
    }
    console.log(`wnn conformance: ${cpp.passed} passed, ${cpp.failed} failed, ${cpp.skipped} skipped; ${mismatches} mismatches`);
    ok = ok && mismatches === 0;
  }
  process.exitCode = ok ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('wpt-vectors.mjs')) {
  main().catch((e) => {
    console.error(`wpt-vectors: ${e.stack || e}`);
    process.exitCode = 2;
  });
}
