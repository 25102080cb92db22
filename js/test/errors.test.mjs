// The exceptions the spec asks for, on every backend: TypeError for invalid arguments with a
// message naming the operator and the rule, InvalidStateError and NotSupportedError where the
// spec's algorithms say so, and no call (however wrong its arguments) ending the process.
import test, { describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { BACKENDS } from './backends.mjs';

const require = createRequire(import.meta.url);
const wnn = require('../index.js');
const { MLGraphBuilder } = wnn;

const f32 = (b, shape, name = 'x') => b.input(name, { dataType: 'float32', shape });

// assert.throws with a TypeError whose message matches every pattern.
function throwsTypeError(fn, ...patterns) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof TypeError, `${e?.name}: ${e?.message}, expected a TypeError`);
    for (const p of patterns) assert.match(e.message, p);
    return true;
  });
}

for (const backend of BACKENDS) {
  describe(`errors on backend ${backend}`, () => {
    const builder = async () => {
      wnn.setBackend(backend);
      return new MLGraphBuilder(await wnn.ml.createContext());
    };

    test('mismatched data types are a TypeError naming the operator', async () => {
      const b = await builder();
      const a = f32(b, [2, 3]);
      const i = b.input('i', { dataType: 'int32', shape: [2, 3] });
      throwsTypeError(() => b.add(a, i), /\badd\b/, /float32|int32|data ?type/i);
      throwsTypeError(() => b.matmul(a, b.input('j', { dataType: 'int32', shape: [3, 2] })), /\bmatmul\b/);
      // softmax takes floating point only.
      throwsTypeError(() => b.softmax(b.input('u', { dataType: 'uint32', shape: [2, 3] }), 1), /\bsoftmax\b/);
    });

    test('shapes that break an operator\'s rule are a TypeError naming the operator', async () => {
      const b = await builder();
      throwsTypeError(() => b.matmul(f32(b, [2, 3]), f32(b, [4, 5], 'y')), /\bmatmul\b/);
      throwsTypeError(() => b.add(f32(b, [2, 3], 'p'), f32(b, [4, 3], 'q')), /\badd\b/, /broadcast/i);
      throwsTypeError(() => b.conv2d(f32(b, [1, 2, 5, 5], 'c'), f32(b, [3, 4, 3, 3], 'w')), /\bconv2d\b/);
      throwsTypeError(() => b.reshape(f32(b, [2, 3], 'r'), [4, 2]), /\breshape\b/);
      throwsTypeError(() => b.concat([f32(b, [2, 3], 'c1'), f32(b, [2, 4], 'c2')], 0), /\bconcat\b/);
    });

    test('options out of range are a TypeError naming the operator and the option', async () => {
      const b = await builder();
      const x = f32(b, [1, 2, 5, 5]);
      throwsTypeError(() => b.softmax(f32(b, [2, 3], 's'), 2), /\bsoftmax\b/, /axis/);
      throwsTypeError(() => b.conv2d(x, f32(b, [2, 2, 3, 3], 'w'), { strides: [0, 1] }), /\bconv2d\b/, /stride/i);
      throwsTypeError(() => b.conv2d(x, f32(b, [2, 2, 3, 3], 'w2'), { padding: [1, 1] }), /\bconv2d\b/, /padding/i);
      throwsTypeError(() => b.transpose(f32(b, [2, 3], 't'), { permutation: [0, 0] }), /\btranspose\b/, /permutation/i);
      throwsTypeError(() => b.reduceSum(f32(b, [2, 3], 'r'), { axes: [2] }), /\breduceSum\b/, /ax/i);
      throwsTypeError(() => b.pad(f32(b, [2, 3], 'p'), [1, 1], [1, 1], { mode: 'wrap' }), /\bpad\b|MLPaddingMode/);
    });

    test('an operand of another builder is a TypeError', async () => {
      const b = await builder();
      const other = new MLGraphBuilder(await wnn.ml.createContext());
      const foreign = f32(other, [2]);
      throwsTypeError(() => b.add(f32(b, [2]), foreign), /\badd\b/, /another MLGraphBuilder/);
      throwsTypeError(() => b.concat([f32(b, [2], 'y'), foreign], 0), /\bconcat\b/, /another MLGraphBuilder/);
      throwsTypeError(() => b.gemm(f32(b, [2, 2], 'g'), f32(b, [2, 2], 'h'), { c: foreign }), /\bgemm\b/, /another MLGraphBuilder/);
      await assert.rejects(b.build({ y: foreign }), TypeError);
    });

    test('an operand forged from a plain object is a TypeError', async () => {
      const b = await builder();
      const x = f32(b, [2, 2]);
      b.relu(x);
      throwsTypeError(() => b.add(x, { $operand: 0 }), /\badd\b/);
      throwsTypeError(() => b.gemm(x, x, { c: { $operand: 1 } }), /\bgemm\b/);
    });

    test('input and constant check names, descriptors and buffers', async () => {
      const b = await builder();
      throwsTypeError(() => b.input('', { dataType: 'float32', shape: [1] }), /input/);
      f32(b, [1], 'dup');
      assert.throws(() => f32(b, [1], 'dup'), TypeError);
      throwsTypeError(() => b.input('x', { dataType: 'float64', shape: [1] }), /MLOperandDataType/);
      throwsTypeError(() => b.input('x', { dataType: 'float32', shape: [-1] }), /unsigned long/);
      throwsTypeError(() => b.input('x', { dataType: 'float32' }), /shape/);
      throwsTypeError(() => b.constant({ dataType: 'float32', shape: [3] }, new Float32Array(2)), /constant/, /bytes/);
      throwsTypeError(() => b.constant({ dataType: 'float32', shape: [2] }, new Int32Array(2)), /constant/, /Int32Array/);
    });

    test('a builder can build once; after that every method is an InvalidStateError', async () => {
      const b = await builder();
      const x = f32(b, [2]);
      await b.build({ y: b.relu(x) });
      assert.throws(() => b.relu(x), { name: 'InvalidStateError' });
      assert.throws(() => f32(b, [2], 'z'), { name: 'InvalidStateError' });
      await assert.rejects(b.build({ y: x }), { name: 'InvalidStateError' });
    });

    test('build rejects inputs and constants as outputs, and an empty record', async () => {
      const b = await builder();
      const x = f32(b, [2]);
      await assert.rejects(b.build({}), TypeError);
      await assert.rejects(b.build({ x }), TypeError);
    });

    test('dispatch checks graphs and tensors as the spec says', async () => {
      wnn.setBackend(backend);
      const ctx = await wnn.ml.createContext();
      const other = await wnn.ml.createContext();
      const b = new MLGraphBuilder(ctx);
      const g = await b.build({ y: b.neg(f32(b, [3])) });
      const x = await ctx.createTensor({ dataType: 'float32', shape: [3], writable: true });
      const y = await ctx.createTensor({ dataType: 'float32', shape: [3], readable: true });
      const ob = new MLGraphBuilder(other);
      const og = await ob.build({ y: ob.neg(f32(ob, [3])) });
      assert.throws(() => ctx.dispatch(og, { x }, { y }), TypeError);  // a graph of another context
      assert.throws(() => ctx.dispatch(g, { x }, { y: x }), TypeError);  // one tensor twice
      const ox = await other.createTensor({ dataType: 'float32', shape: [3], writable: true });
      assert.throws(() => ctx.dispatch(g, { x: ox }, { y }), TypeError);  // a tensor of another context
      const wrong = await ctx.createTensor({ dataType: 'float32', shape: [4], writable: true });
      assert.throws(() => ctx.dispatch(g, { x: wrong }, { y }), TypeError);  // descriptor mismatch
      assert.throws(() => ctx.dispatch(g, { nope: x }, { y }), TypeError);  // unknown name
      const k = await ctx.createConstantTensor({ dataType: 'float32', shape: [3] }, new Float32Array(3));
      assert.throws(() => ctx.dispatch(g, { x: k }, { y }), TypeError);  // a constant tensor
      assert.throws(() => ctx.writeTensor(y, new Float32Array(3)), TypeError);  // not writable
      await assert.rejects(ctx.readTensor(x), TypeError);  // not readable
      assert.throws(() => ctx.writeTensor(x, new Float32Array(4)), TypeError);  // wrong size
      ctx.destroy();
      other.destroy();
    });
  });
}

test('createContext: an unknown power preference is a TypeError, an unavailable backend NotSupportedError', async () => {
  await assert.rejects(wnn.ml.createContext({ powerPreference: 'fast' }), TypeError);
  wnn.setBackend('no-such-backend');
  try {
    await assert.rejects(wnn.ml.createContext(), { name: 'NotSupportedError' });
  } finally {
    wnn.setBackend('auto');
  }
});

test('interface objects are not constructible except MLGraphBuilder', async () => {
  for (const name of ['ML', 'MLContext', 'MLGraph', 'MLOperand', 'MLTensor']) {
    assert.throws(() => new wnn[name](), TypeError, name);
  }
  assert.throws(() => new MLGraphBuilder({}), TypeError);
  assert.throws(() => MLGraphBuilder.prototype.relu.call({}, null), TypeError);
});

// A small deterministic generator, so a failure can be replayed.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

test('garbage arguments to every builder method raise JS exceptions only', async () => {
  const ctx = await wnn.ml.createContext();
  const otherBuilder = new MLGraphBuilder(await wnn.ml.createContext());
  const foreign = f32(otherBuilder, [2]);
  const random = rng(20);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const dataTypes = ['float32', 'float16', 'int32', 'uint32', 'int64', 'uint64', 'int8', 'uint8'];
  const throwing = new Proxy({}, { get() { throw new RangeError('getter throws'); } });
  let calls = 0;
  let accepted = 0;
  const kinds = new Map();
  for (const schema of wnn.schemas) {
    for (let round = 0; round < 40; ++round) {
      const b = new MLGraphBuilder(ctx);
      let inputs = 0;
      const operand = () => b.input(`i${inputs++}`, {
        dataType: pick(dataTypes),
        shape: Array.from({ length: Math.floor(random() * 5) }, () => Math.floor(random() * 4)),
      });
      const garbage = () => pick([
        undefined, null, 0, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 40, -(2 ** 31), 10n, -3n, 2n ** 70n,
        '', 'x', 'float32', true, {}, [], [1, 2], [-1], [0.5], [NaN], ['a'], Symbol('s'), () => 1,
        new Float32Array(3), new ArrayBuffer(4), { $operand: 0 }, { $operand: 1e9 }, [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]],
        throwing, foreign, operand(), operand(), [operand(), operand()], [operand(), foreign],
        { length: 2 ** 32 }, Array(1000).fill(7),
      ]);
      const args = schema.args.map((p) => (random() < 0.6 && p.kind === 'operand' ? operand() : garbage()));
      const options = random() < 0.3 ? garbage() : Object.fromEntries(
        schema.options.filter(() => random() < 0.4).map((p) => [p.name, random() < 0.5 ? garbage() : operand()]));
      if (random() < 0.2) args.pop();
      calls += 1;
      try {
        b[schema.name](...args, options);
        accepted += 1;
      } catch (e) {
        // Only the spec's exception types come out: TypeError, or a DOMException; nothing
        // internal (a plain Error from the addon would be a bug in the binding).
        const kind = e instanceof TypeError ? 'TypeError' : e instanceof DOMException ? e.name : e instanceof RangeError && e.message === 'getter throws' ? 'getter' : `other ${e?.constructor?.name}: ${e?.message}`;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
    }
  }
  process.stdout.write(`fuzz: ${calls} calls, ${accepted} accepted, ${JSON.stringify([...kinds])}\n`);
  const unexpected = [...kinds.keys()].filter((k) => !['TypeError', 'getter'].includes(k));
  assert.deepEqual(unexpected, [], `exceptions other than TypeError: ${JSON.stringify([...kinds])}`);
  assert.ok(calls > 1000);
  assert.ok(kinds.get('TypeError') > calls / 2, 'most garbage calls must be rejected');
  // Some random calls are valid; a fuzz loop that never gets past validation tests little.
  assert.ok(accepted > 0, 'no call was accepted');
  ctx.destroy();
});
