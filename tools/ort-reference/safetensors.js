'use strict';
// A small reader and writer for the safetensors format, the tensor file wnn and ort-reference
// exchange: an 8-byte little-endian header length, a JSON header that maps each name to
// {dtype, shape, data_offsets: [begin, end]} (offsets relative to the data section), then the
// raw little-endian data. There is no safetensors package on npm that this project pins, and the
// format is small enough to read directly.

const fs = require('fs');
const path = require('path');

// Each safetensors dtype with the typed array that holds its elements in JS. F16 has no native
// array in Node 20, so its raw bits travel in a Uint16Array (which is what onnxruntime-node
// 1.30 uses for float16 tensors too). BOOL is one byte per element.
const kDtypes = {
  F64: {array: Float64Array, size: 8},
  F32: {array: Float32Array, size: 4},
  F16: {array: Uint16Array, size: 2},
  I64: {array: BigInt64Array, size: 8},
  U64: {array: BigUint64Array, size: 8},
  I32: {array: Int32Array, size: 4},
  U32: {array: Uint32Array, size: 4},
  I16: {array: Int16Array, size: 2},
  U16: {array: Uint16Array, size: 2},
  I8: {array: Int8Array, size: 1},
  U8: {array: Uint8Array, size: 1},
  BOOL: {array: Uint8Array, size: 1},
};

// A malformed file or argument: the caller's input is wrong, not ONNX Runtime.
class SafetensorsError extends Error {}

function elementCount(shape) {
  return shape.reduce((n, d) => n * d, 1);
}

function isDimList(shape) {
  return Array.isArray(shape) && shape.every((d) => Number.isSafeInteger(d) && d >= 0);
}

// Reads every tensor of `file` into a Map name -> {dtype, shape, data}, in header order. Each
// data array is a copy: a tensor's offset in the file need not be aligned to its element size.
function readSafetensors(file) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new SafetensorsError(`cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  const fail = (what) => {
    throw new SafetensorsError(`${file}: ${what}`);
  };
  if (bytes.length < 8) fail(`file is ${bytes.length} bytes, shorter than the 8-byte header length`);
  const headerLength = bytes.readBigUInt64LE(0);
  if (headerLength > BigInt(bytes.length - 8)) {
    fail(`header length ${headerLength} runs past the end of the ${bytes.length}-byte file`);
  }
  const dataStart = 8 + Number(headerLength);
  let header;
  try {
    header = JSON.parse(bytes.toString('utf8', 8, dataStart));
  } catch (e) {
    fail(`header is not JSON: ${e.message}`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    fail('header is not a JSON object');
  }
  const dataLength = bytes.length - dataStart;
  const tensors = new Map();
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const where = `tensor '${name}'`;
    if (entry === null || typeof entry !== 'object') fail(`${where} is not an object`);
    const {dtype, shape, data_offsets: offsets} = entry;
    const info = kDtypes[dtype];
    if (!info) fail(`${where} has unsupported dtype ${JSON.stringify(dtype)}`);
    if (!isDimList(shape)) fail(`${where} has invalid shape ${JSON.stringify(shape)}`);
    if (!isDimList(offsets) || offsets.length !== 2 || offsets[0] > offsets[1] ||
        offsets[1] > dataLength) {
      fail(`${where} has data_offsets ${JSON.stringify(offsets)} outside the ${dataLength}-byte data`);
    }
    const count = elementCount(shape);
    if (offsets[1] - offsets[0] !== count * info.size) {
      fail(`${where} spans ${offsets[1] - offsets[0]} bytes but ${dtype} ${JSON.stringify(shape)} ` +
           `needs ${count * info.size}`);
    }
    const begin = bytes.byteOffset + dataStart + offsets[0];
    const data = new info.array(bytes.buffer.slice(begin, begin + count * info.size));
    tensors.set(name, {dtype, shape, data});
  }
  return tensors;
}

// Writes `tensors` (an iterable of [name, {dtype, shape, data}]) in the given order. The header
// is padded with spaces so the data section starts 8-byte aligned. Written to a temporary name
// in the same directory and renamed, so no reader sees half a file.
function writeSafetensors(file, tensors) {
  const header = {};
  const chunks = [];
  let offset = 0;
  for (const [name, {dtype, shape, data}] of tensors) {
    const info = kDtypes[dtype];
    if (!info) throw new SafetensorsError(`tensor '${name}': unsupported dtype ${dtype}`);
    if (!isDimList(shape)) {
      throw new SafetensorsError(`tensor '${name}': invalid shape ${JSON.stringify(shape)}`);
    }
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (bytes.length !== elementCount(shape) * info.size) {
      throw new SafetensorsError(`tensor '${name}': ${bytes.length} bytes of data for ${dtype} ` +
                                 `${JSON.stringify(shape)}`);
    }
    header[name] = {dtype, shape, data_offsets: [offset, offset + bytes.length]};
    chunks.push(bytes);
    offset += bytes.length;
  }
  let json = JSON.stringify(header);
  const jsonBytes = Buffer.byteLength(json, 'utf8');
  json += ' '.repeat((8 - (jsonBytes % 8)) % 8);
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(Buffer.byteLength(json, 'utf8')));

  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const fd = fs.openSync(temporary, 'w');
  try {
    for (const chunk of [prefix, Buffer.from(json, 'utf8'), ...chunks]) {
      let written = 0;
      while (written < chunk.length) written += fs.writeSync(fd, chunk, written);
    }
    fs.fsyncSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(temporary, {force: true});
    throw e;
  }
  fs.closeSync(fd);
  fs.renameSync(temporary, file);
}

module.exports = {kDtypes, SafetensorsError, readSafetensors, writeSafetensors};
