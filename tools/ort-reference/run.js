#!/usr/bin/env node
'use strict';
// Runs one ONNX model through ONNX Runtime (onnxruntime-node, CPU) on inputs from a safetensors
// file and writes every output to another: the numerical reference wnn's validation compares
// against. `--describe` prints the model's inputs and outputs as JSON instead.

const {writeSafetensors} = require('./safetensors');
const {
  UsageError, callOrt, createSession, loadOrt, outputsToEntries, parseCli, parseInteger,
  parseOptimization, readFeeds, runMain,
} = require('./ort_session');

const kUsage = `usage: node run.js --model M.onnx --inputs in.safetensors --outputs out.safetensors
                   [--threads N] [--optimization LEVEL] [--external-data-dir DIR]
                   [--outputs-only a,b]
       node run.js --describe --model M.onnx
  --threads N        ORT intra-op threads (default 1)
  --optimization L   graph optimization level: disabled, basic, extended or all (default all)
  --external-data-dir DIR  resolve the model's external data files in DIR (default: beside it)
  --outputs-only a,b fetch and write only these outputs, in this order (default: all, in model order)
exit codes: 0 ok, 1 ONNX Runtime failed (its message on stderr), 2 bad usage or input file`;

function describeValues(metadata) {
  return metadata.map((m) => m.isTensor ? {name: m.name, type: m.type, shape: Array.from(m.shape)}
                                        : {name: m.name, type: 'non-tensor', shape: null});
}

async function main(argv) {
  const args = parseCli(argv, {
    model: {type: 'string'},
    inputs: {type: 'string'},
    outputs: {type: 'string'},
    threads: {type: 'string'},
    optimization: {type: 'string'},
    'external-data-dir': {type: 'string'},
    'outputs-only': {type: 'string'},
    describe: {type: 'boolean'},
  }, kUsage);
  if (!args.model) throw new UsageError(`--model is required\n${kUsage}`);
  const threads = parseInteger(args.threads, '--threads', 1, 1);
  const sessionOptions = {
    threads, optimization: parseOptimization(args.optimization), externalDataDir: args['external-data-dir'],
  };
  if (args.describe) {
    if (args.inputs || args.outputs || args['outputs-only']) {
      throw new UsageError('--describe takes only --model (and session options)');
    }
    const session = await createSession(loadOrt(), args.model, sessionOptions);
    const description = {
      inputs: describeValues(session.inputMetadata),
      outputs: describeValues(session.outputMetadata),
    };
    process.stdout.write(`${JSON.stringify(description, null, 2)}\n`);
    return;
  }
  if (!args.inputs || !args.outputs) throw new UsageError(`--inputs and --outputs are required\n${kUsage}`);

  const ort = loadOrt();
  const feeds = readFeeds(ort, args.inputs);
  const session = await createSession(ort, args.model, sessionOptions);
  let names = session.outputNames;
  if (args['outputs-only'] !== undefined) {
    names = args['outputs-only'].split(',').filter((n) => n !== '');
    if (names.length === 0) throw new UsageError('--outputs-only names no output');
  }
  // Fetch by name so ORT itself rejects an unknown --outputs-only name.
  const results = await callOrt(() => session.run(feeds, names));
  writeSafetensors(args.outputs, outputsToEntries(results, names));
}

runMain(main);
