'use strict';
// The W3C WebNN API (navigator.ml) over the wnn addon. Every MLGraphBuilder operator method and
// its option dictionary come from wnn's operator table (addon.schemas()): this file names no
// operator except the four whose IDL result is a sequence (see SEQUENCE_RESULTS).
//
// Timeline: writeTensor, dispatch and readTensor run in the order they are called on a context,
// through one promise chain; dispatch runs on a worker thread (Node-API async work). When nothing
// is pending on the context, a step runs at once instead: writeTensor copies, readTensor resolves
// with the data, and a graph whose last run took less than INLINE_RUN_NS runs on the calling
// thread, since handing it to a worker and back costs more than the run (bench/js_dispatch.mjs).

const native = require('./native');

const SCHEMAS = native.schemas();
const DATA_TYPES = new Map(native.dataTypes().map((t) => [t.name, t.bytes]));
// The IDL operators that return sequence<MLOperand>; every other operator returns one MLOperand.
// tests/idl.test.mjs checks this against the spec's IDL.
const SEQUENCE_RESULTS = new Set(['split', 'gru', 'lstm', 'lstmCell']);
const POWER_PREFERENCES = ['default', 'high-performance', 'low-power'];

const kInternal = Symbol('wnn.internal');
// Graphs that ran faster than this run inline when the context is idle (see the Timeline note).
const INLINE_RUN_NS = 50e3;
let defaultBackend = process.env.WNN_BACKEND || 'auto';
let defaultThreads = Number(process.env.WNN_THREADS || 1);

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
    const t = this[kInternal];
    t.destroyed = true;
    t.bytes = null;
  }
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
  return t;
}

// ---- MLGraph ----

const graphRegistry = new FinalizationRegistry((handle) => native.destroyGraph(handle));

class MLGraph {
  constructor() {
    illegalConstructor();
  }
  destroy() {
    const g = this[kInternal];
    if (g.destroyed) return;
    g.destroyed = true;
    native.destroyGraph(g.handle);
    graphRegistry.unregister(this);
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
    const src = bytesOf(inputData, 'createConstantTensor');
    if (src.byteLength !== byteLength(desc)) {
      throw new TypeError(`createConstantTensor: the data has ${src.byteLength} bytes, the descriptor needs ${byteLength(desc)}`);
    }
    const t = makeTensor(this, desc, { constant: true });
    t[kInternal].bytes.set(src);
    return t;
  }

  writeTensor(tensor, inputData) {
    const c = liveContext(this);
    const t = tensorOf(this, tensor, 'writeTensor');
    if (!t.writable) throw new TypeError('writeTensor: the tensor is not writable');
    const src = bytesOf(inputData, 'writeTensor');
    if (src.byteLength !== t.bytes.byteLength) {
      throw new TypeError(`writeTensor: the data has ${src.byteLength} bytes, the tensor has ${t.bytes.byteLength}`);
    }
    if (c.pending === 0) {
      t.bytes.set(src);
      return;
    }
    const copy = src.slice();  // the caller may change its buffer after this returns
    enqueue(c, () => {
      if (t.bytes) t.bytes.set(copy);
    });
  }

  readTensor(tensor, outputData) {
    let c, t, dst;
    try {
      c = liveContext(this);
      t = tensorOf(this, tensor, 'readTensor');
      if (!t.readable) throw new TypeError('readTensor: the tensor is not readable');
      if (outputData !== undefined) {
        dst = bytesOf(outputData, 'readTensor');
        if (dst.byteLength < t.bytes.byteLength) {
          throw new TypeError(`readTensor: the buffer has ${dst.byteLength} bytes, the tensor has ${t.bytes.byteLength}`);
        }
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
    if (c.pending === 0 && g.lastRunNs < INLINE_RUN_NS) {
      try {
        g.lastRunNs = native.dispatch(...args(), true);
      } catch (e) {
        c.lastError = convertError(e);
      }
      return;
    }
    enqueue(c, () => {
      if (g.destroyed) throw domError('InvalidStateError', 'dispatch: the graph was destroyed');
      for (const [, t] of [...ins, ...outs]) {
        if (!t.bytes) throw domError('InvalidStateError', 'dispatch: a tensor was destroyed');
      }
      return native.dispatch(...args(), false).then((ns) => {
        g.lastRunNs = ns;
      }, (e) => {
        throw convertError(e);
      });
    }, true);
  }

  destroy() {
    const c = this[kInternal];
    if (c.destroyed) return;
    c.destroyed = true;
    c.resolveLost({ message: 'the context was destroyed' });
  }
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

// Queues fn after every earlier timeline step. A failed dispatch does not stop later steps;
// its error is reported on the console's behalf through the returned promise only for reads.
function enqueue(c, fn, background = false) {
  ++c.pending;
  const p = c.queue.then(fn);
  c.queue = p.then(() => {
    --c.pending;
  }, (e) => {
    --c.pending;
    if (background) c.lastError = e;
  });
  return p;
}

function supportLimits() {
  const all = [...DATA_TYPES.keys()];
  const limits = {
    preferredInputLayout: 'nchw',
    maxTensorByteLength: Number.MAX_SAFE_INTEGER,
    input: { dataTypes: all, rankRange: { min: 0, max: 8 } },
    constant: { dataTypes: all, rankRange: { min: 0, max: 8 } },
    output: { dataTypes: all, rankRange: { min: 0, max: 8 } },
  };
  for (const s of SCHEMAS) {
    const op = {};
    for (const p of [...s.args, ...s.options]) {
      if (p.kind === 'operand' || p.kind === 'operand list') {
        op[p.name] = { dataTypes: p.dataTypes, rankRange: { min: 0, max: 8 } };
      }
    }
    op.output = { dataTypes: all, rankRange: { min: 0, max: 8 } };
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

  constant(a, b) {
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
    const bytes = bytesOf(b, 'constant');
    if (bytes.byteLength !== byteLength(desc)) {
      throw new TypeError(`constant: the buffer has ${bytes.byteLength} bytes, the descriptor needs ${byteLength(desc)}`);
    }
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
    // lastRunNs: the last run's time; the first dispatch runs on a worker and measures it.
    g[kInternal] = { context: b.context, handle, info: native.graphInfo(handle), destroyed: false,
      lastRunNs: Infinity };
    graphRegistry.register(g, handle, g);
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
    const out = {};
    for (const k of Object.keys(value)) out[k] = toNative(builder, value[k], what);
    return out;
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
    const pp = options.powerPreference === undefined ? 'default' : String(options.powerPreference);
    if (!POWER_PREFERENCES.includes(pp)) {
      throw new TypeError(`createContext: '${pp}' is not a valid value for enumeration MLPowerPreference`);
    }
    const ctx = Object.create(MLContext.prototype);
    let resolveLost;
    const lost = new Promise((r) => { resolveLost = r; });
    ctx[kInternal] = {
      backend: defaultBackend, threads: defaultThreads, queue: Promise.resolve(), pending: 0,
      destroyed: false,
      lost, resolveLost, limits: null,
    };
    return ctx;
  }
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
  // For tools/wpt-vectors.mjs: the WPT tolerance of a graph output and WPT's float16 rounding.
  conformance: {
    tolerance: (graph, name) => native.tolerance(graph[kInternal].handle, name),
    toHalf: (f32) => native.wptToHalf(f32),
    tensor: (operandJson) => native.wptTensor(operandJson),
    compare: (dataType, shape, bytes, expectedJson, tol) =>
      native.wptCompare(dataType, shape, bytes, expectedJson, tol),
  },
};
