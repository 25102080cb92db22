// Multi-operator graphs through the WebNN API on every backend, against plain-JS reference
// arithmetic computed here: a conv2d -> add -> relu chain with non-default attributes, shared
// operands and constants, an output that is also an intermediate, several contexts and graphs
// at once, reads into a given buffer, destroy() and the errors after it, and graphs freed by GC.
import test, { describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import vm from 'node:vm';
import { BACKENDS } from './backends.mjs';

const require = createRequire(import.meta.url);
const wnn = require('../index.js');
const { MLGraphBuilder } = wnn;

// Values in [-1.375, 1.375] in steps of 1/8, zeros included, no two neighbours equal.
function values(n, seed) {
  return Float32Array.from({ length: n }, (_, i) => (((i * 37 + seed * 11) % 23) - 11) / 8);
}

// NCHW input, OIHW filter, padding [top, bottom, left, right].
function conv2dRef(x, [n, c, h, w], f, [o, , kh, kw], { padding, strides, dilations }, bias) {
  const [pt, pb, pl, pr] = padding;
  const [sh, sw] = strides;
  const [dh, dw] = dilations;
  const oh = Math.floor((h + pt + pb - dh * (kh - 1) - 1) / sh) + 1;
  const ow = Math.floor((w + pl + pr - dw * (kw - 1) - 1) / sw) + 1;
  const out = new Float32Array(n * o * oh * ow);
  for (let b = 0; b < n; ++b) {
    for (let oc = 0; oc < o; ++oc) {
      for (let y = 0; y < oh; ++y) {
        for (let xx = 0; xx < ow; ++xx) {
          let acc = bias ? bias[oc] : 0;
          for (let ic = 0; ic < c; ++ic) {
            for (let ky = 0; ky < kh; ++ky) {
              for (let kx = 0; kx < kw; ++kx) {
                const iy = y * sh + ky * dh - pt;
                const ix = xx * sw + kx * dw - pl;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                acc += x[((b * c + ic) * h + iy) * w + ix] * f[((oc * c + ic) * kh + ky) * kw + kx];
              }
            }
          }
          out[((b * o + oc) * oh + y) * ow + xx] = acc;
        }
      }
    }
  }
  return { data: out, shape: [n, o, oh, ow] };
}

function assertClose(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: ${actual.length} values, expected ${expected.length}`);
  for (let i = 0; i < expected.length; ++i) {
    const tol = 1e-5 * (1 + Math.abs(expected[i]));
    assert.ok(Math.abs(actual[i] - expected[i]) <= tol, `${what}[${i}]: ${actual[i]}, expected ${expected[i]}`);
  }
}

async function tensorFor(ctx, shape, data) {
  const t = await ctx.createTensor({ dataType: 'float32', shape, writable: data !== undefined, readable: data === undefined });
  if (data !== undefined) ctx.writeTensor(t, data);
  return t;
}

async function read(ctx, t) {
  return new Float32Array(await ctx.readTensor(t));
}

// (a + c) - a * c, with `a` read by two operators and the constant `c` used twice; also max(a, c).
function buildShared(ctx, n) {
  const b = new MLGraphBuilder(ctx);
  const a = b.input('a', { dataType: 'float32', shape: [n] });
  const cValues = values(n, 5);
  const c = b.constant({ dataType: 'float32', shape: [n] }, cValues);
  const out = b.sub(b.add(a, c), b.mul(a, c));
  return { builder: b, outputs: { out, hi: b.max(a, c) }, cValues };
}

function sharedRef(a, c) {
  return {
    out: a.map((v, i) => Math.fround(Math.fround(v + c[i]) - Math.fround(v * c[i]))),
    hi: a.map((v, i) => Math.max(v, c[i])),
  };
}

for (const backend of BACKENDS) {
  describe(`graphs on backend ${backend}`, () => {
    const context = async () => {
      wnn.setBackend(backend);
      return wnn.ml.createContext();
    };

    test('conv2d -> add -> relu with padding, strides, dilations and bias; the conv is also an output', async () => {
      const ctx = await context();
      const b = new MLGraphBuilder(ctx);
      const xShape = [1, 2, 5, 7];
      const fShape = [3, 2, 3, 2];
      const x = b.input('x', { dataType: 'float32', shape: xShape });
      const z = b.input('z', { dataType: 'float32', shape: [3, 1, 1] });
      const fValues = values(3 * 2 * 3 * 2, 2);
      const biasValues = Float32Array.from([0.5, -0.25, 0]);
      const attrs = { padding: [1, 0, 2, 1], strides: [2, 1], dilations: [1, 2] };
      const conv = b.conv2d(x, b.constant({ dataType: 'float32', shape: fShape }, fValues), {
        ...attrs, bias: b.constant({ dataType: 'float32', shape: [3] }, biasValues),
      });
      const y = b.relu(b.add(conv, z));
      const graph = await b.build({ conv, y });

      const xValues = values(70, 1);
      const zValues = Float32Array.from([-0.5, 0.125, -2]);
      const ref = conv2dRef(xValues, xShape, fValues, fShape, attrs, biasValues);
      assert.deepEqual(ref.shape, [1, 3, 2, 8]);
      assert.deepEqual(conv.shape, ref.shape);
      const per = 2 * 8;
      const yRef = ref.data.map((v, i) => Math.max(0, Math.fround(v + zValues[Math.floor(i / per)])));
      // The reference must exercise relu's both sides, or the check would not see relu missing.
      assert.ok(yRef.some((v) => v === 0) && yRef.some((v) => v > 0));

      const tc = await tensorFor(ctx, ref.shape);
      const ty = await tensorFor(ctx, ref.shape);
      ctx.dispatch(graph, { x: await tensorFor(ctx, xShape, xValues), z: await tensorFor(ctx, [3, 1, 1], zValues) },
        { conv: tc, y: ty });
      assertClose(await read(ctx, tc), ref.data, 'conv');
      assertClose(await read(ctx, ty), yRef, 'y');
      ctx.destroy();
    });

    test('an operand read by two operators and a constant used twice', async () => {
      const ctx = await context();
      const n = 9;
      const { builder, outputs, cValues } = buildShared(ctx, n);
      const graph = await builder.build(outputs);
      const aValues = values(n, 3);
      const ref = sharedRef(aValues, cValues);
      const out = await tensorFor(ctx, [n]);
      const hi = await tensorFor(ctx, [n]);
      ctx.dispatch(graph, { a: await tensorFor(ctx, [n], aValues) }, { out, hi });
      assertClose(await read(ctx, out), ref.out, 'out');
      assertClose(await read(ctx, hi), ref.hi, 'hi');
      ctx.destroy();
    });

    test('several contexts and graphs at once, and a graph dispatched twice before any read', async () => {
      const [c1, c2] = await Promise.all([context(), context()]);
      const n = 5;
      const s1 = buildShared(c1, n);
      const s2 = buildShared(c2, n);
      const b3 = new MLGraphBuilder(c1);
      const p = b3.input('p', { dataType: 'float32', shape: [2, 3] });
      const q = b3.input('q', { dataType: 'float32', shape: [3, 2] });
      const [g1, g2, g3] = await Promise.all([s1.builder.build(s1.outputs), s2.builder.build(s2.outputs),
        b3.build({ r: b3.matmul(p, q) })]);

      const a1 = values(n, 7);
      const a2 = values(n, 8);
      const t1 = await tensorFor(c1, [n], a1);
      const o1 = await tensorFor(c1, [n]);
      const h1 = await tensorFor(c1, [n]);
      c1.dispatch(g1, { a: t1 }, { out: o1, hi: h1 });
      const first = read(c1, o1);
      // The same input tensor rewritten and the graph dispatched again: the first read must see
      // the first dispatch's result (the context's timeline keeps the order).
      c1.writeTensor(t1, a2);
      const o1b = await tensorFor(c1, [n]);
      c1.dispatch(g1, { a: t1 }, { out: o1b, hi: h1 });
      const second = read(c1, o1b);

      const o2 = await tensorFor(c2, [n]);
      const h2 = await tensorFor(c2, [n]);
      c2.dispatch(g2, { a: await tensorFor(c2, [n], a2) }, { out: o2, hi: h2 });

      const pv = values(6, 9);
      const qv = values(6, 10);
      const r = await tensorFor(c1, [2, 2]);
      c1.dispatch(g3, { p: await tensorFor(c1, [2, 3], pv), q: await tensorFor(c1, [3, 2], qv) }, { r });
      const rRef = [];
      for (let i = 0; i < 2; ++i) {
        for (let j = 0; j < 2; ++j) rRef.push([0, 1, 2].reduce((acc, k) => acc + pv[i * 3 + k] * qv[k * 2 + j], 0));
      }
      const [v1, v2, vo2, vr] = await Promise.all([first, second, read(c2, o2), read(c1, r)]);
      assertClose(v1, sharedRef(a1, s1.cValues).out, 'first dispatch');
      assertClose(v2, sharedRef(a2, s1.cValues).out, 'second dispatch');
      assertClose(vo2, sharedRef(a2, s2.cValues).out, 'other context');
      assertClose(vr, rRef, 'matmul');
      c1.destroy();
      c2.destroy();
    });

    test('readTensor into a given buffer', async () => {
      const ctx = await context();
      const n = 6;
      const { builder, outputs, cValues } = buildShared(ctx, n);
      const graph = await builder.build(outputs);
      const aValues = values(n, 4);
      const out = await tensorFor(ctx, [n]);
      ctx.dispatch(graph, { a: await tensorFor(ctx, [n], aValues) }, { out, hi: await tensorFor(ctx, [n]) });
      const ref = sharedRef(aValues, cValues).out;
      const f32 = new Float32Array(n).fill(99);
      assert.equal(await ctx.readTensor(out, f32), undefined);
      assertClose(f32, ref, 'Float32Array');
      // A Uint8Array over part of a larger buffer: only its window is written.
      const big = new ArrayBuffer(4 * n + 8);
      const window = new Uint8Array(big, 4, 4 * n);
      await ctx.readTensor(out, window);
      assertClose(new Float32Array(big, 4, n), ref, 'Uint8Array window');
      assert.equal(new Float32Array(big, 0, 1)[0], 0);
      await assert.rejects(ctx.readTensor(out, new Float32Array(n + 1)), TypeError);
      await assert.rejects(ctx.readTensor(out, new Int32Array(n)), TypeError);
      ctx.destroy();
    });

    test('destroy() of a graph, a tensor and the context, and the errors after it', async () => {
      const ctx = await context();
      const n = 4;
      const { builder, outputs } = buildShared(ctx, n);
      const graph = await builder.build(outputs);
      const a = await tensorFor(ctx, [n], values(n, 1));
      const out = await tensorFor(ctx, [n]);
      const hi = await tensorFor(ctx, [n]);
      ctx.dispatch(graph, { a }, { out, hi });
      const pending = read(ctx, out);
      graph.destroy();
      graph.destroy();  // a second destroy() does nothing
      assert.equal((await pending).length, n);  // the dispatch queued before destroy() completes
      assert.throws(() => ctx.dispatch(graph, { a }, { out, hi }), { name: 'InvalidStateError' });

      hi.destroy();
      await assert.rejects(ctx.readTensor(hi), TypeError);
      a.destroy();
      assert.throws(() => ctx.writeTensor(a, values(n, 2)), TypeError);

      const b2 = new MLGraphBuilder(ctx);
      const g2 = await b2.build({ y: b2.abs(b2.input('x', { dataType: 'float32', shape: [n] })) });
      const live = await tensorFor(ctx, [n]);
      ctx.destroy();
      const info = await ctx.lost;
      assert.equal(typeof info.message, 'string');
      assert.ok(info.message.length > 0);
      await assert.rejects(ctx.createTensor({ dataType: 'float32', shape: [1] }), { name: 'InvalidStateError' });
      assert.throws(() => new MLGraphBuilder(ctx), { name: 'InvalidStateError' });
      assert.throws(() => ctx.dispatch(g2, {}, {}), { name: 'InvalidStateError' });
      await assert.rejects(ctx.readTensor(live), { name: 'InvalidStateError' });
      // A builder of a lost context can not build.
      assert.throws(() => b2.input('z', { dataType: 'float32', shape: [1] }), { name: 'InvalidStateError' });
    });

    // webnn.js runs a fast graph inline when nothing is pending and a slow one on a worker; the
    // timeline's order must hold across the two: each step sees exactly the steps before it.
    test('timeline order across inline and worker dispatches', async () => {
      const ctx = await context();
      const n = 192;  // a 192x192 matmul: far slower than a thread hop, so it runs on a worker
      const sb = new MLGraphBuilder(ctx);
      const a = sb.input('a', { dataType: 'float32', shape: [n, n] });
      const slow = await sb.build({ p: sb.matmul(a, a) });
      const fb = new MLGraphBuilder(ctx);
      const p = fb.input('p', { dataType: 'float32', shape: [n, n] });
      const fast = await fb.build({ q: fb.neg(fb.slice(p, [0, 0], [1, 4])) });
      const aT = await ctx.createTensor({ dataType: 'float32', shape: [n, n], writable: true });
      const pT = await ctx.createTensor({ dataType: 'float32', shape: [n, n], readable: true });
      const qT = await ctx.createTensor({ dataType: 'float32', shape: [1, 4], readable: true });
      const first = values(n * n, 3);
      const second = values(n * n, 8);
      // Row 0, columns 0..3 of first x first, in float64 (inputs are multiples of 1/8).
      const ref = (m) => Array.from({ length: 4 }, (_, j) => {
        let acc = 0;
        for (let k = 0; k < n; ++k) acc += m[k] * m[k * n + j];
        return -acc;
      });
      for (let round = 0; round < 3; ++round) {
        ctx.writeTensor(aT, first);
        ctx.dispatch(slow, { a: aT }, { p: pT });
        ctx.dispatch(fast, { p: pT }, { q: qT });  // queued behind the slow run
        ctx.writeTensor(aT, second);  // after both dispatches: must not reach the first
        const q1 = new Float32Array(await ctx.readTensor(qT));
        assertClose(q1, ref(first), `round ${round}, first input`);
        ctx.dispatch(slow, { a: aT }, { p: pT });
        ctx.dispatch(fast, { p: pT }, { q: qT });
        const q2 = new Float32Array(await ctx.readTensor(qT));
        assertClose(q2, ref(second), `round ${round}, second input`);
        // Idle now: the fast graph alone runs inline, on what the last slow run wrote.
        ctx.dispatch(fast, { p: pT }, { q: qT });
        assertClose(new Float32Array(await ctx.readTensor(qT)), ref(second), `round ${round}, inline`);
      }
      ctx.destroy();
    });
  });
}

// gc() without --expose-gc on the command line (npm test runs plain `node --test`).
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

test('graphs dropped by the program are freed by GC', async () => {
  const ctx = await wnn.ml.createContext();
  const before = wnn.diagnostics.liveGraphs();
  const build = async () => {
    const b = new MLGraphBuilder(ctx);
    return b.build({ y: b.neg(b.input('x', { dataType: 'float32', shape: [3] })) });
  };
  let kept = await build();
  for (let i = 0; i < 8; ++i) await build();
  assert.ok(wnn.diagnostics.liveGraphs() >= before + 9);
  for (let i = 0; i < 20 && wnn.diagnostics.liveGraphs() > before + 1; ++i) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  assert.equal(wnn.diagnostics.liveGraphs(), before + 1, 'the 8 dropped graphs are freed, the kept one is not');
  kept.destroy();
  kept = null;
  // destroy() frees the session on the context's timeline; a read queued after it has run.
  await ctx.readTensor(await ctx.createTensor({ dataType: 'float32', shape: [1], readable: true }));
  assert.equal(wnn.diagnostics.liveGraphs(), before);
  ctx.destroy();
});
