#!/usr/bin/env node
'use strict';
// Times ONNX Runtime's session.run on one model and prints JSON
// {median_ms, p90_ms, min_ms, create_ms, first_run_ms, load_to_first_inference_ms, runs, ...}.
// The latency statistics time only session.run. V8's garbage collector otherwise lands inside
// session.run once outputs reach about 1 MB, so an untimed gc() runs before every timed run;
// start node with --expose-gc (the script enables it itself if not).

const v8 = require('v8');
const vm = require('vm');
const {
  UsageError, callOrt, createSession, loadOrt, parseCli, parseInteger, readFeeds, runMain,
} = require('./ort_session');

const kUsage = `usage: node --expose-gc bench.js --model M.onnx --inputs in.safetensors
                   [--runs 20] [--warmup 5] [--threads 1]`;

function collectGarbage() {
  if (typeof global.gc === 'function') return global.gc;
  // Without --expose-gc: turn the flag on now and take gc from a fresh context.
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

// Nearest-rank percentile of sorted `values`: the smallest value with at least p% at or below.
function percentile(sorted, p) {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

function median(sorted) {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(argv) {
  const args = parseCli(argv, {
    model: {type: 'string'},
    inputs: {type: 'string'},
    runs: {type: 'string'},
    warmup: {type: 'string'},
    threads: {type: 'string'},
  }, kUsage);
  if (!args.model || !args.inputs) throw new UsageError(`--model and --inputs are required\n${kUsage}`);
  const runs = parseInteger(args.runs, '--runs', 20, 1);
  const warmup = parseInteger(args.warmup, '--warmup', 5, 0);
  const threads = parseInteger(args.threads, '--threads', 1, 1);
  const gc = collectGarbage();

  const ort = loadOrt();
  const feeds = readFeeds(ort, args.inputs);
  // Load to first inference: session creation (reading and optimizing the model) plus the cold
  // first run, which is also the first warm-up run.
  const msSince = (start) => Number(process.hrtime.bigint() - start) / 1e6;
  const createStart = process.hrtime.bigint();
  const session = await createSession(ort, args.model, {threads});
  const createMs = msSince(createStart);
  const firstStart = process.hrtime.bigint();
  await callOrt(() => session.run(feeds));
  const firstRunMs = msSince(firstStart);
  for (let i = 1; i < warmup; ++i) await callOrt(() => session.run(feeds));
  const times = [];
  for (let i = 0; i < runs; ++i) {
    gc();
    const start = process.hrtime.bigint();
    await callOrt(() => session.run(feeds));
    times.push(msSince(start));
  }
  const sorted = [...times].sort((a, b) => a - b);
  const round = (ms) => Math.round(ms * 1000) / 1000;
  process.stdout.write(`${JSON.stringify({
    median_ms: round(median(sorted)),
    p90_ms: round(percentile(sorted, 90)),
    min_ms: round(sorted[0]),
    create_ms: round(createMs),
    first_run_ms: round(firstRunMs),
    load_to_first_inference_ms: round(createMs + firstRunMs),
    runs,
    warmup,
    threads,
  })}\n`);
}

runMain(main);
