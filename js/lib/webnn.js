'use strict';
// The W3C WebNN API (navigator.ml) over the wnn addon. Every MLGraphBuilder operator method and
// its option dictionary come from wnn's operator table (addon.schemas()): this file names no
// operator except the four whose IDL result is a sequence (see SEQUENCE_RESULTS).
//
// Timeline: writeTensor, dispatch and readTensor run in the order they are called on a context,
// through one promise chain; build and dispatch run on the addon's dispatch thread. When nothing
// is pending on the context, a step runs at once instead: writeTensor copies, readTensor resolves
// with the data, and a graph whose runs take less than INLINE_RUN_NS runs on the calling
// thread, since handing it to a worker and back costs more than the run (bench/js_dispatch.mjs).

const native = require('./native');

const SCHEMAS = native.schemas();
// The MLOperandDataType values: the spec's, and the two 4-bit types that Chromium and the WPT
// vectors use but the spec's IDL does not have yet (declared as wnn's extension in the module's
// `extensions`, so a test can tell them from a mistake). Any further wnn type stays out.
const SPEC_DATA_TYPES = ['float32', 'float16', 'int32', 'uint32', 'int64', 'uint64', 'int8', 'uint8'];
const EXTENSION_DATA_TYPES = ['int4', 'uint4'];
const DATA_TYPES = new Map(native.dataTypes()
  .filter((t) => SPEC_DATA_TYPES.includes(t.name) || EXTENSION_DATA_TYPES.includes(t.name))
  .map((t) => [t.name, t.bytes]));
// The IDL operators that return sequence<MLOperand>, with the names their MLXxxSupportLimits
// give the outputs; every other operator returns one MLOperand, limited as `output`.
// test/idl.test.mjs checks this against the spec's IDL.
const SEQUENCE_RESULTS = new Map([
  ['split', ['outputs']],
  ['gru', ['output0', 'output1']],
  ['lstm', ['output0', 'output1', 'output2']],
  ['lstmCell', ['output0', 'output1']],
]);
const POWER_PREFERENCES = ['default', 'high-performance', 'low-power'];

const kInternal = Symbol('wnn.internal');
// Graphs that ran faster than this run inline when the context is idle (see the Timeline note).
// Known limit: one whose kernels run on several threads would make the main thread a second
// OpenMP master, and libgomp stops spinning once two teams outnumber the CPUs (addon.cc
// DispatchThread). Kernels estimated under 20 us run on one thread; docs/benchmarks.md, "one
// OpenMP team", says what is left.
const INLINE_RUN_NS = 50e3;
let defaultBackend = process.env.WNN_BACKEND || 'auto';
let defaultThreads = Number(process.env.WNN_THREADS || 1);
// The largest ArrayBuffer this Node allocates (buffer.constants.MAX_LENGTH, by version and
// platform): every tensor's bytes live in one.
const MAX_BYTE_LENGTH = (() => {
  const { constants } = require('buffer');
  return constants.MAX_LENGTH;
})();

function domError(name, message) {
  return new DOMException(message, name);
}

// A native error as the spec's exception: TypeError stays; others become DOMExceptions.
function convertError(e) {
  if (!(e instanceof Error) || e instanceof TypeError || e instanceof DOMException) return e;
  return domError(e.name && e.name !== 'Error' ? e.name : 'OperationError', e.message);
}

function callNative(fn, ...args) {
  try {
    return fn(...args);
  } catch (e) {
    throw convertError(e);
  }
}

function illegalConstructor() {
  throw new TypeError('Illegal constructor');
}

function checkDataType(dataType, what) {
  if (typeof dataType !== 'string' || !DATA_TYPES.has(dataType)) {
    throw new TypeError(`${what}: '${dataType}' is not a valid value for enumeration MLOperandDataType`);
  }
  return dataType;
}

function checkDescriptor(desc, what) {
  if (desc === null || typeof desc !== 'object') {
    throw new TypeError(`${what}: the descriptor must be an object`);
  }
  checkDataType(desc.dataType, what);
  if (desc.shape === undefined) throw new TypeError(`${what}: required member shape is undefined`);
  if (typeof desc.shape[Symbol.iterator] !== 'function') {
    throw new TypeError(`${what}: shape must be a sequence`);
  }
  const shape = [...desc.shape].map((d) => {
    const n = Number(d);
    // [EnforceRange] unsigned long.
    if (!Number.isFinite(n) || Math.trunc(n) < 0 || Math.trunc(n) > 0xffffffff) {
      throw new TypeError(`${what}: shape value ${d} is outside the unsigned long range`);
    }
    return Math.trunc(n);
  });
  return { dataType: desc.dataType, shape };
}

function byteLength(desc) {
  return desc.shape.reduce((a, b) => a * b, 1) * DATA_TYPES.get(desc.dataType);
}

// The spec's table of the ArrayBufferView types matching each data type (a Uint8Array matches
// every type). Node has no Float16Array yet; the spec allows its raw bits in a Uint16Array.
const VIEW_TYPES = {
  float32: ['Float32Array'], float16: ['Float16Array', 'Uint16Array'], int32: ['Int32Array'],
  uint32: ['Uint32Array'], int64: ['BigInt64Array'], uint64: ['BigUint64Array'], int8: ['Int8Array'],
  uint8: ['Uint8Array'], int4: ['Int8Array'], uint4: ['Uint8Array'],
};

// "Validate buffer with descriptor": the bytes of `source` when its byte length equals the
// descriptor's and a view's type matches the data type; a TypeError otherwise.
function bufferFor(source, desc, what) {
  const bytes = bytesOf(source, what);
  if (bytes.byteLength !== byteLength(desc)) {
    throw new TypeError(`${what}: the buffer has ${bytes.byteLength} bytes, ${desc.dataType}[${desc.shape}] needs ${byteLength(desc)}`);
  }
  if (ArrayBuffer.isView(source) && !(source instanceof Uint8Array && source.constructor === Uint8Array)) {
    const type = source.constructor.name;
    if (!VIEW_TYPES[desc.dataType].includes(type)) {
      throw new TypeError(`${what}: a ${type} does not match data type ${desc.dataType} (use ${VIEW_TYPES[desc.dataType].join(' or ')} or Uint8Array)`);
    }
  }
  return bytes;
}

function bytesOf(source, what) {
  if (source instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && source instanceof SharedArrayBuffer)) {
    return new Uint8Array(source);
  }
  if (ArrayBuffer.isView(source)) {
    return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  }
  throw new TypeError(`${what}: expected an ArrayBuffer or ArrayBufferView`);
}

// ---- MLOperand ----

class MLOperand {
  constructor() {
    illegalConstructor();
  }
  get dataType() {
    return this[kInternal].dataType;
  }
  get shape() {
    return this[kInternal].shape;
  }
}

function makeOperand(builder, d) {
  const o = Object.create(MLOperand.prototype);
  o[kInternal] = { builder, id: d.id, dataType: d.dataType, shape: Object.freeze(d.shape) };
  return o;
}

// ---- MLTensor ----

class MLTensor {
  constructor() {
    illegalConstructor();
  }
  get dataType() {
    return this[kInternal].desc.dataType;
  }
  get shape() {
    return this[kInternal].desc.shape;
  }
  get readable() {
    return this[kInternal].readable;
  }
  get writable() {
    return this[kInternal].writable;
  }
  get constant() {
    return this[kInternal].constant;
  }
  destroy() {
    destroyTensor(this[kInternal]);
  }
}

function destroyTensor(t) {
  t.destroyed = true;
  t.bytes = null;
  t.context[kInternal].tensors.delete(t);
}

function makeTensor(context, desc, { readable, writable, constant }) {
  const t = Object.create(MLTensor.prototype);
  t[kInternal] = {
    context,
    desc: { dataType: desc.dataType, shape: Object.freeze(desc.shape) },
    readable: !!readable,
    writable: !!writable,
    constant: !!constant,
    bytes: new Uint8Array(byteLength(desc)),
    destroyed: false,
  };
  context[kInternal].tensors.add(t[kInternal]);
  tensorRegistry.register(t, t[kInternal]);
  return t;
}

// ---- MLGraph ----

// A graph's record is shared by the graph object, the context (which destroys its graphs when
// it is lost) and the GC registry (a graph the program dropped is released the same way).
// Release takes effect at once for new dispatches; the session is freed on the context's
// timeline, after the dispatches queued before it ("mark resources freeable").
function releaseGraph(g) {
  if (g.destroyed) return;
  g.destroyed = true;
  const c = g.context[kInternal];
  c.graphs.delete(g);
  enqueue(c, () => native.destroyGraph(g.handle), true);
}
const graphRegistry = new FinalizationRegistry(releaseGraph);
// A dropped tensor leaves its context's list (its bytes are JS memory).
const tensorRegistry = new FinalizationRegistry((t) => t.context[kInternal].tensors.delete(t));

class MLGraph {
  constructor() {
    illegalConstructor();
  }
  destroy() {
    const g = this[kInternal];
    releaseGraph(g);
    graphRegistry.unregister(g);
  }
}

// ---- MLContext ----

class MLContext {
  constructor() {
    illegalConstructor();
  }

  get accelerated() {
    return false;
  }
  get lost() {
    return this[kInternal].lost;
  }

  opSupportLimits() {
    const c = this[kInternal];
    if (!c.limits) c.limits = supportLimits();
    return structuredClone(c.limits);
  }

  async createTensor(descriptor) {
    const c = liveContext(this);
    const desc = checkDescriptor(descriptor, 'createTensor');
    return makeTensor(this, desc, { readable: descriptor.readable, writable: descriptor.writable });
  }

  async createConstantTensor(descriptor, inputData) {
    liveContext(this);
    const desc = checkDescriptor(descriptor, 'createConstantTensor');
    const src = bufferFor(inputData, desc, 'createConstantTensor');
    const t = makeTensor(this, desc, { constant: true });
    t[kInternal].bytes.set(src);
    return t;
  }

  writeTensor(tensor, inputData) {
    const c = liveContext(this);
    const t = tensorOf(this, tensor, 'writeTensor');
    if (!t.writable) throw new TypeError('writeTensor: the tensor is not writable');
    const src = bufferFor(inputData, t.desc, 'writeTensor');
    if (c.pending === 0) {
      t.bytes.set(src);
      return;
    }
    const copy = src.slice();  // the caller may change its buffer after this returns
    enqueue(c, () => {
      if (t.bytes) t.bytes.set(copy);
    });
  }

  // readTensor(tensor) and readTensor(tensor, outputData): two IDL overloads, so length 1.
  readTensor(tensor, ...rest) {
    const outputData = rest[0];
    let c, t, dst;
    try {
      c = liveContext(this);
      t = tensorOf(this, tensor, 'readTensor');
      if (!t.readable) throw new TypeError('readTensor: the tensor is not readable');
      if (outputData !== undefined) {
        dst = bufferFor(outputData, t.desc, 'readTensor');
      }
    } catch (e) {
      return Promise.reject(e);
    }
    const read = () => {
      if (!t.bytes) throw domError('InvalidStateError', 'readTensor: the tensor was destroyed');
      if (dst) {
        dst.set(t.bytes);
        return undefined;
      }
      return t.bytes.slice().buffer;
    };
    if (c.pending === 0) {
      try {
        return Promise.resolve(read());
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return enqueue(c, read);
  }

  dispatch(graph, inputs, outputs) {
    const c = liveContext(this);
    if (!(graph instanceof MLGraph) || graph[kInternal].context !== this) {
      throw new TypeError('dispatch: the graph was not built on this context');
    }
    const g = graph[kInternal];
    if (g.destroyed) throw domError('InvalidStateError', 'dispatch: the graph was destroyed');
    const seen = new Set();
    const collect = (record, descs, what) => {
      if (record === null || typeof record !== 'object') throw new TypeError(`dispatch: ${what} must be a record`);
      const names = Object.keys(record);
      const want = Object.keys(descs);
      if (names.length !== want.length) {
        throw new TypeError(`dispatch: ${names.length} ${what} given, the graph has ${want.length} (${want.join(', ')})`);
      }
      return names.map((name) => {
        const d = descs[name];
        if (!d) throw new TypeError(`dispatch: the graph has no ${what.slice(0, -1)} '${name}'`);
        const t = tensorOf(this, record[name], `dispatch ${what.slice(0, -1)} '${name}'`);
        if (t.constant) throw new TypeError(`dispatch: ${what.slice(0, -1)} '${name}' is a constant tensor`);
        if (t.desc.dataType !== d.dataType || t.desc.shape.length !== d.shape.length ||
            t.desc.shape.some((v, i) => v !== d.shape[i])) {
          throw new TypeError(`dispatch: ${what.slice(0, -1)} '${name}' is ${t.desc.dataType}[${t.desc.shape}], the graph expects ${d.dataType}[${d.shape}]`);
        }
        if (seen.has(t)) throw new TypeError(`dispatch: tensor for '${name}' is used twice`);
        seen.add(t);
        return [name, t];
      });
    };
    const ins = collect(inputs, g.info.inputs, 'inputs');
    const outs = collect(outputs, g.info.outputs, 'outputs');
    const handle = g.handle;
    const args = () => [handle, ins.map(([n, t]) => [n, t.bytes]), outs.map(([n, t]) => [n, t.bytes])];
    if (c.pending === 0 && g.runNs < INLINE_RUN_NS) {
      try {
        noteRunTime(g, native.dispatch(...args(), true));
      } catch (e) {
        c.lastError = convertError(e);
      }
      return;
    }
    enqueue(c, () => {
      if (c.destroyed) throw domError('InvalidStateError', 'dispatch: the context was lost');
      for (const [, t] of [...ins, ...outs]) {
        if (!t.bytes) throw domError('InvalidStateError', 'dispatch: a tensor was destroyed');
      }
      return native.dispatch(...args(), false).then((ns) => noteRunTime(g, ns), (e) => {
        throw convertError(e);
      });
    }, true);
  }

  // "Lose" the context: resolve `lost`, then destroy its graphs and tensors.
  destroy() {
    const c = this[kInternal];
    if (c.destroyed) return;
    c.destroyed = true;
    c.resolveLost({ message: 'the context was destroyed' });
    for (const g of [...c.graphs]) releaseGraph(g);
    for (const t of [...c.tensors]) destroyTensor(t);
  }
}

// A moving average of the graph's run times (weight 1/8), so one run slowed by the scheduler
// does not send the following dispatches to the worker.
function noteRunTime(g, ns) {
  g.runNs = g.runNs === Infinity ? ns : g.runNs + (ns - g.runNs) / 8;
}

function liveContext(ctx) {
  const c = ctx[kInternal];
  if (c.destroyed) throw domError('InvalidStateError', 'the context was destroyed');
  return c;
}

function tensorOf(ctx, tensor, what) {
  if (!(tensor instanceof MLTensor)) throw new TypeError(`${what}: not an MLTensor`);
  const t = tensor[kInternal];
  if (t.context !== ctx) throw new TypeError(`${what}: the tensor belongs to another context`);
  if (t.destroyed) throw new TypeError(`${what}: the tensor was destroyed`);
  return t;
}

// Queues fn after every earlier timeline step and returns its promise. A failed step does not
// stop later ones. A background step (dispatch) has no promise for the caller: the spec gives
// dispatch no error channel (webnn issue 778), so its error is kept as lastError, never left
// as an unhandled rejection.
function enqueue(c, fn, background = false) {
  ++c.pending;
  const p = c.queue.then(fn);
  c.queue = p.then(() => {
    --c.pending;
  }, (e) => {
    --c.pending;
    if (background) c.lastError = e;
  });
  return background ? undefined : p;
}

// MLOpSupportLimits: per operator, one MLTensorLimits per operand argument or option (named as
// in the IDL, which the schema follows) and per output. The rank ranges are the schema's, which
// the builder checks before shape inference: the spec's tensor-limits tables, with "any rank"
// meaning up to MAX_RANK (the shape rules of each operator, checked at build time, narrow them
// further). An operand whose rank must equal another's reports that one's range.
const MAX_RANK = 8;
function supportLimits() {
  const all = [...DATA_TYPES.keys()];
  const tensorLimits = (dataTypes, rankRange = { min: 0, max: MAX_RANK }) => ({
    dataTypes: dataTypes.filter((t) => DATA_TYPES.has(t)),
    rankRange: { min: rankRange.min, max: rankRange.max },
  });
  const limits = {
    preferredInputLayout: 'nchw',
    // Tensors live in JS ArrayBuffers; this is the largest byte length V8 allows one.
    maxTensorByteLength: MAX_BYTE_LENGTH,
    input: tensorLimits(all),
    constant: tensorLimits(all),
    output: tensorLimits(all),
  };
  for (const s of SCHEMAS) {
    const op = {};
    const operands = [...s.args, ...s.options].filter((p) => p.kind === 'operand' || p.kind === 'operand list');
    const ranksOf = (p) => (p.sameRankAs ? operands.find((q) => q.name === p.sameRankAs).rankRange : p.rankRange);
    for (const p of operands) op[p.name] = tensorLimits(p.dataTypes, ranksOf(p));
    // An output's data type follows the first operand's unless an option chooses it.
    const chosen = s.options.some((p) => p.kind === 'data type');
    const outTypes = chosen || operands.length === 0 ? all : operands[0].dataTypes;
    const outputs = SEQUENCE_RESULTS.get(s.name) ?? ['output'];
    outputs.forEach((name, i) => {
      op[name] = tensorLimits(outTypes, s.outputRanks[Math.min(i, s.outputRanks.length - 1)]);
    });
    limits[s.name] = op;
  }
  return limits;
}

// ---- MLGraphBuilder ----

class MLGraphBuilder {
  constructor(context) {
    if (!(context instanceof MLContext)) {
      throw new TypeError("Failed to construct 'MLGraphBuilder': parameter 1 is not of type 'MLContext'");
    }
    liveContext(context);
    this[kInternal] = { context, handle: native.createBuilder(), built: false };
  }

  input(name, descriptor) {
    const b = liveBuilder(this);
    if (typeof name !== 'string') throw new TypeError('input: the name must be a string');
    if (name === '') throw new TypeError('input: the name must not be empty');
    const desc = checkDescriptor(descriptor, 'input');
    return makeOperand(this, callNative(native.input, b.handle, name, desc.dataType, desc.shape));
  }

  // The three IDL overloads: (descriptor, buffer), (dataType, value), (tensor); length 1.
  constant(a, ...rest) {
    const b = rest[0];
    const bl = liveBuilder(this);
    if (a instanceof MLTensor) {
      const t = a[kInternal];
      if (t.context !== bl.context) throw new TypeError('constant: the tensor belongs to another context');
      if (!t.constant) throw new TypeError('constant: the tensor was not created by createConstantTensor');
      if (t.destroyed) throw new TypeError('constant: the tensor was destroyed');
      return makeOperand(this, callNative(native.constant, bl.handle, t.desc.dataType, t.desc.shape, t.bytes));
    }
    if (typeof a === 'string') {
      // constant(dataType, value): a scalar.
      const dataType = checkDataType(a, 'constant');
      const bytes = new Uint8Array(DATA_TYPES.get(dataType));
      writeScalar(dataType, bytes, b);
      return makeOperand(this, callNative(native.constant, bl.handle, dataType, [], bytes));
    }
    const desc = checkDescriptor(a, 'constant');
    const bytes = bufferFor(b, desc, 'constant');
    return makeOperand(this, callNative(native.constant, bl.handle, desc.dataType, desc.shape, bytes));
  }

  async build(outputs) {
    const b = liveBuilder(this);
    if (outputs === null || typeof outputs !== 'object') throw new TypeError('build: outputs must be a record');
    const names = Object.keys(outputs);
    if (names.length === 0) throw new TypeError('build: at least one output is required');
    const pairs = names.map((name) => {
      const o = outputs[name];
      if (!(o instanceof MLOperand) || o[kInternal].builder !== this) {
        throw new TypeError(`build: output '${name}' is not an operand of this builder`);
      }
      return [name, o[kInternal].id];
    });
    b.built = true;
    let handle;
    try {
      handle = await native.build(b.handle, pairs, b.context[kInternal].backend, b.context[kInternal].threads);
    } catch (e) {
      throw convertError(e);
    }
    const g = Object.create(MLGraph.prototype);
    // runNs: the graph's run time (noteRunTime); the first dispatch runs on a worker and measures it.
    const record = { context: b.context, handle, info: native.graphInfo(handle), destroyed: false,
      runNs: Infinity };
    g[kInternal] = record;
    // The context may have been lost while the graph compiled: the graph is then born destroyed.
    if (b.context[kInternal].destroyed) releaseGraph(record);
    else {
      b.context[kInternal].graphs.add(record);
      graphRegistry.register(g, record, record);
    }
    return g;
  }
}

function liveBuilder(builder) {
  if (!(builder instanceof MLGraphBuilder)) throw new TypeError('Illegal invocation');
  const b = builder[kInternal];
  if (b.built) throw domError('InvalidStateError', 'MLGraphBuilder: build() was already called');
  liveContext(b.context);
  return b;
}

function writeScalar(dataType, bytes, value) {
  const dv = new DataView(bytes.buffer);
  const num = typeof value === 'bigint' ? Number(value) : Number(value);
  const big = () => (typeof value === 'bigint' ? value : BigInt(Math.trunc(num)));
  switch (dataType) {
    case 'float32': dv.setFloat32(0, num, true); break;
    case 'float16': bytes.set(new Uint8Array(native.wptToHalf(new Float32Array([num])).buffer)); break;
    case 'int32': dv.setInt32(0, num, true); break;
    case 'uint32': dv.setUint32(0, num, true); break;
    case 'int64': dv.setBigInt64(0, BigInt.asIntN(64, big()), true); break;
    case 'uint64': dv.setBigUint64(0, BigInt.asUintN(64, big()), true); break;
    case 'int8': dv.setInt8(0, num); break;
    default: dv.setUint8(0, num); break;
  }
}

// An argument for the native builder: operands become {$operand: id} after checking that they
// belong to this builder; sequences and dictionaries are converted member by member.
function toNative(builder, value, what) {
  if (value instanceof MLOperand) {
    if (value[kInternal].builder !== builder) {
      throw new TypeError(`${what}: the operand was created by another MLGraphBuilder`);
    }
    return { $operand: value[kInternal].id };
  }
  if (Array.isArray(value)) return value.map((v) => toNative(builder, v, what));
  if (ArrayBuffer.isView(value)) return Array.from(value, (v) => (typeof v === 'bigint' ? v : v));
  if (value !== null && typeof value === 'object') {
    if (typeof value[Symbol.iterator] === 'function') return [...value].map((v) => toNative(builder, v, what));
    // No operator argument or option is a dictionary; a plain object here is a caller's mistake
    // (and must not reach the addon, where {$operand} names an operand).
    throw new TypeError(`${what}: expected an MLOperand, a number, a string or a sequence, not an object`);
  }
  if (typeof value === 'symbol' || typeof value === 'function') {
    throw new TypeError(`${what}: a ${typeof value} is not a valid value`);
  }
  return value;
}

// One builder method per operator of wnn's table.
function defineOperator(schema) {
  const optionNames = schema.options.map((o) => o.name);
  const nargs = schema.args.length;
  const method = {
    [schema.name](...argv) {
      const b = liveBuilder(this);
      const what = schema.name;
      if (argv.length < nargs) {
        throw new TypeError(`${what}: ${nargs} arguments required, but only ${argv.length} present`);
      }
      const positional = argv.slice(0, nargs).map((v, i) => {
        const p = schema.args[i];
        if (p.kind === 'operand' && !(v instanceof MLOperand)) {
          throw new TypeError(`${what}: argument '${p.name}' is not an MLOperand`);
        }
        if (p.kind === 'operand list' && (v === null || typeof v !== 'object' || typeof v[Symbol.iterator] !== 'function')) {
          throw new TypeError(`${what}: argument '${p.name}' is not a sequence of MLOperand`);
        }
        return toNative(this, v, `${what} argument '${p.name}'`);
      });
      const given = argv[nargs];
      if (given !== undefined && given !== null && typeof given !== 'object') {
        throw new TypeError(`${what}: the options must be a dictionary`);
      }
      // WebIDL dictionaries ignore members they do not declare.
      const options = {};
      for (const name of optionNames) {
        if (given && given[name] !== undefined) options[name] = toNative(this, given[name], `${what} option '${name}'`);
      }
      const results = callNative(native.add, b.handle, schema.name, positional, options);
      const operands = results.map((d) => makeOperand(this, d));
      return SEQUENCE_RESULTS.has(schema.name) ? operands : operands[0];
    },
  }[schema.name];
  Object.defineProperty(method, 'length', { value: nargs });
  Object.defineProperty(MLGraphBuilder.prototype, schema.name, {
    value: method, writable: true, enumerable: true, configurable: true,
  });
}
for (const s of SCHEMAS) defineOperator(s);

// ---- ML ----

class ML {
  constructor() {
    illegalConstructor();
  }
  async createContext(options = {}) {
    if (options === null || typeof options !== 'object') throw new TypeError('createContext: options must be a dictionary');
    // A WebIDL dictionary reads its members in lexicographic order.
    const accelerated = options.accelerated === undefined ? true : Boolean(options.accelerated);
    const pp = options.powerPreference === undefined ? 'default' : String(options.powerPreference);
    if (!POWER_PREFERENCES.includes(pp)) {
      throw new TypeError(`createContext: '${pp}' is not a valid value for enumeration MLPowerPreference`);
    }
    // "Creating a context" fails when the backend chosen by setBackend() is not in this build.
    const backends = native.backends();
    if (!backends.includes(defaultBackend)) {
      throw domError('NotSupportedError', `createContext: backend '${defaultBackend}' is not in this build (${backends.join(', ')})`);
    }
    const ctx = Object.create(MLContext.prototype);
    let resolveLost;
    const lost = new Promise((r) => { resolveLost = r; });
    ctx[kInternal] = {
      backend: defaultBackend, threads: defaultThreads, queue: Promise.resolve(), pending: 0,
      destroyed: false, lost, resolveLost, limits: null, graphs: new Set(), tensors: new Set(),
      // wnn runs on the CPU: a context asked for acceleration gets none (the spec allows it).
      requestedAcceleration: accelerated,
    };
    return ctx;
  }
}

// WebIDL operations and attributes are enumerable properties of the prototype; class syntax
// makes them non-enumerable.
for (const cls of [ML, MLContext, MLGraph, MLGraphBuilder, MLOperand, MLTensor]) {
  for (const key of Object.getOwnPropertyNames(cls.prototype)) {
    if (key !== 'constructor') {
      Object.defineProperty(cls.prototype, key, { enumerable: true });
    }
  }
  Object.defineProperty(cls.prototype, Symbol.toStringTag, { value: cls.name, configurable: true });
}

const ml = Object.create(ML.prototype);

module.exports = {
  ml,
  MLContext, MLGraph, MLGraphBuilder, MLOperand, MLTensor, ML,
  // wnn's own controls (not navigator.ml): the backend contexts created from now on use.
  setBackend(backend, threads = 1) {
    defaultBackend = String(backend);
    defaultThreads = Number(threads);
  },
  schemas: SCHEMAS,
  // What wnn accepts beyond the spec's IDL (see EXTENSION_DATA_TYPES).
  extensions: Object.freeze({ dataTypes: Object.freeze([...EXTENSION_DATA_TYPES]) }),
  // For tests: the native sessions alive (graphs neither destroyed nor collected), the threads
  // that have compiled or run a graph off the main thread (one: the dispatch thread), and the
  // backend names setBackend() accepts.
  diagnostics: {
    liveGraphs: () => native.liveGraphs(),
    sessionThreads: () => native.sessionThreads(),
    backends: () => native.backends(),
    // The error of the context's last failed dispatch (the spec gives dispatch no error channel),
    // or null; tools check it after reading a dispatch's outputs.
    lastError: (context) => context[kInternal].lastError ?? null,
  },
  // For tools/wpt-vectors.mjs: the WPT tolerance of a graph output and WPT's float16 rounding.
  conformance: {
    tolerance: (graph, name) => native.tolerance(graph[kInternal].handle, name),
    toHalf: (f32) => native.wptToHalf(f32),
    tensor: (operandJson) => native.wptTensor(operandJson),
    compare: (dataType, shape, bytes, expectedJson, tol) =>
      native.wptCompare(dataType, shape, bytes, expectedJson, tol),
  },
};
