// The loader's readers on every construct of the .webnn text and JSON forms, and their errors
// (text errors with file:line:col, compared with `wnn check`: WNN_CLI, default build/wnn).
// No addon needed: only parsing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseGraph, isJsonGraph, LoaderError } from '../loader/index.js';

const parse = (text, fileName = 'g.webnn') => parseGraph(text, { fileName });
const rejects = (text, pattern) => assert.throws(() => parse(text), (e) => {
  assert.ok(e instanceof LoaderError, `not a LoaderError: ${e}`);
  assert.match(e.message, pattern);
  return true;
});

test('header v1, v2, "v 1", @quantized, comments and a byte order mark', () => {
  const g = parse('\uFEFF# leading comment\n// another\nwebnn_graph "m" v 1 @quantized { # c\n' +
    'inputs { x: f32[2]; } // c\n nodes { y = relu(x); } outputs { y; } }\n');
  assert.equal(g.name, 'm');
  assert.equal(g.version, 1);
  assert.equal(g.quantized, true);
  assert.equal(parse('webnn_graph "n" v2 { inputs { x: f32[2]; } nodes { y = relu(x); } outputs { y; } }').version, 2);
  rejects('webnn_graph "n" v3 { }', /^g\.webnn:1:17: unsupported version 'v3'/);
  rejects('webnn_graph "n" v1 @fast { }', /1:20: unknown header annotation '@fast'/);
  rejects('graph "n" v1 { }', /^g\.webnn:1:1: expected the header/);
});

test('blocks in any order and repeated; outputs before the nodes they name', () => {
  const g = parse(`webnn_graph "g" v1 {
    outputs { b, a; }
    nodes { a = neg(x); }
    inputs { x: f32[3]; }
    consts { w: f32[3] @scalar(-2.5); }
    nodes { b = add(a, w); }
    inputs { z: i32[]; }
  }`);
  assert.deepEqual(g.inputs.map((i) => i.name), ['x', 'z']);
  assert.deepEqual(g.nodes.map((n) => n.outputs[0]), ['a', 'b']);
  assert.deepEqual(g.outputs.map((o) => o.name), ['b', 'a']);
  assert.deepEqual(g.inputs[1].shape, []);
});

test('consts: @weights, no annotation, @scalar (int, float, inf, -inf, nan), @bytes', () => {
  const g = parse(`webnn_graph "c" v1 { consts {
    a: f32[2, 3] @weights("layer.0::w");
    b: f16[4];
    c: i64[2] @scalar(-9223372036854775808);
    d: f32[1] @scalar(1.5e-3);
    e: f32[] @scalar(-inf);
    f: f32[] @scalar(nan);
    g: u4[3] @bytes([0x0, 255, 7]);
  } nodes { y = relu(d); } outputs { y; } }`.replace('0x0', '0'));
  const [a, b, c, d, e, f, h] = g.consts;
  assert.deepEqual([a.init, a.key, a.dataType, a.shape], ['weights', 'layer.0::w', 'float32', [2, 3]]);
  assert.deepEqual([b.init, b.key, b.dataType], ['weights', 'b', 'float16']);
  assert.deepEqual(c.scalar, { k: 'int', v: -(2n ** 63n) });
  assert.deepEqual(d.scalar, { k: 'float', v: 0.0015 });
  assert.equal(e.scalar.v, -Infinity);
  assert.ok(Number.isNaN(f.scalar.v));
  assert.deepEqual([h.init, [...h.bytes], h.dataType], ['bytes', [0, 255, 7], 'uint4']);
  rejects('webnn_graph "c" v1 { consts { a: f32[1] @scalar(1) @scalar(2); } }', /^g\.webnn:1:52: constant 'a' has more than one initializer/);
  rejects('webnn_graph "c" v1 { consts { a: u8[1] @bytes([256]); } }', /1:48: @bytes value 256 is not in 0\.\.255/);
  rejects('webnn_graph "c" v1 { consts { a: u8[1] @bytes([-1]); } }', /@bytes value -1 is not in 0\.\.255/);
  rejects('webnn_graph "c" v1 { consts { a: f32[1] @zeros(); } }', /1:41: unknown annotation '@zeros'/);
  rejects('webnn_graph "c" v1 { consts { a: f32[1] @scalar("x"); } }', /@scalar needs a number, got string "x"/);
  rejects('webnn_graph "c" v1 { consts { a: i64[1] @scalar(9223372036854775808); } }', /integer 9223372036854775808 does not fit in 64 bits/);
  rejects('webnn_graph "c" v1 { consts { a: f32[1] @scalar(1e999); } }', /number 1e999 is out of the range of a double/);
  rejects('webnn_graph "c" v1 { consts { a: f32[dyn("b", 2)]; } }', /1:38: dyn\(\.\.\.\) dimensions are allowed on inputs only/);
});

test('input types: every dtype spelling and dyn dims', () => {
  const g = parse(`webnn_graph "t" v2 { inputs {
    a: float16[1]; b: Float32[1]; c: i4[2]; d: uint64[1]; e: half[1];
    x: f32[dyn("batch", 16), 3, dyn("seq", 128)];
  } nodes { y = relu(x); } outputs { y; } }`);
  assert.deepEqual(g.inputs.map((i) => i.dataType), ['float16', 'float32', 'int4', 'uint64', 'float16', 'float32']);
  const x = g.inputs[5];
  assert.deepEqual(x.shape, [16, 3, 128]);
  assert.deepEqual(x.dims, [{ name: 'batch', max: 16 }, null, { name: 'seq', max: 128 }]);
  assert.deepEqual(g.inputs[0].dims, []);
  rejects('webnn_graph "t" v2 { inputs { x: f33[1]; } }', /1:34: unknown data type 'f33'/);
  rejects('webnn_graph "t" v2 { inputs { x: f32[dyn("b", 0)]; } }', /dyn\("b"\) needs a maximum of at least 1/);
  rejects('webnn_graph "t" v2 { inputs { x: f32[-1]; } }', /1:38: dimension -1 is negative/);
  rejects('webnn_graph "t" v2 { inputs { x: f32[dyn(b, 2)]; } }', /expected the dimension's name as a string, got name 'b'/);
});

test('statements: multi-output, bracketed single output, lists, objects, null, inf/nan, bare enums', () => {
  const g = parse(`webnn_graph "s" v1 { inputs { x: f32[1, 4, 5, 5]; w: f32[2, 4, 1, 1]; b: f32[2]; }
  nodes {
    [p, q] = split(x, splits=[1, 3], axis=1);
    [r] = relu(p);
    c = conv2d(x, w, padding=[0, 0, 0, 0], bias=b, inputLayout=nchw, dilations=null, label="conv \\"1\\"\\n");
    k = clamp(c, minValue=-inf, maxValue=inf);
    m = concat([r, r], axis=0);
    n = resample2d(x, sizes=[10, 10], mode="linear", extra={key: [1, {"s": nan}], other: true});
  } outputs { q; k; m; n; } }`);
  const [split, relu, conv, clamp, concat, resample] = g.nodes;
  assert.deepEqual(split.outputs, ['p', 'q']);
  assert.deepEqual(split.args.map((a) => a.name), ['', 'splits', 'axis']);
  assert.deepEqual(split.args[1].value, { k: 'list', v: [{ k: 'int', v: 1n }, { k: 'int', v: 3n }] });
  assert.deepEqual(relu.outputs, ['r']);
  const opt = Object.fromEntries(conv.args.map((a) => [a.name, a.value]));
  assert.deepEqual(opt.bias, { k: 'name', v: 'b' });
  assert.deepEqual(opt.inputLayout, { k: 'name', v: 'nchw' });
  assert.deepEqual(opt.dilations, { k: 'null' });
  assert.deepEqual(opt.label, { k: 'string', v: 'conv "1"\n' });
  assert.deepEqual(clamp.args.slice(1).map((a) => a.value.v), [-Infinity, Infinity]);
  assert.deepEqual(concat.args[0].value, { k: 'list', v: [{ k: 'name', v: 'r' }, { k: 'name', v: 'r' }] });
  const extra = resample.args.find((a) => a.name === 'extra').value;
  assert.equal(extra.k, 'object');
  assert.deepEqual(extra.v.map(([k]) => k), ['key', 'other']);
  assert.ok(Number.isNaN(extra.v[0][1].v[1].v[0][1].v));
  assert.equal(conv.where, 'g.webnn:5:5');
  assert.equal(conv.args[3].where, 'g.webnn:5:44');
});

test('spellings: cast(x, type=f16), older to="Float32" and the IDL\'s dataType= read as dataType', () => {
  const g = parse('webnn_graph "o" v1 { inputs { x: i32[2]; } nodes { y = cast(x, to="Float32"); z = cast(x, type=f16); w = cast(x, dataType="int8"); } outputs { y; z; w; } }');
  assert.deepEqual(g.nodes[0].args[1], { name: 'dataType', value: { k: 'string', v: 'Float32' }, where: 'g.webnn:1:64' });
  assert.deepEqual(g.nodes[1].args[1], { name: 'dataType', value: { k: 'name', v: 'f16' }, where: 'g.webnn:1:91' });
  assert.equal(g.nodes[2].args[1].name, 'dataType');
  // Only cast's parameters are respelt.
  const r = parse('webnn_graph "o" v1 { inputs { x: f32[2]; } nodes { y = relu(x, type=1); } outputs { y; } }');
  assert.equal(r.nodes[0].args[1].name, 'type');
});

test('names: ::, //, $, -, and reserved words', () => {
  const g = parse(`webnn_graph "n" v1 { inputs { onnx::MatMul_12: f32[1]; /m/a-b.c$d: f32[1]; } nodes {
    /m/If/then/y = add(onnx::MatMul_12, /m/a-b.c$d);//comment right after a name
    inf_x = relu(/m/If/then/y);
  } outputs { inf_x; } }`);
  assert.deepEqual(g.inputs.map((i) => i.name), ['onnx::MatMul_12', '/m/a-b.c$d']);
  assert.deepEqual(g.nodes.map((n) => n.outputs[0]), ['/m/If/then/y', 'inf_x']);
  // `x:0`: a single ':' ends the name.
  rejects('webnn_graph "n" v1 { inputs { x:0: f32[1]; } }', /1:33: expected a data type .*, got number 0/);
  // `/*` is no comment and '*' no name byte.
  rejects('webnn_graph "n" v1 { /* c */ }', /1:23: unexpected character '\*'/);
  rejects('webnn_graph "n" v1 { inputs { true: f32[1]; } nodes { y = relu(true); } outputs { y; } }',
    /argument 'input' must be an operand name, got true/);
});

test('positional arguments must be operands; parameters WebNN takes positionally are named', () => {
  const g = parse('webnn_graph "p" v1 { inputs { x: f32[2, 4]; } nodes { y = reshape(x, newShape=[4, 2]); } outputs { y; } }');
  assert.deepEqual(g.nodes[0].args[1].name, 'newShape');
  rejects('webnn_graph "p" v1 { inputs { x: f32[2, 4]; } nodes { y = reshape(x, [4, 2]); } outputs { y; } }',
    /1:70: reshape: positional argument 2 is not an operand; every other parameter is named: write newShape=\[4, 2\]/);
  rejects('webnn_graph "p" v1 { inputs { x: f32[2]; } nodes { y = relu(1); } outputs { y; } }',
    /relu: argument 'input' must be an operand name, got 1/);
  rejects('webnn_graph "p" v1 { inputs { x: f32[2]; } nodes { y = relu(x, 1); } outputs { y; } }',
    /1:64: relu: positional argument 2 \(1\) is not an operand or a list of operands; options are written name=value/);
});

test('malformed text: clear errors with line and column', () => {
  rejects('webnn_graph "u v1 {', /^g\.webnn:1:13: unterminated string/);
  rejects('webnn_graph "a\\q" v1 {', /1:15: unknown escape '\\q' in string/);
  rejects('webnn_graph "n" v1 {\n  inputs { x: f32[1]; }\n', /3:1: unterminated graph: the '\{' at 1:20 is never closed/);
  rejects('webnn_graph "n" v1 {\n  inputs { x: f32[1];\n', /3:1: unterminated 'inputs' block: the '\{' at 2:10 is never closed/);
  rejects('webnn_graph "n" v1 { } extra', /1:24: unexpected name 'extra' after the graph's closing '\}'/);
  rejects('webnn_graph "n" v1 { weights { } }', /1:22: unknown block 'weights'/);
  rejects('webnn_graph "n" v1 { nodes { y = x; } }', /1:34: expected an operator call 'op\(\.\.\.\)' after '=', got name 'x' \(aliases are not allowed\)/);
  rejects('webnn_graph "n" v1 { nodes { y = relu(x) } }', /1:42: expected ';' after the statement, got '\}'/);
  rejects('webnn_graph "n" v1 {\n nodes { y = f(x, a=1.5e); } }', /2:21: malformed number: exponent has no digits/);
  rejects('webnn_graph "n" v1 { nodes { y = f(x, a=12ab); } }', /malformed number '12a'/);
  rejects('webnn_graph "n" v1 { ~ }', /1:22: unexpected character '~'/);
  rejects('webnn_graph "n" v1 { \u00e9 }', /1:22: unexpected byte 0xc3/);
  rejects('webnn_graph "n" v1 { @ }', /'@' must be followed by an annotation name/);
  rejects(`webnn_graph "n" v1 { nodes { y = f(x, a=${'['.repeat(70)}); } }`, /values nest deeper than 64 levels/);
  rejects('webnn_graph "n" v1 { inputs { x: f32[1]; } }', /^g\.webnn:1:1: the graph has no outputs/);
  assert.throws(() => parseGraph(new Uint8Array([0x77, 0xff])), /graph\.webnn:1:1: expected the header|unexpected byte/);
});

test('JSON: every construct, flat and nested operand lists, renamed outputs', () => {
  const doc = {
    format: 'webnn-graph-json', version: 2, name: 'j', quantized: true,
    inputs: { 'input:0': { dataType: 'float32', shape: [{ name: 'batch', maxSize: 8 }, 3] }, z: { dataType: 'i64', shape: [] } },
    consts: {
      w: { dataType: 'float32', shape: [3], init: { kind: 'weights', ref: 'W.0' } },
      n: { dataType: 'float32', shape: [3] },
      s: { dataType: 'float16', shape: [2], init: { kind: 'scalar', value: '-inf' } },
      i: { dataType: 'int4', shape: [3], init: { kind: 'inlineBytes', bytes: [0x8f, 3] } },
    },
    nodes: [
      { id: 'a', op: 'concat', inputs: ['input:0', 'input:0', 'input:0'], options: { axis: 1 }, outputs: null },
      { id: 'b', op: 'concat', inputs: [['a', 'a']], options: { axis: 0 } },
      { id: 'p', op: 'split', inputs: ['b'], options: { splits: 2, axis: 1 }, outputs: ['p0', 'p1'] },
      { id: 'c', op: 'cast', inputs: ['p0'], options: { to: 'Float16' } },
    ],
    outputs: { result: 'c', p1: 'p1' },
  };
  const g = parse(JSON.stringify(doc, null, 2), 'g.json');
  assert.equal(g.quantized, true);
  assert.deepEqual(g.inputs[0], { name: 'input:0', dataType: 'float32', shape: [8, 3], dims: [{ name: 'batch', max: 8 }, null], where: "g.json: input 'input:0'" });
  assert.deepEqual(g.inputs[1].dataType, 'int64');
  assert.deepEqual(g.consts.map((c) => c.init), ['weights', 'weights', 'scalar', 'bytes']);
  assert.equal(g.consts[0].key, 'W.0');
  assert.equal(g.consts[1].key, 'n');
  assert.equal(g.consts[2].scalar.v, -Infinity);
  assert.deepEqual([...g.consts[3].bytes], [0x8f, 3]);
  assert.deepEqual(g.nodes[0].args[0].value.v.map((r) => r.v), ['input:0', 'input:0', 'input:0']);
  assert.deepEqual(g.nodes[1].args[0].value.v.map((r) => r.v), ['a', 'a']);
  assert.deepEqual(g.nodes[2].outputs, ['p0', 'p1']);
  assert.equal(g.nodes[3].args[1].name, 'dataType');
  assert.deepEqual(g.outputs.map((o) => [o.name, o.operand]), [['result', 'c'], ['p1', 'p1']]);
  assert.equal(isJsonGraph(new TextEncoder().encode('# c\n // d\n {')), true);
});

test('JSON: malformed documents give file:line:col or the member at fault', () => {
  rejects('{\n  "format": "webnn-graph-json",\n  "inputs": {,}\n}', /^g\.webnn:3:14: invalid JSON: expected a string key/);
  rejects('{"format": "webnn-graph-json", "format": 1}', /1:32: invalid JSON: key "format" is repeated/);
  rejects('{"format": "webnn-graph"}', /"format" must be "webnn-graph-json"/);
  rejects('{"format": "webnn-graph-json", "version": 3}', /unsupported version/);
  rejects('{"format": "webnn-graph-json", "inputs": {"x": {"dataType": "f32"}}, "outputs": {"x": "x"}}', /input 'x': missing "shape"/);
  rejects('{"format": "webnn-graph-json", "consts": {"c": {"dataType": "f32", "shape": [1], "init": {"kind": "zeros"}}}}', /const 'c': unknown init kind 'zeros'/);
  rejects('{"format": "webnn-graph-json", "nodes": [{"id": "y", "op": "relu", "inputs": [1]}]}', /nodes\[0\]: node 'y': inputs hold operand names/);
  rejects('{"format": "webnn-graph-json", "inputs": {"x": {"dataType": "f32", "shape": [1]}}}', /the graph has no outputs/);
  rejects('{"format": "webnn-graph-json", "x": 18446744073709551616}', /integer 18446744073709551616 does not fit in 64 bits/);
  rejects(`{"format": "webnn-graph-json", "x": ${'['.repeat(70)}${']'.repeat(70)}}`, /nesting deeper than 64 levels/);
});

test('malformed text: the same location and message as `wnn check`', async () => {
  const { execFileSync } = await import('node:child_process');
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const wnn = process.env.WNN_CLI || process.env.WNN_BINARY || new URL('../../build/wnn', import.meta.url).pathname;
  assert.ok(fs.existsSync(wnn), `no wnn binary at ${wnn}: set WNN_CLI`);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wnn-loader-parse-')), 'g.webnn');
  const cases = [
    'webnn_graph "u v1 {', 'webnn_graph "a\\q" v1 {', 'webnn_graph "n" v3 { }', 'webnn_graph "n" v1 @fast { }',
    'graph "n" v1 { }', 'webnn_graph "n" v1 {\n  inputs { x: f32[1]; }\n', 'webnn_graph "n" v1 {\n  inputs { x: f32[1];\n',
    'webnn_graph "n" v1 { } extra', 'webnn_graph "n" v1 { weights { } }', 'webnn_graph "n" v1 { nodes { y = x; } }',
    'webnn_graph "n" v1 { nodes { y = relu(x) } }', 'webnn_graph "n" v1 {\n nodes { y = f(x, a=1.5e); } }',
    'webnn_graph "n" v1 { nodes { y = f(x, a=12ab); } }', 'webnn_graph "n" v1 { ~ }', 'webnn_graph "n" v1 { \u00e9 }',
    'webnn_graph "n" v1 { @ }', `webnn_graph "n" v1 { nodes { y = f(x, a=${'['.repeat(70)}); } }`,
    'webnn_graph "n" v1 { inputs { x: f32[1]; } }', 'webnn_graph "n" v1 { /* c */ }',
    'webnn_graph "n" v1 { inputs { x:0: f32[1]; } }', 'webnn_graph "t" v2 { inputs { x: f33[1]; } }',
    'webnn_graph "t" v2 { inputs { x: f32[dyn("b", 0)]; } }', 'webnn_graph "t" v2 { inputs { x: f32[-1]; } }',
    'webnn_graph "t" v2 { inputs { x: f32[dyn(b, 2)]; } }', 'webnn_graph "c" v1 { consts { a: f32[dyn("b", 2)]; } }',
    'webnn_graph "c" v1 { consts { a: f32[1] @scalar(1) @scalar(2); } }', 'webnn_graph "c" v1 { consts { a: u8[1] @bytes([256]); } }',
    'webnn_graph "c" v1 { consts { a: f32[1] @zeros(); } }', 'webnn_graph "c" v1 { consts { a: f32[1] @scalar("x"); } }',
    'webnn_graph "c" v1 { consts { a: i64[1] @scalar(9223372036854775808); } }', 'webnn_graph "c" v1 { consts { a: f32[1] @scalar(1e999); } }',
    'webnn_graph "p" v1 { inputs { x: f32[2, 4]; } nodes { y = reshape(x, [4, 2]); } outputs { y; } }',
    'webnn_graph "p" v1 { inputs { x: f32[2]; } nodes { y = relu(x, 1); } outputs { y; } }',
    'webnn_graph "n" v1 { inputs { true: f32[1]; } nodes { y = relu(true); } outputs { y; } }',
    'webnn_graph "n" v1 {\n  nodes {\n    [a, ] = split(x);\n  }\n}', 'webnn_graph "n" v1 { nodes { y = f(x, {a: 1}); } }',
    'webnn_graph "n" v1 { nodes { y = f(x, a={1: 2}); } }', 'webnn_graph "n" v1 { outputs { ; } }',
  ];
  for (const text of cases) {
    fs.writeFileSync(file, text);
    let expected = '';
    try {
      execFileSync(wnn, ['check', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      expected = String(e.stderr).trim().replace(/^wnn: error: /, '');
    }
    assert.ok(expected, `wnn check accepted ${JSON.stringify(text)}`);
    assert.throws(() => parseGraph(fs.readFileSync(file), { fileName: file }), (e) => {
      assert.equal(e.message, expected, JSON.stringify(text));
      return true;
    });
  }
});
