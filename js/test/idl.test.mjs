// The WebNN spec's IDL against the live JS API: every interface, operation, attribute,
// dictionary member and enum value (tools/idl-coverage.mjs says how each is checked). Prints the
// coverage table and fails below 100%.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { idlCoverage, formatTable, loadIdl } from '../tools/idl-coverage.mjs';

const require = createRequire(import.meta.url);
const wnn = require('../index.js');

test('the JS API covers the whole WebNN IDL', async () => {
  const rows = await idlCoverage(wnn);
  const table = formatTable(rows);
  process.stdout.write(`${table}\n`);
  const failures = rows.flatMap((r) => r.failures.map((f) => `${r.group} ${r.name}: ${f}`));
  assert.deepEqual(failures, []);
  const total = rows.reduce((a, r) => a + r.total, 0);
  // Guards against a parse that silently found nothing: the spec has well over 500 items.
  assert.ok(total > 500, `only ${total} IDL items found`);
});

test('docs/javascript.md shows the current coverage table', async () => {
  const doc = readFileSync(new URL('../../docs/javascript.md', import.meta.url), 'utf8');
  const m = doc.match(/<!-- idl-coverage -->\n([\s\S]*?)\n<!-- \/idl-coverage -->/);
  assert.ok(m, 'docs/javascript.md has no <!-- idl-coverage --> block');
  assert.equal(m[1], formatTable(await idlCoverage(wnn), true),
    'stale: node tools/idl-coverage.mjs --markdown prints the table');
});

test('the builder operators are exactly the IDL operations of MLGraphBuilder', () => {
  const idl = loadIdl();
  const ops = idl.interfaces.get('MLGraphBuilder').members
    .filter((m) => m.type === 'operation' && !['input', 'constant', 'build'].includes(m.name))
    .map((m) => m.name);
  assert.deepEqual(wnn.schemas.map((s) => s.name).sort(), [...new Set(ops)].sort());
});

test('the operators returning sequence<MLOperand> are those with several outputs in opSupportLimits', async () => {
  // webnn.js's SEQUENCE_RESULTS decides both the return type and the output keys of the
  // limits; the IDL is the reference for which operators return a sequence.
  const idl = loadIdl();
  const seq = idl.interfaces.get('MLGraphBuilder').members
    .filter((m) => m.type === 'operation' && m.idlType.generic === 'sequence')
    .map((m) => m.name).sort();
  assert.deepEqual(seq, ['gru', 'lstm', 'lstmCell', 'split']);
  const ctx = await wnn.ml.createContext();
  const limits = ctx.opSupportLimits();
  const withoutOutput = wnn.schemas.map((s) => s.name).filter((n) => !('output' in limits[n])).sort();
  assert.deepEqual(withoutOutput, seq);
  const b = new wnn.MLGraphBuilder(ctx);
  const parts = b.split(b.input('x', { dataType: 'float32', shape: [5, 2] }), [2, 3]);
  assert.ok(Array.isArray(parts));
  assert.deepEqual(parts.map((p) => p.shape), [[2, 2], [3, 2]]);
  ctx.destroy();
});
