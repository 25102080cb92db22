#!/usr/bin/env node
'use strict';
// ONNX Runtime's side of bench/llm_decode.py: one process, one model, the loop that
// llm_decode.py's wnn worker runs (see the loop there): prefill the prompt, then greedy decode
// steps over a fixed-capacity KV cache, feeding present -> past. Prints one JSON line:
// {load_ms, prefill_ms: [...], step_ms: [...], tokens: [...], max_rss_kb}.
//
// usage: node bench/llm_decode_ort.js CONFIG.json   (written by llm_decode.py)

const fs = require('fs');
const path = require('path');

const ortDir = path.join(__dirname, '..', 'tools', 'ort-reference');
const {callOrt, createSession, loadOrt, runMain} = require(path.join(ortDir, 'ort_session'));

// This process's peak resident set (VmHWM): maxRSS (ru_maxrss) would include the parent's
// high-water mark, which Linux carries across fork + exec.
function peakRssKb() {
  const m = /^VmHWM:\s+(\d+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : process.resourceUsage().maxRSS;
}

const msSince = (start) => Number(process.hrtime.bigint() - start) / 1e6;

function argmaxRow(data, row, width) {
  let best = 0;
  for (let i = 1; i < width; ++i) {
    if (data[row * width + i] > data[row * width + best]) best = i;
  }
  return best;
}

// Copies positions [from, from + count) of a [1, heads, length, dim] tensor into positions
// [to, to + count) of a [1, heads, capacity, dim] buffer.
function copyPositions(src, length, dst, capacity, heads, dim, from, to, count) {
  for (let h = 0; h < heads; ++h) {
    const s = (h * length + from) * dim;
    dst.set(src.subarray(s, s + count * dim), (h * capacity + to) * dim);
  }
}

async function main(argv) {
  const c = JSON.parse(fs.readFileSync(argv[0], 'utf8'));
  const ort = loadOrt();
  const t0 = process.hrtime.bigint();
  const session = await createSession(ort, c.onnx, {threads: c.threads});
  const loadMs = msSince(t0);
  const S = c.prompt.length, P = c.past, [heads, dim] = [c.kv_heads, c.head_dim];
  const i64 = (values, dims) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);
  const f32 = (data, len) => new ort.Tensor('float32', data, [1, heads, len, dim]);

  // Prefill: the prompt after an empty past ([1, kv, 0, hd]).
  const prefill = {input_ids: i64(c.prompt, [1, S]), attention_mask: i64(Array(S).fill(1), [1, S])};
  if (c.position_ids) prefill.position_ids = i64([...Array(S).keys()], [1, S]);
  for (const name of c.past_names) prefill[name] = f32(new Float32Array(0), 0);
  const prefillMs = [];
  let out;
  for (let r = 0; r < c.prefill_runs; ++r) {
    const start = process.hrtime.bigint();
    out = await callOrt(() => session.run(prefill));
    prefillMs.push(msSince(start));
  }
  const vocab = out.logits.dims[2];
  const tokens = [argmaxRow(out.logits.data, S - 1, vocab)];

  // The cache: capacity P; genai keeps the valid positions first (GroupQueryAttention reads
  // seqlens_k), optimum last (left padding, masked).
  const left = c.layout === 'optimum';
  const past = {};
  c.past_names.forEach((name, i) => {
    const buf = new Float32Array(heads * P * dim);
    copyPositions(out[c.present_names[i]].data, S, buf, P, heads, dim, 0, left ? P - S : 0, S);
    past[name] = buf;
  });
  const mask = new Array(P + 1).fill(0);
  for (let i = 0; i < S + 1; ++i) mask[left ? P - S + i : i] = 1;
  const stepMs = [];
  for (let t = 0; t < c.steps; ++t) {
    const feed = {input_ids: i64([tokens[tokens.length - 1]], [1, 1]), attention_mask: i64(mask, [1, P + 1])};
    if (c.position_ids) feed.position_ids = i64([S + t], [1, 1]);
    for (const name of c.past_names) feed[name] = f32(past[name], P);
    const start = process.hrtime.bigint();
    const o = await callOrt(() => session.run(feed));
    stepMs.push(msSince(start));
    tokens.push(argmaxRow(o.logits.data, 0, vocab));
    c.past_names.forEach((name, i) => {
      const present = o[c.present_names[i]].data;  // [1, kv, P + 1, hd]
      copyPositions(present, P + 1, past[name], P, heads, dim, left ? 1 : 0, 0, P);
    });
    if (left) {
      mask.shift();
      mask.push(1);
    } else {
      mask[S + t + 1] = 1;
    }
  }
  process.stdout.write(JSON.stringify({
    load_ms: loadMs, prefill_ms: prefillMs, step_ms: stepMs, tokens,
    max_rss_kb: peakRssKb(),
  }) + '\n');
}

runMain(main);
