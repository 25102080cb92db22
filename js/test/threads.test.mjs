// Which threads compile and run graphs: every build and every dispatch that leaves the main
// thread runs on the addon's one dispatch thread. libgomp keeps a team of workers per thread
// that starts a parallel region and stops spinning between kernels once all teams' workers
// outnumber the CPUs, so a build on another thread (libuv's pool, where builds used to run)
// slowed every later run of a multi-threaded graph (docs/benchmarks.md, the JavaScript section).
// A file of its own: node --test runs it in a fresh process, so the count starts at zero.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { BACKENDS } from './backends.mjs';

const require = createRequire(import.meta.url);
const wnn = require('../index.js');
const { MLGraphBuilder } = wnn;

// x [1, 3, 9, 7] -> conv2d (4 filters of 3x3, padding 1) + bias -> relu, with values in
// [-1.375, 1.375] (zeros and negatives included); and the reference the same way in plain JS.
const X = [1, 3, 9, 7], W = [4, 3, 3, 3];
const values = (n, seed) => Float32Array.from({ length: n }, (_, i) => (((i * 37 + seed * 11) % 23) - 11) / 8);
const x = values(3 * 9 * 7, 1), w = values(4 * 3 * 3 * 3, 2), bias = Float32Array.from([0.5, -0.25, 0, 1.5]);

function reference() {
  const out = new Float32Array(4 * 9 * 7);
  for (let o = 0; o < 4; ++o) {
    for (let yy = 0; yy < 9; ++yy) {
      for (let xx = 0; xx < 7; ++xx) {
        let acc = bias[o];
        for (let c = 0; c < 3; ++c) {
          for (let ky = 0; ky < 3; ++ky) {
            for (let kx = 0; kx < 3; ++kx) {
              const iy = yy + ky - 1, ix = xx + kx - 1;
              if (iy < 0 || iy >= 9 || ix < 0 || ix >= 7) continue;
              acc += x[(c * 9 + iy) * 7 + ix] * w[((o * 3 + c) * 3 + ky) * 3 + kx];
            }
          }
        }
        out[(o * 9 + yy) * 7 + xx] = Math.max(acc, 0);
      }
    }
  }
  return out;
}

async function buildConv(ctx) {
  const b = new MLGraphBuilder(ctx);
  const input = b.input('x', { dataType: 'float32', shape: X });
  const filter = b.constant({ dataType: 'float32', shape: W }, w);
  const c = b.conv2d(input, filter, { padding: [1, 1, 1, 1], bias: b.constant({ dataType: 'float32', shape: [4] }, bias) });
  return b.build({ y: b.relu(c) });
}

test('builds and worker dispatches of every backend share one thread', async () => {
  assert.equal(wnn.diagnostics.sessionThreads(), 0, 'nothing compiled yet');
  const want = reference();
  for (const backend of BACKENDS) {
    wnn.setBackend(backend, 2);
    const ctx = await wnn.ml.createContext();
    // Two graphs built before either runs, then a build queued while dispatches are pending.
    const [g1, g2] = await Promise.all([buildConv(ctx), buildConv(ctx)]);
    const xt = await ctx.createTensor({ dataType: 'float32', shape: X, writable: true });
    const yt = await ctx.createTensor({ dataType: 'float32', shape: [1, 4, 9, 7], readable: true });
    ctx.writeTensor(xt, x);
    ctx.dispatch(g1, { x: xt }, { y: yt });  // a graph's first dispatch runs on the worker
    const later = buildConv(ctx);
    ctx.dispatch(g2, { x: xt }, { y: yt });
    const got = new Float32Array(await ctx.readTensor(yt));
    const g3 = await later;
    ctx.dispatch(g3, { x: xt }, { y: yt });
    const again = new Float32Array(await ctx.readTensor(yt));
    for (let i = 0; i < want.length; ++i) {
      assert.ok(Math.abs(got[i] - want[i]) <= 1e-5, `${backend}: y[${i}] = ${got[i]}, want ${want[i]}`);
      assert.ok(Math.abs(again[i] - want[i]) <= 1e-5, `${backend}: y[${i}] = ${again[i]} after the later build`);
    }
    ctx.destroy();
  }
  assert.equal(wnn.diagnostics.sessionThreads(), 1, 'every build and worker dispatch ran on the dispatch thread');
});
