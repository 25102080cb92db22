// index.d.ts is what tools/gen-dts.mjs writes from the operator table, and it types a real
// program: test/data/usage.ts compiles with tsc --strict, except exactly its @expect-error lines.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, DTS_FILE } from '../tools/gen-dts.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const wnn = require('../index.js');

test('index.d.ts is current (node tools/gen-dts.mjs rewrites it)', async () => {
  assert.equal(readFileSync(DTS_FILE, 'utf8'), await generate(wnn));
});

test('index.d.ts types the usage sample; the wrong calls in it do not compile', () => {
  const ts = require('typescript');
  const file = path.join(here, 'data', 'usage.ts');
  const program = ts.createProgram([file], {
    noEmit: true, strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS,
    lib: ['lib.es2022.d.ts'], types: [],
  });
  const lines = readFileSync(file, 'utf8').split('\n');
  const expected = lines.flatMap((l, i) => (l.trim().startsWith('// @expect-error') ? [i + 2] : []));
  assert.equal(expected.length, 4);
  const errors = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return { line: where, file: d.file?.fileName, text: ts.flattenDiagnosticMessageText(d.messageText, '\n') };
  });
  const unexpected = errors.filter((e) => e.file !== file || !expected.includes(e.line));
  assert.deepEqual(unexpected, []);
  assert.deepEqual([...new Set(errors.map((e) => e.line))].sort((a, b) => a - b), expected);
});
