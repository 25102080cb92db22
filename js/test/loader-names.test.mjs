// The loader's name scanner against wnn's own (src/wnn/core/names.cc, through the addon's
// nameTokenLength / isValidOperandName) on generated strings built from the pieces the grammar
// treats specially: '::', ':', '//', '/*', '$', '-', '.', digits, reserved words, UTF-8.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { nameTokenLength, isValidOperandName } from '../loader/index.js';

const require = createRequire(import.meta.url);
const native = require('../lib/native.js');

const PIECES = ['a', 'Z', 'q', '_', '.', '/', '$', '-', '0', '7', ':', '::', '//', '/*', '*', ' ',
  '#', '@', '"', '=', ';', ',', '[', '\t', '\n', 'true', 'false', 'null', 'inf', 'nan', 'dyn',
  'onnx::', 'é', '中', '\u{1F600}', '\u0000', '\u007f', '+', 'e5'];

// A deterministic stream (splitmix32-like); the same strings on every run.
function generator(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

test('the JS name scanner agrees with wnn\'s on 5000 generated strings', () => {
  assert.equal(typeof native.nameTokenLength, 'function',
    'the addon has no nameTokenLength: build this checkout\'s addon (cmake --build build --target wnn_node) or point WNN_NODE_ADDON at it');
  const next = generator(20);
  const encoder = new TextEncoder();
  let named = 0, valid = 0;
  for (let i = 0; i < 5000; ++i) {
    const n = next() % 9;
    let s = '';
    for (let k = 0; k < n; ++k) s += PIECES[next() % PIECES.length];
    if (i % 7 === 0) s = PIECES[next() % 5] + s;  // start with a name byte more often
    const bytes = encoder.encode(s);
    const want = native.nameTokenLength(bytes);
    assert.equal(nameTokenLength(bytes), want, `nameTokenLength(${JSON.stringify(s)})`);
    const from = bytes.length ? next() % bytes.length : 0;
    assert.equal(nameTokenLength(bytes, from), native.nameTokenLength(bytes.subarray(from)),
      `nameTokenLength(${JSON.stringify(s)}, ${from})`);
    const ok = native.isValidOperandName(bytes);
    assert.equal(isValidOperandName(s), ok, `isValidOperandName(${JSON.stringify(s)})`);
    if (want > 0) ++named;
    if (ok) ++valid;
  }
  // The strings exercise both answers (so the comparison means something).
  assert.ok(named > 1000 && valid > 200 && valid < 4000, `named ${named}, valid ${valid}`);
  for (const word of ['true', 'false', 'null', 'inf', 'nan']) {
    assert.equal(isValidOperandName(word), false);
    assert.equal(isValidOperandName(`${word}_`), true);
  }
});
