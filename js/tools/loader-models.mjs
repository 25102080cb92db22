// Loads converted models through js/loader on wnn's Node addon and checks that every output
// equals what `wnn run` computes for the same graph on the same inputs and backend.
//
// Per model: `wnn convert MODEL.onnx -o DIR` (dev-set models with their feed's free dims and
// pinned inputs) and `wnn convert` of the graph to webnn-graph-json, deterministic inputs written
// as .npy, `wnn run` with --output-dir, then loadGraph(context, graph, .safetensors) of the text
// and of the JSON form, and dispatch with the same input bytes. Outputs must
// agree within atol + rtol * |expected| (float32 1e-5 + 1e-4, float16 1e-3 + 1e-2; integers exact).
//
// As a script (make js-models-test):
//   node js/tools/loader-models.mjs --wnn build/wnn [--zoo DIR [--export all|default|LIST]] [--dev]
//        [--models a,b] [--backends auto,ref] [--prepare]
// prints one line per model and backend, then `N matched, N failed, N skipped`. --export
// exports the listed (or all) zoo models missing from --zoo; --dev fetches the dev set;
// --prepare only does those two (the CTest fixture of js/test/loader-models.test.mjs).
// Environment: WNN_NODE_ADDON (the addon), WNN_SHARED_MODELS, WNN_DEV_MODELS (the dev set).
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadGraph, parseGraph } from '../loader/index.js';
import { fromHalfBits } from '../loader/dtypes.js';
import { npy, readNpy, NPY_DESCR } from './loader-test-files.mjs';

const require = createRequire(import.meta.url);
const webnn = require('..');
export const SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// The zoo models `make test` exports (tests/CMakeLists.txt's validate and fp16 lists).
export const DEFAULT_ZOO = ['squeezenet1_1', 'transformer_encoder', 'transformer_encoder_opset13',
  'multihead_attention', 'lstm', 'gru', 'weight_norm_conv1d', 'squeezenet1_1_qdyn_uint8',
  'linear_mix_qdyn_int8', 'resnet18', 'mobilenet_v3_small', 'lraspp_mobilenet_v3_large'];

const TYPED = {
  float32: Float32Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
  uint64: BigUint64Array, int8: Int8Array, uint8: Uint8Array, int4: Int8Array, uint4: Uint8Array,
};
const TOLERANCE = { float32: [1e-5, 1e-4], float16: [1e-3, 1e-2] };

// The dev set's rules (where its list is, each model's feed and wnn convert's arguments for it)
// are tests/real_models/dev_set.py's; this asks it.
const DEV_SET = path.join(SOURCE, 'tests', 'real_models', 'dev_set.py');

function devSet(...args) {
  return execFileSync('/usr/bin/python3', [DEV_SET, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// The folder holding dev-models.json, or null.
export function findSharedModels() {
  try {
    return devSet('shared').trim();
  } catch {
    return null;
  }
}

export function devModelsDir() {
  return process.env.WNN_DEV_MODELS || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'wnn-dev-models');
}

// {name, onnx, convertArgs, feed: (graphInputs) -> {name: {dataType, shape, values(i)}} | null}
export function zooModel(zoo, name) {
  return { name, kind: 'zoo', onnx: path.join(zoo, `${name}.onnx`), convertArgs: [], feed: null };
}

// Models written at test time by a script under tests/ (4-bit data as wnn's writer packs it).
export function generatedModels(work) {
  const onnx = path.join(work, 'matmul_nbits_4bit.onnx');
  return [{ name: 'matmul_nbits_4bit', kind: 'generated', onnx, convertArgs: [],
    make: ['/usr/bin/python3', path.join(SOURCE, 'tests', 'models', 'make_4bit_model.py'), onnx] }];
}

// The dev-set models with their feeds, written into work/NAME/feed by dev_set.py.
export function devModels(shared, work) {
  const manifest = JSON.parse(fs.readFileSync(path.join(shared, 'dev-models.json'), 'utf8')).models;
  return manifest.map((m) => {
    const { convert_args: convertArgs, inputs } = JSON.parse(devSet('feed', m.name, path.join(work, m.name, 'feed')));
    return { name: m.name, kind: 'dev', onnx: path.join(devModelsDir(), m.file), convertArgs, inputs };
  });
}

// A deterministic stream in [0, 1).
function uniform(seed) {
  let s = (seed * 2654435761) >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Default inputs: floats multiples of 1/64 in [-1, 1), integers in [0, 8) (valid indices for
// any embedding), from a stream seeded by the input's position.
function defaultFill(dataType, k) {
  const u = uniform(17 + k);
  if (dataType.startsWith('float')) return () => Math.floor(u() * 128 - 64) / 64;
  return () => Math.floor(u() * 8);
}

function tensorBytes(dataType, count, value) {
  if (dataType === 'float16') {
    const half = webnn.conformance.toHalf(Float32Array.from({ length: count }, (_, i) => value(i)));
    return new Uint8Array(half.buffer, half.byteOffset, half.byteLength);
  }
  const T = TYPED[dataType];
  const big = T === BigInt64Array || T === BigUint64Array;
  const a = T.from({ length: count }, (_, i) => (big ? BigInt(Math.trunc(value(i))) : value(i)));
  return new Uint8Array(a.buffer);
}

function numbers(dataType, bytes) {
  const b = bytes.byteOffset % 8 ? bytes.slice() : bytes;
  if (dataType === 'float16') {
    const h = new Uint16Array(b.buffer, b.byteOffset, b.byteLength / 2);
    return Array.from(h, fromHalfBits);
  }
  const T = TYPED[dataType];
  return Array.from(new T(b.buffer, b.byteOffset, b.byteLength / T.BYTES_PER_ELEMENT), Number);
}

// max |a - b| and the elements beyond the tolerance of the data type.
export function compareOutput(dataType, actual, expected) {
  const a = numbers(dataType, actual), e = numbers(dataType, expected);
  if (a.length !== e.length) return { maxAbs: Infinity, bad: a.length || 1, count: e.length };
  const [atol, rtol] = TOLERANCE[dataType] || [0, 0];
  let maxAbs = 0, bad = 0;
  for (let i = 0; i < a.length; ++i) {
    if (Number.isNaN(e[i]) || Number.isNaN(a[i])) {
      if (Number.isNaN(e[i]) !== Number.isNaN(a[i])) ++bad;
      continue;
    }
    if (a[i] === e[i]) continue;
    const d = Math.abs(a[i] - e[i]);
    maxAbs = Math.max(maxAbs, d);
    if (!(d <= atol + rtol * Math.abs(e[i]))) ++bad;
  }
  return { maxAbs, bad, count: e.length };
}

function wnnRun(wnn, args) {
  return execFileSync(wnn, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
}

// Converts a model once into `work` (reused by every backend), and its graph to the JSON form;
// returns the paths.
export function convert(wnn, model, work) {
  const dir = path.join(work, model.name);
  const stem = path.basename(model.onnx, '.onnx');
  const graph = path.join(dir, `${stem}.webnn`);
  if (model.make && !fs.existsSync(model.onnx)) execFileSync(model.make[0], model.make.slice(1), { stdio: 'pipe' });
  const json = path.join(dir, `${stem}.json`);
  if (!fs.existsSync(graph)) wnnRun(wnn, ['convert', model.onnx, '-o', dir, '-q', ...model.convertArgs]);
  if (!fs.existsSync(json)) wnnRun(wnn, ['convert', graph, '-o', json]);
  return { dir, graph, json, weights: path.join(dir, `${stem}.safetensors`) };
}

// Runs one converted model both ways on `backend`; returns {outputs, maxAbs, bad: [...]}.
export async function checkModel(wnn, model, pair, backend) {
  const text = fs.readFileSync(pair.graph);
  const weights = fs.existsSync(pair.weights) ? fs.readFileSync(pair.weights) : null;
  const parsed = parseGraph(text, { fileName: pair.graph });
  const feeds = {};
  const runArgs = ['run', pair.graph, '--backend', backend, '--json', '-q'];
  const outDir = path.join(pair.dir, `out-${backend}`);
  fs.rmSync(outDir, { recursive: true, force: true });
  // Dev-set feeds are keyed by ONNX input name: the converted graph keeps the inputs in order
  // (pinned ones removed) and renames only names the text form cannot hold.
  if (model.inputs && model.inputs.length !== parsed.inputs.length) {
    throw new Error(`${model.name}: the feed has ${model.inputs.length} inputs, the converted graph ${parsed.inputs.length}`);
  }
  parsed.inputs.forEach((input, k) => {
    const shape = input.shape;  // converted graphs are static: the feed's dims were given
    let file = path.join(pair.dir, `input${k}.npy`);
    if (model.inputs) {
      file = model.inputs[k].file;
      const { descr, shape: fed, bytes } = readNpy(fs.readFileSync(file));
      // A bool input is fed as uint8 (wnn's bool).
      const want = input.dataType === 'uint8' ? ['|u1', '|b1'] : [NPY_DESCR[input.dataType]];
      if (!want.includes(descr) || fed.join() !== shape.join()) {
        throw new Error(`${model.name}: input ${k} '${input.name}' is ${input.dataType}[${shape}], the feed for '${model.inputs[k].name}' ${descr}[${fed}]`);
      }
      feeds[input.name] = bytes;
    } else {
      const count = shape.reduce((a, b) => a * b, 1);
      const bytes = tensorBytes(input.dataType, count, defaultFill(input.dataType, k));
      feeds[input.name] = bytes;
      fs.writeFileSync(file, npy(input.dataType, shape, bytes));
    }
    runArgs.push('--input', `${input.name}=${file}`);
  });
  runArgs.push('--output-dir', outDir);
  const report = JSON.parse(wnnRun(wnn, runArgs));

  webnn.setBackend(backend);
  const result = { outputs: report.outputs.length, maxAbs: 0, bad: [] };
  // The text form and the JSON form `wnn convert` writes of the same graph.
  for (const [form, file] of [['text', pair.graph], ['json', pair.json]]) {
    const context = await webnn.ml.createContext();
    const loaded = await loadGraph(context, fs.readFileSync(file), weights, { MLGraphBuilder: webnn.MLGraphBuilder, fileName: file });
    const ins = {}, outs = {};
    for (const [name, desc] of Object.entries(loaded.inputs)) {
      ins[name] = await context.createTensor({ ...desc, writable: true });
      context.writeTensor(ins[name], feeds[name]);
    }
    for (const [name, desc] of Object.entries(loaded.outputs)) outs[name] = await context.createTensor({ ...desc, readable: true });
    context.dispatch(loaded.graph, ins, outs);
    // The dispatch has run once any read resolves; a failed run leaves its error here.
    if (Object.keys(outs).length) await context.readTensor(Object.values(outs)[0]);
    const failed = webnn.diagnostics.lastError(context);
    if (failed) {
      result.bad.push(`${form}: dispatch failed: ${failed.message}`);
      continue;
    }
    for (const o of report.outputs) {
      if (!outs[o.name]) {
        result.bad.push(`${form}: ${o.name}: not an output of the loaded graph`);
        continue;
      }
      const expected = readNpy(fs.readFileSync(o.file));
      const desc = loaded.outputs[o.name];
      if (desc.dataType !== o.dtype || desc.shape.join() !== o.shape.join()) {
        result.bad.push(`${form}: ${o.name}: loaded ${desc.dataType}[${desc.shape}], wnn run ${o.dtype}[${o.shape}]`);
        continue;
      }
      const actual = new Uint8Array(await context.readTensor(outs[o.name]));
      const c = compareOutput(o.dtype, actual, expected.bytes);
      result.maxAbs = Math.max(result.maxAbs, c.maxAbs);
      if (c.bad) result.bad.push(`${form}: ${o.name}: ${c.bad} of ${c.count} elements beyond tolerance (max abs ${c.maxAbs})`);
    }
    if (Object.keys(outs).length !== report.outputs.length) {
      result.bad.push(`${form}: the loaded graph has ${Object.keys(outs).length} outputs, wnn run ${report.outputs.length}`);
    }
    loaded.graph.destroy();
  }
  return result;
}

function parseArgs(argv) {
  const a = { wnn: path.join(SOURCE, 'build', 'wnn'), zoo: null, export: null, dev: false, models: null, backends: ['auto'], work: null, prepare: false };
  for (let i = 0; i < argv.length; ++i) {
    const v = () => argv[++i];
    switch (argv[i]) {
      case '--wnn': a.wnn = v(); break;
      case '--zoo': a.zoo = v(); break;
      case '--export': a.export = v(); break;
      case '--dev': a.dev = true; break;
      case '--models': a.models = v().split(','); break;
      case '--backends': a.backends = v().split(','); break;
      case '--work': a.work = v(); break;
      case '--prepare': a.prepare = true; break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  return a;
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const work = a.work || fs.mkdtempSync(path.join(os.tmpdir(), 'wnn-loader-models-'));
  fs.mkdirSync(work, { recursive: true });
  const models = generatedModels(work).filter((m) => !a.models || a.models.includes(m.name));
  if (a.zoo) {
    let names = DEFAULT_ZOO;
    if (a.export === 'all') {
      names = execFileSync('/usr/bin/python3', [path.join(SOURCE, 'tests/models/make_models.py'), '--list'], { encoding: 'utf8' })
        .split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
    } else if (a.export && a.export !== 'default') {
      names = a.export.split(',');
    }
    if (a.models) names = names.filter((n) => a.models.includes(n));
    const missing = names.filter((n) => !fs.existsSync(path.join(a.zoo, `${n}.onnx`)));
    if (a.export && missing.length) {
      console.error(`exporting ${missing.length} zoo models into ${a.zoo}`);
      execFileSync('/usr/bin/python3', [path.join(SOURCE, 'tests/models/make_models.py'), a.zoo, '--only', missing.join(',')], { stdio: 'inherit' });
    }
    models.push(...names.map((n) => zooModel(a.zoo, n)));
  }
  if (a.dev) {
    const shared = findSharedModels();
    if (!shared) throw new Error('the dev set was not found: set WNN_SHARED_MODELS');
    execFileSync('bash', [path.join(shared, 'fetch.sh'), '-o', devModelsDir()], { stdio: 'ignore' });
    models.push(...devModels(shared, work).filter((m) => !a.models || a.models.includes(m.name)));
  }
  if (a.prepare) {
    const absent = models.filter((m) => !m.make && !fs.existsSync(m.onnx));
    for (const m of absent) console.error(`absent after exporting and fetching: ${m.onnx}`);
    process.exitCode = absent.length ? 1 : 0;
    return;
  }
  let matched = 0, failed = 0, skipped = 0, maxAbs = 0;
  for (const m of models) {
    if (!m.make && !fs.existsSync(m.onnx)) {
      console.log(`skip  ${m.name}: ${m.onnx} is absent`);
      ++skipped;
      continue;
    }
    let pair;
    try {
      pair = convert(a.wnn, m, work);
    } catch (e) {
      console.log(`FAIL  ${m.name}: wnn convert: ${String(e.stderr || e.message).trim().split('\n').pop()}`);
      ++failed;
      continue;
    }
    for (const backend of a.backends) {
      try {
        const r = await checkModel(a.wnn, m, pair, backend);
        maxAbs = Math.max(maxAbs, r.maxAbs);
        if (r.bad.length) {
          ++failed;
          console.log(`FAIL  ${m.name} [${backend}]: ${r.bad.join('; ')}`);
        } else {
          ++matched;
          console.log(`ok    ${m.name} [${backend}]: ${r.outputs} outputs, max abs diff ${r.maxAbs}`);
        }
      } catch (e) {
        ++failed;
        console.log(`FAIL  ${m.name} [${backend}]: ${String(e.stderr || e.message).trim().split('\n').pop()}`);
      }
    }
  }
  console.log(`${matched} matched, ${failed} failed, ${skipped} skipped (max abs diff ${maxAbs})`);
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
