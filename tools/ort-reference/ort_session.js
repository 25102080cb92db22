'use strict';
// What run.js and bench.js share: the session options ONNX Runtime is run with, the mapping
// between safetensors dtypes and ORT tensor types, and the exit-code contract wnn relies on:
//   0 success; 1 ONNX Runtime itself failed (its message is printed verbatim);
//   2 bad usage or bad input files; 3 a bug in this runner.

const fs = require('fs');
const {parseArgs} = require('util');
const {SafetensorsError, readSafetensors} = require('./safetensors');

const kProgram = 'ort-reference';

// Bad usage or an input file this runner cannot use: exit 2.
class UsageError extends Error {}
// ONNX Runtime rejected the model, the feeds or failed while running: exit 1.
class OrtError extends Error {}

// safetensors dtype <-> ORT tensor type. The typed arrays already match (see safetensors.js):
// ORT wants BigInt64Array for int64, Uint16Array for float16 and Uint8Array for bool.
const kOrtTypeOfDtype = {
  F64: 'float64',
  F32: 'float32',
  F16: 'float16',
  I64: 'int64',
  U64: 'uint64',
  I32: 'int32',
  U32: 'uint32',
  I16: 'int16',
  U16: 'uint16',
  I8: 'int8',
  U8: 'uint8',
  BOOL: 'bool',
};
const kDtypeOfOrtType = Object.fromEntries(Object.entries(kOrtTypeOfDtype).map(([d, t]) => [t, d]));

function loadOrt() {
  try {
    return require('onnxruntime-node');
  } catch (e) {
    throw new UsageError(`cannot load onnxruntime-node (run scripts/install-deps.sh): ${e.message}`);
  }
}

// Runs ORT's promise and turns whatever it throws into an OrtError with ORT's own message.
async function callOrt(what) {
  try {
    return await what();
  } catch (e) {
    throw new OrtError(e && e.message !== undefined ? e.message : String(e));
  }
}

function requireFile(file, what) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    throw new UsageError(`${what} ${file} does not exist`);
  }
  if (!stat.isFile()) throw new UsageError(`${what} ${file} is not a file`);
}

// Parses `argv` with util.parseArgs; unknown options and missing values become UsageErrors.
function parseCli(argv, options, usage) {
  let parsed;
  try {
    parsed = parseArgs({args: argv, options: {...options, help: {type: 'boolean'}}, strict: true});
  } catch (e) {
    throw new UsageError(`${e.message}\n${usage}`);
  }
  if (parsed.values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return parsed.values;
}

// Parses an integer option >= min; absent gives `fallback`.
function parseInteger(text, flag, fallback, min) {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be an integer >= ${min}, got '${text}'`);
  return n;
}

// ORT's graph optimization levels, by the names onnxruntime-node takes.
const kOptimizationLevels = ['disabled', 'basic', 'extended', 'all'];

// Parses --optimization (default 'all').
function parseOptimization(text) {
  if (text === undefined) return 'all';
  if (!kOptimizationLevels.includes(text)) {
    throw new UsageError(`--optimization must be one of ${kOptimizationLevels.join(', ')}, got '${text}'`);
  }
  return text;
}

// Loads the model by path so ORT resolves external data files beside it; `externalDataDir`
// resolves them from another directory instead (a rewritten copy of a model, written
// elsewhere: ORT refuses data reached through symlinks that leave the model's directory).
// Graph optimization level 'all' by default (ORT's default for its own tools and the setting
// production deployments use) so the reference numbers and timings are what users of ORT get;
// wnn validate also runs 'disabled', to measure how much ORT's own answer moves (the noise
// floor). One inter-op thread and sequential execution: the only parallelism is `threads`
// inside each kernel. ORT's own logger is silenced below fatal because its error text reaches
// stderr through us instead.
async function createSession(ort, model, {threads = 1, optimization = 'all', externalDataDir} = {}) {
  requireFile(model, 'model');
  const options = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: optimization,
    logSeverityLevel: 4,
  };
  if (externalDataDir !== undefined) {
    let stat;
    try {
      stat = fs.statSync(externalDataDir);
    } catch (e) {
      throw new UsageError(`external data directory ${externalDataDir} does not exist`);
    }
    if (!stat.isDirectory()) throw new UsageError(`external data directory ${externalDataDir} is not a directory`);
    options.extra = {session: {model_external_initializers_file_folder_path: externalDataDir}};
  }
  return callOrt(() => ort.InferenceSession.create(model, options));
}

// Reads the inputs file into ORT feeds keyed by tensor name. Every tensor in the file is fed;
// a name the model lacks or a missing input is reported by ORT itself.
function readFeeds(ort, file) {
  requireFile(file, 'inputs file');
  let tensors;
  try {
    tensors = readSafetensors(file);
  } catch (e) {
    if (e instanceof SafetensorsError) throw new UsageError(e.message);
    throw e;
  }
  const feeds = {};
  for (const [name, {dtype, shape, data}] of tensors) {
    feeds[name] = new ort.Tensor(kOrtTypeOfDtype[dtype], data, shape);
  }
  return feeds;
}

// Turns ORT output tensors into safetensors entries, in `names` order.
function outputsToEntries(results, names) {
  return names.map((name) => {
    const value = results[name];
    const dtype = kDtypeOfOrtType[value.type];
    if (!dtype) throw new OrtError(`output '${name}' has type ${value.type}, which safetensors cannot hold`);
    let data = value.data;
    // Guard against a future ORT returning Float16Array: keep the raw bits.
    if (value.type === 'float16' && !(data instanceof Uint16Array)) {
      data = new Uint16Array(data.buffer, data.byteOffset, data.length);
    }
    return [name, {dtype, shape: Array.from(value.dims), data}];
  });
}

// Runs `main` and maps its failure to the exit-code contract above.
function runMain(main) {
  main(process.argv.slice(2)).then(
      () => process.exit(0),
      (e) => {
        const code = e instanceof OrtError ? 1 : e instanceof UsageError ? 2 : 3;
        const bug = code === 3 ? 'internal error (a bug in ort-reference): ' : '';
        process.stderr.write(`${kProgram}: ${bug}${code === 3 && e.stack ? e.stack : e.message}\n`);
        process.exit(code);
      });
}

module.exports = {
  OrtError,
  UsageError,
  callOrt,
  createSession,
  kDtypeOfOrtType,
  kOrtTypeOfDtype,
  loadOrt,
  outputsToEntries,
  parseCli,
  parseInteger,
  parseOptimization,
  readFeeds,
  runMain,
};
