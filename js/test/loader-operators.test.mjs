// js/loader/operators.js is wnn's operator table as the addon exports it: regenerate it with
// `node js/tools/gen-loader-operators.mjs` when an operator changes.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { operatorTableSource } from '../tools/gen-loader-operators.mjs';
import { OPERATORS } from '../loader/index.js';

const require = createRequire(import.meta.url);
const { schemas } = require('..');

test('operators.js matches the addon\'s operator table', () => {
  const file = new URL('../loader/operators.js', import.meta.url);
  assert.equal(fs.readFileSync(file, 'utf8'), operatorTableSource(schemas),
    'js/loader/operators.js is stale: run node js/tools/gen-loader-operators.mjs');
  assert.deepEqual(Object.keys(OPERATORS), schemas.map((s) => s.name));
  assert.deepEqual(OPERATORS.conv2d.args.map((a) => a.kind), ['operand', 'operand']);
  assert.ok(OPERATORS.conv2d.options.some((o) => o.name === 'bias' && o.kind === 'operand'));
});

test('the loader\'s data types are wnn\'s, in the same order', async () => {
  const { DATA_TYPES } = await import('../loader/dtypes.js');
  const native = require('../lib/native.js');
  assert.deepEqual(DATA_TYPES, native.dataTypes().map((t) => t.name));
});
