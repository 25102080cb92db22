// opSupportLimits() against the spec: the rank range of every operand and output of every
// operator equals the allowed ranks of index.bs's tensor-limits tables (test/data/
// tensor-limits.txt, extracted by tools/extract-tensor-limits.mjs), except for the short list
// below where wnn deliberately accepts more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const wnn = require('../index.js');

const MAX_RANK = 8;  // what wnn reports for the spec's "any rank" (N)

// [operator, member, wnn's range, why]. Each one must still differ from the spec.
const DIFFERENCES = [
  ['gather', 'output', { min: 0, max: 8 },
    "the spec's own shape rule gives a scalar for a rank-1 input and scalar indices"],
];
// Operands the spec ties to another's rank ("same as input") that wnn does not tie: the range
// reported is the same, but wnn takes any rank up to the input's (blocks are right-aligned), as
// the ONNX importer relies on for a scalar per-tensor scale and zero point.
const UNTIED = ['quantizeLinear', 'dequantizeLinear'].flatMap((op) => [`${op}.scale`, `${op}.zeroPoint`]);

function loadSpec() {
  const text = readFileSync(new URL('./data/tensor-limits.txt', import.meta.url), 'utf8');
  const spec = new Map();  // op -> Map(member -> "MIN..MAX" | "same NAME")
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const [op, member, ...ranks] = line.split(' ');
    if (!spec.has(op)) spec.set(op, new Map());
    spec.get(op).set(member, ranks.join(' '));
  }
  return spec;
}

function resolve(ops, member) {
  const r = ops.get(member);
  assert.ok(r !== undefined, `no row for ${member}`);
  const same = r.match(/^same (\w+)$/);
  if (same) return resolve(ops, same[1]);
  const [min, max] = r.split('..');
  return { min: Number(min), max: max === 'N' ? MAX_RANK : Number(max) };
}

test('opSupportLimits reports the rank ranges of the spec\'s tensor-limits tables', async () => {
  const spec = loadSpec();
  const ctx = await wnn.ml.createContext();
  const limits = ctx.opSupportLimits();
  const differences = new Map(DIFFERENCES.map(([op, m, r, why]) => [`${op}.${m}`, { r, why }]));
  const seen = new Set();
  const untied = new Set();
  for (const s of wnn.schemas) {
    const ops = spec.get(s.name);
    assert.ok(ops, `${s.name} has no tensor-limits table in the spec`);
    for (const [member, got] of Object.entries(limits[s.name])) {
      const key = `${s.name}.${member}`;
      const expected = resolve(ops, member);
      const d = differences.get(key);
      if (d) {
        seen.add(key);
        assert.notDeepEqual(d.r, expected, `${key} no longer differs from the spec: drop it from DIFFERENCES`);
        assert.deepEqual(got.rankRange, d.r, key);
        console.log(`${key}: wnn ${d.r.min}..${d.r.max}, spec ${expected.min}..${expected.max}: ${d.why}`);
      } else {
        assert.deepEqual(got.rankRange, expected, key);
      }
    }
    // An argument or option tied to another's rank in the spec is tied in the schema.
    for (const p of [...s.args, ...s.options].filter((q) => q.kind.startsWith('operand'))) {
      const key = `${s.name}.${p.name}`;
      const same = ops.get(p.name)?.match(/^same (\w+)$/)?.[1];
      if (UNTIED.includes(key)) {
        untied.add(key);
        assert.ok(same && !p.sameRankAs, `${key} is no longer an untied difference`);
        console.log(`${key}: wnn any rank up to the input's, spec the rank of ${same}`);
      } else {
        assert.equal(p.sameRankAs, same, `${key}: rank tied to`);
      }
    }
    // Every operand and output the spec lists is reported.
    for (const member of ops.keys()) assert.ok(member in limits[s.name], `${s.name}.${member} is missing`);
  }
  assert.deepEqual([...seen].sort(), [...differences.keys()].sort());
  assert.deepEqual([...untied].sort(), [...UNTIED].sort());
  assert.deepEqual([...spec.keys()].filter((op) => !(op in limits)), [], 'spec operators wnn lacks');
  ctx.destroy();
});

test('the builder rejects exactly the ranks outside an operand\'s rankRange', async () => {
  const ctx = await wnn.ml.createContext();
  const limits = ctx.opSupportLimits();
  const b = new wnn.MLGraphBuilder(ctx);
  const x = (rank, n = 3) => b.input(`x${rank}_${n}_${Math.random()}`, { dataType: 'float32', shape: Array(rank).fill(n) });
  // matmul's a: 2..8. Rank 1 is refused; rank 2 and rank 8 build.
  assert.deepEqual(limits.matmul.a.rankRange, { min: 2, max: 8 });
  assert.throws(() => b.matmul(x(1), x(2)), TypeError);
  assert.deepEqual(b.matmul(x(2), x(2)).shape, [3, 3]);
  assert.deepEqual(b.matmul(x(8, 1), x(2, 1)).shape, [1, 1, 1, 1, 1, 1, 1, 1]);
  // gemm's c: 0..2. A rank-3 c is refused; a scalar broadcasts.
  assert.deepEqual(limits.gemm.c.rankRange, { min: 0, max: 2 });
  assert.throws(() => b.gemm(x(2), x(2), { c: x(3) }), TypeError);
  assert.deepEqual(b.gemm(x(2), x(2), { c: x(0) }).shape, [3, 3]);
  // softmax's input: 1..8.
  assert.deepEqual(limits.softmax.input.rankRange, { min: 1, max: 8 });
  assert.throws(() => b.softmax(x(0), 0), TypeError);
  assert.deepEqual(b.softmax(x(1), 0).shape, [3]);
  ctx.destroy();
});
