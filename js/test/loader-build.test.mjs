// The loader end to end on wnn's Node addon: every kind of constant and option reaches the
// builder and the graph computes what the file says; Safetensors checks; dyn dims; errors.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { loadGraph, SafetensorsArchive, LoaderError } from '../loader/index.js';
import { safetensors } from '../tools/loader-test-files.mjs';

const require = createRequire(import.meta.url);
const webnn = require('..');
const { MLGraphBuilder } = webnn;

async function run(text, weights, feeds, options = {}) {
  const context = await webnn.ml.createContext();
  const loaded = await loadGraph(context, text, weights, { MLGraphBuilder, ...options });
  const tensors = {};
  const ins = {};
  for (const [name, desc] of Object.entries(loaded.inputs)) {
    ins[name] = await context.createTensor({ ...desc, writable: true });
    context.writeTensor(ins[name], feeds[name]);
  }
  for (const [name, desc] of Object.entries(loaded.outputs)) tensors[name] = await context.createTensor({ ...desc, readable: true });
  context.dispatch(loaded.graph, ins, tensors);
  const out = {};
  for (const [name, t] of Object.entries(tensors)) out[name] = await context.readTensor(t);
  return { loaded, out };
}

test('weights of every dtype, BF16 widened, key rewriting, @scalar and @bytes', async () => {
  const w = safetensors({
    'layer.0::w': { dtype: 'F32', shape: [2, 2], data: new Float32Array([1.5, -2, 0, 3.25]) },
    bf: { dtype: 'BF16', shape: [2], data: new Uint16Array([0x3fc0, 0xc040]) },  // 1.5, -3
    i64: { dtype: 'I64', shape: [2], data: new BigInt64Array([-7n, 9007199254740993n]) },
    b: { dtype: 'BOOL', shape: [3], data: new Uint8Array([1, 0, 1]) },
  });
  const text = `webnn_graph "w" v1 {
    inputs { x: f32[2, 2]; }
    consts {
      w: f32[2, 2] @weights("layer_0__w");
      bf: f32[2];
      i64: i64[2];
      b: u8[3];
      s: f32[2, 2] @scalar(-0.25);
      h: f16[2] @scalar(65519);
      si: i32[3] @scalar(-3);
      big: i64[1] @scalar(-9223372036854775807);
      raw: i8[3] @bytes([255, 128, 5]);
    }
    nodes {
      y = add(matmul(x, w), s);
    }
    outputs { y; }
  }`.replace('add(matmul(x, w), s)', 'matmul(x, w)');
  const g = text.replace('y = matmul(x, w);', 'm = matmul(x, w); y = add(m, s); a = identity(bf); c = identity(i64); d = identity(b); e = identity(h); f = identity(si); k = identity(big); r = identity(raw);')
    .replace('outputs { y; }', 'outputs { y; a; c; d; e; f; k; r; }');
  const x = new Float32Array([1, -1, 2, 0.5]);
  const { out, loaded } = await run(g, w, { x });
  assert.deepEqual(loaded.inputs, { x: { dataType: 'float32', shape: [2, 2] } });
  assert.deepEqual(loaded.outputs.c, { dataType: 'int64', shape: [2] });
  // [1, -1; 2, 0.5] x [1.5, -2; 0, 3.25] - 0.25
  assert.deepEqual([...new Float32Array(out.y)], [1.25, -5.5, 2.75, -2.625]);
  assert.deepEqual([...new Float32Array(out.a)], [1.5, -3]);
  assert.deepEqual([...new BigInt64Array(out.c)], [-7n, 9007199254740993n]);
  assert.deepEqual([...new Uint8Array(out.d)], [1, 0, 1]);
  assert.deepEqual([...new Uint16Array(out.e)], [0x7bff, 0x7bff]);  // 65519 rounds down to 65504
  assert.deepEqual([...new Int32Array(out.f)], [-3, -3, -3]);
  assert.deepEqual([...new BigInt64Array(out.k)], [-9223372036854775807n]);
  assert.deepEqual([...new Int8Array(out.r)], [-1, -128, 5]);
});

test('packed 4-bit constants: low nibble first, odd counts, sign extension', async () => {
  // int4 [-8, 7, -1] packed: 0x78 (element 0 = 8 -> -8, element 1 = 7), 0x0f (-1)
  const w = safetensors({ q: { dtype: 'U8', shape: [2], data: new Uint8Array([0x78, 0x0f]) } },
    { 'rustnn.webnn.packed4': '1' });
  const g = `webnn_graph "q" v1 @quantized {
    inputs { x: f32[3]; }
    consts { q: i4[3]; u: u4[3] @bytes([0xf1, 0x09]); }
    nodes { a = cast(q, type="float32"); y = add(x, a); b = cast(u, type="int32"); }
    outputs { y; b; }
  }`.replace('0xf1, 0x09', '241, 9');
  const { out } = await run(g, w, { x: new Float32Array([0.5, 0.5, 0.5]) });
  assert.deepEqual([...new Float32Array(out.y)], [-7.5, 7.5, -0.5]);
  assert.deepEqual([...new Int32Array(out.b)], [1, 15, 9]);
  // The same through an explicit layout.
  const again = await run(g, w, { x: new Float32Array([0, 0, 0]) }, { int4Layout: 'unpacked' });
  assert.deepEqual([...new Float32Array(again.out.y)], [-8, 7, -1]);
  const noMarker = safetensors({ q: { dtype: 'U8', shape: [2], data: new Uint8Array([0x78, 0x0f]) } });
  await assert.rejects(run(g, noMarker, {}), /constant 'q': .*needs the packed 4-bit marker "rustnn\.webnn\.packed4": "1"/);
  const badMarker = safetensors({ q: { dtype: 'U8', shape: [2], data: new Uint8Array(2) } }, { 'rustnn.webnn.packed4': '2' });
  await assert.rejects(run(g, badMarker, {}), /unknown packed 4-bit version '2'/);
  const wrongShape = safetensors({ q: { dtype: 'U8', shape: [3], data: new Uint8Array(3) } }, { 'rustnn.webnn.packed4': '1' });
  await assert.rejects(run(g, wrongShape, {}), /int4\[3\] is stored packed as U8\[2\], got U8\[3\]/);
});

test('options of every kind: operands by name, enums, lists, booleans, numbers, data types', async () => {
  const w = safetensors({
    f: { dtype: 'F32', shape: [2, 1, 2, 2], data: new Float32Array([1, 0, -1, 2, 0.5, 0.5, 0.5, 0.5]) },
    bias: { dtype: 'F32', shape: [2], data: new Float32Array([0.25, -10]) },
  });
  const g = `webnn_graph "o" v1 {
    inputs { x: f32[1, 1, 3, 3]; }
    consts { f: f32[2, 1, 2, 2]; bias: f32[2]; }
    nodes {
      c = conv2d(x, f, bias=bias, padding=[0, 0, 1, 1], strides=[1, 2], inputLayout=nchw, filterLayout="oihw", label=null);
      k = clamp(c, minValue=-inf, maxValue=3);
      r = reshape(k, newShape=[2, 4]);
      t = transpose(r, permutation=[1, 0]);
      s = reduceSum(t, axes=[0], keepDimensions=true);
      [p, q] = split(t, splits=[1, 3], axis=0);
      i = cast(q, to="Int32");
    }
    outputs { s; p; i; }
  }`;
  const x = new Float32Array([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const { out, loaded } = await run(g, w, { x });
  assert.deepEqual(loaded.outputs.i, { dataType: 'int32', shape: [3, 2] });
  // Hand computation: conv with stride 2 along width and one zero column either side.
  // channel 0 (filter [1 0; -1 2], bias .25), rows 0..1, columns (-1,0) and (1,2):
  //   y00 = 0*1 + 1*0 + 0*-1 + 4*2 + .25 = 8.25 -> clamp 3; y01 = 2 + 0 - 5 + 12 + .25 = 9.25 -> 3
  //   y10 = 0 + 0 + 0 + 14 + .25 = 14.25 -> 3;  y11 = 5 - 8 + 18 + .25 = 15.25 -> 3
  // channel 1 (filter all .5, bias -10): y00 = (1+4)/2 - 10 = -7.5; y01 = (2+3+5+6)/2 - 10 = -2
  //   y10 = (4+7)/2 - 10 = -4.5; y11 = (5+6+8+9)/2 - 10 = 4 -> 3
  const t = [3, -7.5, 3, -2, 3, -4.5, 3, 3];  // transpose of [[3,3,3,3],[-7.5,-2,-4.5,3]]
  assert.deepEqual([...new Float32Array(out.s)], [12, -11]);
  assert.deepEqual([...new Float32Array(out.p)], t.slice(0, 2));
  assert.deepEqual([...new Int32Array(out.i)], [3, -2, 3, -4, 3, 3]);
});

test('dyn dims: a value from options.dims, else the maximum; out-of-range and unknown dims are errors', async () => {
  const g = `webnn_graph "d" v2 {
    inputs { x: f32[dyn("batch", 4), 2]; }
    nodes { y = mul(x, x); }
    outputs { y; }
  }`;
  const one = await run(g, null, { x: new Float32Array([3, -2]) }, { dims: { batch: 1 } });
  assert.deepEqual(one.loaded.inputs.x.shape, [1, 2]);
  assert.deepEqual([...new Float32Array(one.out.y)], [9, 4]);
  const max = await run(g, null, { x: new Float32Array(8).fill(-1) });
  assert.deepEqual(max.loaded.outputs.y.shape, [4, 2]);
  await assert.rejects(run(g, null, {}, { dims: { batch: 5 } }), /dynamic dim 'batch' \(input 'x', dim 0\) must be in \[1, 4\], got 5/);
  await assert.rejects(run(g, null, {}, { dims: { seq: 2 } }), /the graph has no dynamic dim named 'seq' \(it has batch\)/);
});

test('JSON graph with a renamed output and an input listed as an output', async () => {
  const doc = {
    format: 'webnn-graph-json', version: 1, name: 'j',
    inputs: { 'in:0': { dataType: 'float32', shape: [3] } },
    consts: { c: { dataType: 'float32', shape: [3], init: { kind: 'inlineBytes', bytes: [...new Uint8Array(new Float32Array([1, -2, 0.5]).buffer)] } } },
    nodes: [{ id: 'm', op: 'concat', inputs: ['in:0', 'c'], options: { axis: 0 }, outputs: null }],
    outputs: { result: 'm', echo: 'in:0' },
  };
  const { out, loaded } = await run(JSON.stringify(doc), null, { 'in:0': new Float32Array([4, 5, 6]) });
  assert.deepEqual(Object.keys(loaded.outputs), ['result', 'echo']);
  assert.deepEqual([...new Float32Array(out.result)], [4, 5, 6, 1, -2, 0.5]);
  assert.deepEqual([...new Float32Array(out.echo)], [4, 5, 6]);
});

test('build errors name the statement, the operator and the argument', async () => {
  const base = (nodes, consts = '') => `webnn_graph "e" v1 {\n  inputs { x: f32[2, 3]; }\n  consts { ${consts} }\n  nodes {\n    ${nodes}\n  }\n  outputs { y; }\n}`;
  const cases = [
    ['y = conv2d(x, x, pads=[1, 1, 1, 1]);', /^g\.webnn:5:5: conv2d 'y': g\.webnn:5:22: unknown option 'pads' \(did you mean 'padding'\?\)/],
    ['y = relu(z);', /g\.webnn:5:5: relu 'y': g\.webnn:5:14: argument 'input': 'z' is not defined before its use/],
    ['y = relu(x); y = neg(x);', /g\.webnn:5:18: neg 'y': 'y' is defined twice/],
    ['y = softmax(x, axis=1.5);', /argument 'axis': expected an integer, got 1\.5/],
    ['y = softmax(x);', /softmax 'y': missing required argument 'axis'/],
    ['y = cast(x, type="f64");', /argument 'dataType': unknown data type 'f64'/],
    ['y = resample2d(x, mode=cubic);', /argument 'mode': 'cubic' is not one of nearest-neighbor, linear/],
    ['y = relux(x);', /unknown operator 'relux' \(did you mean 'relu'\?\)/],
    ['[y, z] = relu(x);', /2 output names given, relu produces 1/],
    ['y = reshape(x, newShape=[4, 2]);', /g\.webnn:5:5: reshape 'y': .*/],
    ['y = relu(x, label=1);', /argument 'label': expected a string, got an integer/],
    ['y = relu(x, label="a", label="b");', /argument 'label': given twice/],
  ];
  const context = await webnn.ml.createContext();
  for (const [nodes, pattern] of cases) {
    await assert.rejects(loadGraph(context, base(nodes), null, { MLGraphBuilder, fileName: 'g.webnn' }), (e) => {
      assert.ok(e instanceof LoaderError, `${nodes}: ${e}`);
      assert.match(e.message, pattern, nodes);
      return true;
    });
  }
  await assert.rejects(loadGraph(context, base('y = relu(w);', 'w: f32[1];'), null, { MLGraphBuilder, fileName: 'g.webnn' }),
    /g\.webnn:3:12: constant 'w': @weights\("w"\) needs a weights file, and none was given/);
  await assert.rejects(loadGraph(context, base('y = relu(x);'), null, {}), /no MLGraphBuilder: pass options\.MLGraphBuilder/);
});

test('Safetensors: malformed files give one clear message', () => {
  const good = safetensors({ a: { dtype: 'F32', shape: [2], data: new Float32Array([1, 2]) } });
  const header = (obj, extra = 0) => {
    const h = new TextEncoder().encode(JSON.stringify(obj));
    const b = new Uint8Array(8 + h.length + extra);
    new DataView(b.buffer).setBigUint64(0, BigInt(h.length), true);
    b.set(h, 8);
    return b;
  };
  const rejects = (bytes, pattern) => assert.throws(() => new SafetensorsArchive(bytes, 'w.safetensors'), (e) => {
    assert.ok(e instanceof LoaderError);
    assert.match(e.message, pattern);
    return true;
  });
  rejects(good.slice(0, 5), /^w\.safetensors: the file has 5 bytes, shorter than the 8-byte header length/);
  rejects(good.slice(0, 20), /header length \d+ runs past the end of the file \(20 bytes\): the file is truncated/);
  const huge = new Uint8Array(16);
  new DataView(huge.buffer).setBigUint64(0, 1n << 40n, true);
  rejects(huge, /header length 1099511627776 is above the limit/);
  rejects(header([1]), /the header is not a JSON object/);
  rejects(header({ a: { dtype: 'F64', shape: [1], data_offsets: [0, 8] } }, 8), /tensor 'a' has dtype 'F64' \(wnn reads F32, F16, BF16/);
  rejects(header({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, 4), /tensor 'a': data_offsets \[0, 8\] are out of range \(the data region has 4 bytes\)/);
  rejects(header({ a: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, 8), /tensor 'a': data_offsets give 8 bytes, F32\[3\] needs 12/);
  rejects(header({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, b: { dtype: 'U8', shape: [4], data_offsets: [4, 8] } }, 8), /tensors 'a' and 'b' overlap/);
  rejects(header({ a: { dtype: 'F32', shape: [-1], data_offsets: [0, 0] } }), /shape is not a list of non-negative integers/);
  rejects(header({ a: { dtype: 'F32', shape: [1] } }), /tensor 'a' lacks "data_offsets"/);
  rejects(header({ __metadata__: { v: 1 } }), /__metadata__ 'v' is not a string/);
  rejects(header({ a: { dtype: 'U8', shape: [1, 1, 1, 1, 1, 1, 1, 1, 1], data_offsets: [0, 1] } }, 1), /rank 9 is above 8/);
  const bytes = new TextEncoder().encode('{"a": {"dtype": "U8", "shape": [0], "data_offsets": [0, 0]}, "a": 1}');
  const dup = new Uint8Array(8 + bytes.length);
  new DataView(dup.buffer).setBigUint64(0, BigInt(bytes.length), true);
  dup.set(bytes, 8);
  rejects(dup, /w\.safetensors header:1:\d+: invalid JSON: key "a" is repeated/);
  const archive = new SafetensorsArchive(good, 'w.safetensors');
  assert.throws(() => archive.load('a', { dataType: 'float32', shape: [1, 2] }), /constant 'a': declared shape \[1, 2\], stored shape \[2\]/);
  assert.throws(() => archive.load('a', { dataType: 'int32', shape: [2] }), /declared int32, stored as F32/);
  assert.throws(() => archive.load('b', { dataType: 'float32', shape: [2] }), /no tensor 'b' in the weights file/);
  const ambiguous = new SafetensorsArchive(safetensors({
    'x::y': { dtype: 'U8', shape: [1], data: new Uint8Array([1]) }, 'x_.y': { dtype: 'U8', shape: [1], data: new Uint8Array([2]) },
  }));
  assert.deepEqual([...ambiguous.load('x_.y', { dataType: 'uint8', shape: [1] })], [2]);
  assert.throws(() => ambiguous.load('x._y', { dataType: 'uint8', shape: [1] }), /matches 'x::y' and 'x_\.y' after rewriting/);
});

test('64-bit integers beyond 2^53 reach the builder exactly (as BigInt)', async () => {
  const g = `webnn_graph "b" v1 { inputs { x: i64[3]; }
    nodes { y = clamp(x, minValue=-9007199254740993, maxValue=9007199254740995); } outputs { y; } }`;
  const { out } = await run(g, null, { x: new BigInt64Array([-9007199254740999n, 5n, 9007199254741001n]) });
  assert.deepEqual([...new BigInt64Array(out.y)], [-9007199254740993n, 5n, 9007199254740995n]);
});

test('constant() gets the ArrayBufferView type the spec pairs with each data type, also from a Node Buffer', async () => {
  const seen = {};
  class RecordingBuilder {
    constructor(context) {
      this.context = context;
    }
    input(name, desc) {
      return { ...desc };
    }
    constant(desc, view) {
      seen[`${desc.dataType}`] = [view.constructor.name, view.length];
      return { ...desc };
    }
    identity(x) {
      return { ...x };
    }
    async build(outputs) {
      return { outputs };
    }
  }
  const w = Buffer.from(safetensors({
    a: { dtype: 'F32', shape: [3], data: new Float32Array([1, 2, 3]) },
    b: { dtype: 'I64', shape: [1], data: new BigInt64Array([5n]) },
    c: { dtype: 'U8', shape: [2], data: new Uint8Array([0x21, 0x03]) },
  }, { 'rustnn.webnn.packed4': '1' }));
  const g = `webnn_graph "v" v1 { consts { a: f32[3]; b: i64[1]; c: i4[3]; h: f16[2] @scalar(1); u: u32[1] @scalar(7);
    i: i32[1] @scalar(-1); s: i8[1] @scalar(-2); q: u8[1] @scalar(2); l: u64[1] @scalar(3); }
    nodes { y = identity(a); } outputs { y; } }`;
  for (const [int4Layout, int4View] of [['packed', ['Uint8Array', 2]], ['unpacked', ['Int8Array', 3]]]) {
    await loadGraph({}, g, w, { MLGraphBuilder: RecordingBuilder, int4Layout });
    assert.deepEqual(seen, {
      float32: ['Float32Array', 3], int64: ['BigInt64Array', 1], int4: int4View, float16: ['Uint16Array', 2],
      uint32: ['Uint32Array', 1], int32: ['Int32Array', 1], int8: ['Int8Array', 1], uint8: ['Uint8Array', 1],
      uint64: ['BigUint64Array', 1],
    });
  }
});
