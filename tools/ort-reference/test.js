'use strict';
// Tests for the ONNX Runtime reference runner: run with `node --test tools/ort-reference/`.
// The models come from make_test_models.py (Debian's python3-onnx); every expected value is
// computed here by hand or with plain JS arithmetic, never copied from the runner's output.

const assert = require('node:assert/strict');
const {spawnSync} = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {after, before, describe, test} = require('node:test');
const {readSafetensors, writeSafetensors} = require('./safetensors');

const kPython = '/usr/bin/python3';
let dir;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-reference-test-'));
  const made = spawnSync(kPython, [path.join(__dirname, 'make_test_models.py'), dir], {encoding: 'utf8'});
  assert.equal(made.status, 0, `make_test_models.py failed: ${made.stderr}`);
});

after(() => fs.rmSync(dir, {recursive: true, force: true}));

function model(name) {
  return path.join(dir, `${name}.onnx`);
}

function writeInputs(name, tensors) {
  const file = path.join(dir, `${name}.inputs.safetensors`);
  writeSafetensors(file, Object.entries(tensors));
  return file;
}

function node(script, args) {
  return spawnSync(process.execPath, [path.join(__dirname, script), ...args], {encoding: 'utf8'});
}

// Runs run.js and returns {status, stderr, outputs (Map or null), file}.
function run(modelName, inputs, extra = []) {
  const outFile = path.join(dir, `${modelName}.${Math.random().toString(36).slice(2)}.out.safetensors`);
  const result = node('run.js', ['--model', model(modelName), '--inputs', inputs, '--outputs', outFile, ...extra]);
  const outputs = fs.existsSync(outFile) ? readSafetensors(outFile) : null;
  return {status: result.status, stderr: result.stderr, outputs, file: outFile};
}

const f32 = (values, shape = [values.length]) => ({dtype: 'F32', shape, data: Float32Array.from(values)});

describe('safetensors', () => {
  test('writer lays out header length, padded JSON header and little-endian data', () => {
    const file = path.join(dir, 'layout.safetensors');
    writeSafetensors(file, [['b', {dtype: 'I32', shape: [2], data: Int32Array.from([-2, 258])}],
                            ['a', {dtype: 'U8', shape: [], data: Uint8Array.from([7])}]]);
    const bytes = fs.readFileSync(file);
    const json = '{"b":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},' +
                 '"a":{"dtype":"U8","shape":[],"data_offsets":[8,9]}}';
    const padded = json + ' '.repeat((8 - (json.length % 8)) % 8);
    assert.equal(bytes.readBigUInt64LE(0), BigInt(padded.length));
    assert.equal((8 + padded.length) % 8, 0);
    assert.equal(bytes.toString('utf8', 8, 8 + padded.length), padded);
    assert.deepEqual([...bytes.subarray(8 + padded.length)],
                     [0xfe, 0xff, 0xff, 0xff, 0x02, 0x01, 0x00, 0x00, 0x07]);
  });

  test('reader takes unaligned offsets, skips __metadata__ and keeps header order', () => {
    const header = JSON.stringify({
      __metadata__: {format: 'pt'},
      z: {dtype: 'U8', shape: [1], data_offsets: [0, 1]},
      y: {dtype: 'F32', shape: [1, 1], data_offsets: [1, 5]},
    });
    const data = Buffer.alloc(5);
    data[0] = 9;
    data.writeFloatLE(-0.75, 1);
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(header.length));
    const file = path.join(dir, 'unaligned.safetensors');
    fs.writeFileSync(file, Buffer.concat([length, Buffer.from(header), data]));
    const tensors = readSafetensors(file);
    assert.deepEqual([...tensors.keys()], ['z', 'y']);
    assert.deepEqual([...tensors.get('y').data], [-0.75]);
    assert.deepEqual(tensors.get('y').shape, [1, 1]);
    assert.deepEqual([...tensors.get('z').data], [9]);
  });

  test('reader names the tensor whose data size does not match its shape', () => {
    const header = JSON.stringify({w: {dtype: 'F32', shape: [3], data_offsets: [0, 8]}});
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(header.length));
    const file = path.join(dir, 'short.safetensors');
    fs.writeFileSync(file, Buffer.concat([length, Buffer.from(header), Buffer.alloc(8)]));
    assert.throws(() => readSafetensors(file), /short\.safetensors: tensor 'w' spans 8 bytes but F32 \[3\] needs 12/);
  });
});

describe('run.js', () => {
  test('float Add and Mul give the sums and products, outputs in model order', () => {
    const x = [1, -2, 3.5, 0, -0.25, 1000];
    const y = [0.5, 2, -3.5, 7, 4, -0.001];
    const inputs = writeInputs('float', {x: f32(x, [2, 3]), y: f32(y, [2, 3])});
    const {status, stderr, outputs} = run('float_add_mul', inputs);
    assert.equal(status, 0, stderr);
    assert.deepEqual([...outputs.keys()], ['z', 'w']);
    const fx = x.map(Math.fround);
    const fy = y.map(Math.fround);
    assert.deepEqual(outputs.get('z').shape, [2, 3]);
    assert.equal(outputs.get('z').dtype, 'F32');
    assert.deepEqual([...outputs.get('z').data], fx.map((v, i) => Math.fround(v + fy[i])));
    assert.deepEqual([...outputs.get('w').data], fx.map((v, i) => Math.fround(v * fy[i])));
  });

  test('int64 outputs keep values beyond 2^53 and bool outputs are BOOL', () => {
    const a = [2n ** 40n + 3n, -5n, 0n, 2n ** 53n + 1n];
    const b = [1n, -5n, -1n, 2n];
    const inputs = writeInputs('int', {
      a: {dtype: 'I64', shape: [4], data: BigInt64Array.from(a)},
      b: {dtype: 'I64', shape: [4], data: BigInt64Array.from(b)},
    });
    const {status, stderr, outputs} = run('int64_and_bool', inputs);
    assert.equal(status, 0, stderr);
    assert.equal(outputs.get('sum').dtype, 'I64');
    assert.deepEqual([...outputs.get('sum').data], [2n ** 40n + 4n, -10n, -1n, 2n ** 53n + 3n]);
    assert.equal(outputs.get('gt').dtype, 'BOOL');
    assert.deepEqual([...outputs.get('gt').data], [1, 0, 1, 1]);
  });

  test('float16 outputs are F16 bits and F16 inputs are read as half floats', () => {
    // Half-float bit patterns from the IEEE 754 binary16 tables.
    const inputs = writeInputs('half', {
      x: f32([1, -2.5, 0.1, 65504, 1e-8]),
      h_in: {dtype: 'F16', shape: [5], data: Uint16Array.from([0x3c00, 0xc000, 0x0001, 0x7c00, 0x3555])},
    });
    const {status, stderr, outputs} = run('float16_cast', inputs);
    assert.equal(status, 0, stderr);
    assert.equal(outputs.get('h').dtype, 'F16');
    assert.deepEqual([...outputs.get('h').data], [0x3c00, 0xc100, 0x2e66, 0x7bff, 0x0000]);
    assert.deepEqual([...outputs.get('back').data], [1, -2, 2 ** -24, Infinity, 0.333251953125]);
  });

  test('every other dtype round-trips through ORT unchanged', () => {
    const tensors = {
      i8_in: {dtype: 'I8', shape: [3], data: Int8Array.from([-128, 0, 127])},
      u8_in: {dtype: 'U8', shape: [3], data: Uint8Array.from([0, 255, 7])},
      i32_in: {dtype: 'I32', shape: [3], data: Int32Array.from([-(2 ** 31), 5, 2 ** 31 - 1])},
      u32_in: {dtype: 'U32', shape: [3], data: Uint32Array.from([0, 2 ** 32 - 1, 3])},
      u64_in: {dtype: 'U64', shape: [3], data: BigUint64Array.from([0n, 2n ** 64n - 1n, 5n])},
      f64_in: {dtype: 'F64', shape: [3], data: Float64Array.from([Math.PI, -0, 1e300])},
    };
    const {status, stderr, outputs} = run('identity_dtypes', writeInputs('dtypes', tensors));
    assert.equal(status, 0, stderr);
    for (const [name, t] of Object.entries(tensors)) {
      const out = outputs.get(name.replace('_in', '_out'));
      assert.equal(out.dtype, t.dtype, name);
      assert.deepEqual([...out.data], [...t.data], name);
    }
  });

  test('external data beside the model is found', () => {
    const inputs = writeInputs('external', {x: f32([1, 2, -3, 0.25])});
    const {status, stderr, outputs} = run('external_weights', inputs);
    assert.equal(status, 0, stderr);
    assert.deepEqual([...outputs.get('y').data], [1.5, 1, -3, 300.25]);
  });

  test('--external-data-dir finds the data of a model copied elsewhere', () => {
    const copyDir = fs.mkdtempSync(path.join(dir, 'copy-'));
    const copy = path.join(copyDir, 'external_weights.onnx');
    fs.copyFileSync(model('external_weights'), copy);
    const inputs = writeInputs('external-copy', {x: f32([1, 2, -3, 0.25])});
    const outFile = path.join(copyDir, 'out.safetensors');
    const args = ['--model', copy, '--inputs', inputs, '--outputs', outFile];
    const alone = node('run.js', args);
    assert.equal(alone.status, 1, 'the data file is not beside the copy');
    const found = node('run.js', [...args, '--external-data-dir', dir]);
    assert.equal(found.status, 0, found.stderr);
    assert.deepEqual([...readSafetensors(outFile).get('y').data], [1.5, 1, -3, 300.25]);
    const missing = node('run.js', [...args, '--external-data-dir', path.join(dir, 'absent')]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /external data directory .*absent does not exist/);
  });

  test('--optimization takes every ORT level and rejects others', () => {
    const x = [1, -2, 3.5, 0, -0.25, 1000];
    const y = [0.5, 2, -3.5, 7, 4, -0.001];
    const inputs = writeInputs('levels', {x: f32(x, [2, 3]), y: f32(y, [2, 3])});
    const sum = x.map((v, i) => Math.fround(Math.fround(v) + Math.fround(y[i])));
    for (const level of ['disabled', 'basic', 'extended', 'all']) {
      const {status, stderr, outputs} = run('float_add_mul', inputs, ['--optimization', level]);
      assert.equal(status, 0, `${level}: ${stderr}`);
      assert.deepEqual([...outputs.get('z').data], sum, level);
    }
    const bad = run('float_add_mul', inputs, ['--optimization', 'max']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--optimization must be one of disabled, basic, extended, all, got 'max'/);
  });

  test('--outputs-only writes just the named outputs in the given order', () => {
    const inputs = writeInputs('only', {x: f32([1, 2, 3, 4, 5, 6], [2, 3]), y: f32([2, 2, 2, -1, -1, -1], [2, 3])});
    const {status, stderr, outputs} = run('float_add_mul', inputs, ['--outputs-only', 'w', '--threads', '2']);
    assert.equal(status, 0, stderr);
    assert.deepEqual([...outputs.keys()], ['w']);
    assert.deepEqual([...outputs.get('w').data], [2, 4, 6, -4, -5, -6]);
  });

  test('an ORT failure at run prints ORT\'s message and exits 1 without an output file', () => {
    const inputs = writeInputs('mismatch', {a: f32([1, 2, 3]), b: f32([1, 2, 3, 4])});
    const {status, stderr, outputs} = run('dynamic_add', inputs);
    assert.equal(status, 1);
    assert.match(stderr, /^ort-reference: Non-zero status code returned while running Add node\. Name:'broadcast_add'/);
    assert.match(stderr, /3 by 4/);
    assert.equal(stderr.trimEnd().split('\n').length, 1, `one line only, got: ${stderr}`);
    assert.equal(outputs, null);
  });

  test('a missing feed and an unknown --outputs-only name are ORT errors (exit 1)', () => {
    const inputs = writeInputs('missing-feed', {a: f32([1, 2, 3])});
    const missing = run('dynamic_add', inputs);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^ort-reference: input 'b' is missing in 'feeds'/);
    const full = writeInputs('full-feed', {a: f32([1]), b: f32([2])});
    const unknown = run('dynamic_add', full, ['--outputs-only', 'nope']);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /^ort-reference: .*invalid output name: nope/);
  });

  test('a missing model or inputs file is reported by path with exit 2', () => {
    const inputs = writeInputs('ok', {x: f32([1])});
    const noModel = node('run.js', ['--model', path.join(dir, 'absent.onnx'), '--inputs', inputs, '--outputs', path.join(dir, 'o')]);
    assert.equal(noModel.status, 2);
    assert.equal(noModel.stderr, `ort-reference: model ${path.join(dir, 'absent.onnx')} does not exist\n`);
    const noInputs = node('run.js', ['--model', model('float_add_mul'), '--inputs', path.join(dir, 'absent.st'), '--outputs', path.join(dir, 'o')]);
    assert.equal(noInputs.status, 2);
    assert.equal(noInputs.stderr, `ort-reference: inputs file ${path.join(dir, 'absent.st')} does not exist\n`);
  });

  test('a file that is not a model is ORT\'s error (exit 1)', () => {
    const bogus = path.join(dir, 'bogus.onnx');
    fs.writeFileSync(bogus, 'not a protobuf at all');
    const r = node('run.js', ['--describe', '--model', bogus]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^ort-reference: .*bogus\.onnx/);
  });

  test('bad usage exits 2 and says what is wrong', () => {
    const unknown = node('run.js', ['--model', model('float_add_mul'), '--frobnicate']);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /ort-reference: Unknown option '--frobnicate'/);
    const zeroThreads = node('run.js', ['--model', model('float_add_mul'), '--inputs', 'a', '--outputs', 'b', '--threads', '0']);
    assert.equal(zeroThreads.status, 2);
    assert.match(zeroThreads.stderr, /--threads must be an integer >= 1, got '0'/);
    const noOutputs = node('run.js', ['--model', model('float_add_mul'), '--inputs', 'a']);
    assert.equal(noOutputs.status, 2);
    assert.match(noOutputs.stderr, /--inputs and --outputs are required/);
  });

  test('--describe prints names, types and symbolic shapes', () => {
    const r = node('run.js', ['--describe', '--model', model('dynamic_add')]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      inputs: [{name: 'a', type: 'float32', shape: ['n']}, {name: 'b', type: 'float32', shape: ['m']}],
      outputs: [{name: 'c', type: 'float32', shape: ['k']}],
    });
    const h = JSON.parse(node('run.js', ['--describe', '--model', model('float16_cast')]).stdout);
    assert.deepEqual(h.outputs.map((o) => [o.name, o.type, o.shape]), [['h', 'float16', [5]], ['back', 'float32', [5]]]);
  });
});

describe('bench.js', () => {
  test('reports ordered timings for the requested number of runs', () => {
    const inputs = writeInputs('bench', {x: f32([1, 2, 3, 4, 5, 6], [2, 3]), y: f32([1, 1, 1, 1, 1, 1], [2, 3])});
    const r = spawnSync(process.execPath, ['--expose-gc', path.join(__dirname, 'bench.js'), '--model', model('float_add_mul'),
                                           '--inputs', inputs, '--runs', '7', '--warmup', '0', '--threads', '2'],
                        {encoding: 'utf8'});
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.runs, 7);
    assert.equal(report.threads, 2);
    assert.ok(report.min_ms > 0);
    assert.ok(report.min_ms <= report.median_ms && report.median_ms <= report.p90_ms, r.stdout);
  });

  test('an ORT failure while timing exits 1 with ORT\'s message', () => {
    const inputs = writeInputs('bench-bad', {a: f32([1, 2]), b: f32([1, 2, 3])});
    const r = node('bench.js', ['--model', model('dynamic_add'), '--inputs', inputs, '--runs', '2']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^ort-reference: Non-zero status code returned while running Add node/);
  });
});
