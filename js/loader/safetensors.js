// Safetensors archives, read the way wnn's src/wnn/format/safetensors_reader.cc reads them
// (docs/formats.md, "Reading Safetensors"): the whole header is validated before any tensor is
// handed out, and loading a constant checks the stored tensor against the declared one.

import { LoaderError } from './graph.js';
import { parseJson } from './json_value.js';
import { elementCount, isFourBit } from './dtypes.js';

const MAX_HEADER = 100000000;
const MAX_RANK = 8;
const MAX_ELEMENTS = 2 ** 48;
export const PACKED4_KEY = 'rustnn.webnn.packed4';
export const STORED_SIZES = { F32: 4, F16: 2, BF16: 2, I32: 4, U32: 4, I64: 8, U64: 8, I8: 1, U8: 1, BOOL: 1 };

// What a declared data type may be stored as (besides the 4-bit rule).
const ACCEPTS = {
  float32: ['F32', 'BF16'], float16: ['F16'], int32: ['I32'], uint32: ['U32'], int64: ['I64'],
  uint64: ['U64'], int8: ['I8'], uint8: ['U8', 'BOOL'],
};

// A plain Uint8Array over the file (a Node Buffer becomes a plain view, so slice() copies).
function asBytes(source, what) {
  if (source instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && source instanceof SharedArrayBuffer)) {
    return new Uint8Array(source);
  }
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  throw new LoaderError(`${what}: expected an ArrayBuffer or a typed array`);
}

// The rustnn/pywebnn lookup form of a key: '::' -> '__', '.' -> '_'.
function rewrittenKey(key) {
  return key.split('::').join('__').split('.').join('_');
}

export class SafetensorsArchive {
  // `source`: ArrayBuffer or a view of the whole file; `file` names it in messages.
  constructor(source, file = 'weights.safetensors') {
    const bytes = asBytes(source, file);
    this.file = file;
    const fail = (m) => {
      throw new LoaderError(`${file}: ${m}`);
    };
    if (bytes.length < 8) fail(`the file has ${bytes.length} bytes, shorter than the 8-byte header length`);
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const headerLength = dv.getBigUint64(0, true);
    if (headerLength > BigInt(MAX_HEADER)) fail(`header length ${headerLength} is above the limit of ${MAX_HEADER} bytes`);
    const n = Number(headerLength);
    if (8 + n > bytes.length) fail(`header length ${n} runs past the end of the file (${bytes.length} bytes): the file is truncated`);
    const doc = parseJson(bytes.subarray(8, 8 + n), `${file} header`, 8);
    if (doc.k !== 'object') fail('the header is not a JSON object');
    const data = bytes.subarray(8 + n);
    this.data = data;
    this.metadata = {};
    this.tensors = new Map();
    const seen = new Set();
    for (const [key, entry] of doc.v) {
      if (seen.has(key)) fail(`the header declares '${key}' twice`);
      seen.add(key);
      if (key === '__metadata__') {
        if (entry.k !== 'object') fail('__metadata__ is not an object');
        for (const [mk, mv] of entry.v) {
          if (mv.k !== 'string') fail(`__metadata__ '${mk}' is not a string`);
          this.metadata[mk] = mv.v;
        }
        continue;
      }
      const at = `tensor '${key}'`;
      if (entry.k !== 'object') fail(`${at} is not an object`);
      const m = new Map(entry.v);
      for (const f of ['dtype', 'shape', 'data_offsets']) if (!m.has(f)) fail(`${at} lacks "${f}"`);
      const dtype = m.get('dtype');
      if (dtype.k !== 'string' || !Object.hasOwn(STORED_SIZES, dtype.v)) {
        fail(`${at} has dtype ${dtype.k === 'string' ? `'${dtype.v}'` : 'that is not a string'} (wnn reads ${Object.keys(STORED_SIZES).join(', ')})`);
      }
      const shapeV = m.get('shape');
      if (shapeV.k !== 'list' || shapeV.v.some((d) => d.k !== 'int' || d.v < 0n)) fail(`${at}: shape is not a list of non-negative integers`);
      if (shapeV.v.length > MAX_RANK) fail(`${at}: rank ${shapeV.v.length} is above ${MAX_RANK}`);
      let count = 1n;
      for (const d of shapeV.v) {
        count *= d.v;
        if (count > BigInt(MAX_ELEMENTS)) fail(`${at}: more than 2^48 elements`);
      }
      const off = m.get('data_offsets');
      if (off.k !== 'list' || off.v.length !== 2 || off.v.some((d) => d.k !== 'int' || d.v < 0n)) {
        fail(`${at}: data_offsets is not [begin, end]`);
      }
      const [begin, end] = off.v.map((d) => d.v);
      if (!(begin <= end && end <= BigInt(data.length))) {
        fail(`${at}: data_offsets [${begin}, ${end}] are out of range (the data region has ${data.length} bytes)`);
      }
      const want = count * BigInt(STORED_SIZES[dtype.v]);
      if (end - begin !== want) {
        fail(`${at}: data_offsets give ${end - begin} bytes, ${dtype.v}[${shapeV.v.map((d) => d.v).join(', ')}] needs ${want}`);
      }
      this.tensors.set(key, { key, dtype: dtype.v, shape: shapeV.v.map((d) => Number(d.v)), begin: Number(begin), end: Number(end) });
    }
    const sorted = [...this.tensors.values()].filter((t) => t.end > t.begin).sort((a, b) => a.begin - b.begin);
    for (let i = 1; i < sorted.length; ++i) {
      if (sorted[i].begin < sorted[i - 1].end) fail(`tensors '${sorted[i - 1].key}' and '${sorted[i].key}' overlap`);
    }
    this.rewritten = new Map();
    for (const key of this.tensors.keys()) {
      const r = rewrittenKey(key);
      if (!this.rewritten.has(r)) this.rewritten.set(r, []);
      this.rewritten.get(r).push(key);
    }
  }

  // The stored entry for `key`: the exact key, else the rewritten form (unambiguous only).
  find(key) {
    if (this.tensors.has(key)) return this.tensors.get(key);
    const keys = this.rewritten.get(rewrittenKey(key)) || [];
    if (keys.length > 1) {
      throw new LoaderError(`${this.file}: key '${key}' matches ${keys.map((k) => `'${k}'`).join(' and ')} after rewriting '::' and '.'; the lookup is ambiguous`);
    }
    return keys.length ? this.tensors.get(keys[0]) : null;
  }

  // The bytes of a constant declared {dataType, shape} under `key`, in the storage form the
  // file forms use: int4/uint4 packed two per byte (element 0 in the low nibble), the rest
  // little-endian one element after another; BF16 is widened to float32.
  load(key, { dataType, shape }, what = `constant '${key}'`) {
    const t = this.find(key);
    const fail = (m) => {
      throw new LoaderError(`${this.file}: ${what}: ${m}`);
    };
    if (!t) fail(`no tensor '${key}' in the weights file`);
    const n = elementCount(shape);
    const bytes = this.data.subarray(t.begin, t.end);
    if (isFourBit(dataType)) {
      const marker = this.metadata[PACKED4_KEY];
      if (marker === undefined) fail(`a ${dataType} constant needs the packed 4-bit marker "${PACKED4_KEY}": "1" in __metadata__`);
      if (marker !== '1') fail(`unknown packed 4-bit version '${marker}' (wnn reads 1)`);
      if (t.dtype !== 'U8') fail(`a ${dataType} constant is stored as U8, got ${t.dtype}`);
      const packed = Math.ceil(n / 2);
      if (t.shape.length !== 1 || t.shape[0] !== packed) {
        fail(`${dataType}[${shape.join(', ')}] is stored packed as U8[${packed}], got U8[${t.shape.join(', ')}]`);
      }
      return bytes.slice();
    }
    if (!ACCEPTS[dataType].includes(t.dtype)) fail(`declared ${dataType}, stored as ${t.dtype}`);
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
      fail(`declared shape [${shape.join(', ')}], stored shape [${t.shape.join(', ')}]`);
    }
    if (t.dtype === 'BF16') {
      const out = new Uint8Array(n * 4);
      for (let i = 0; i < n; ++i) {
        out[4 * i + 2] = bytes[2 * i];
        out[4 * i + 3] = bytes[2 * i + 1];
      }
      return out;
    }
    return bytes.slice();
  }
}

