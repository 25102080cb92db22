// Safetensors and .npy writers and an .npy reader for the loader's tests and tools/loader-models.mjs
// (the loader itself has its own Safetensors reader and needs no writer).

// A Safetensors file from {key: {dtype, shape, data: TypedArray}}, tensors in key order.
export function safetensors(tensors, metadata) {
  const header = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  const parts = [];
  for (const key of Object.keys(tensors).sort()) {
    const t = tensors[key];
    const bytes = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    header[key] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes.length] };
    offset += bytes.length;
    parts.push(bytes);
  }
  const h = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + h.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  let o = 8 + h.length;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export const NPY_DESCR = { float32: '<f4', float16: '<f2', int32: '<i4', uint32: '<u4', int64: '<i8', uint64: '<u8', int8: '|i1', uint8: '|u1', int4: '|i1', uint4: '|u1' };

// A version 1.0 .npy file of the bytes of a tensor.
export function npy(dataType, shape, bytes) {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let h = `{'descr': '${NPY_DESCR[dataType]}', 'fortran_order': False, 'shape': (${dims}), }`;
  const total = 10 + h.length + 1;
  h += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const out = new Uint8Array(10 + h.length + bytes.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(out.buffer).setUint16(8, h.length, true);
  out.set(new TextEncoder().encode(h), 10);
  out.set(bytes, 10 + h.length);
  return out;
}

// {descr, shape, bytes} of a .npy file (versions 1-3, C order).
export function readNpy(buf) {
  const b = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  const major = b[6];
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const hlen = major === 1 ? dv.getUint16(8, true) : dv.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  const h = new TextDecoder().decode(b.subarray(start, start + hlen));
  const descr = /'descr':\s*'([^']+)'/.exec(h)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(h)[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  return { descr, shape, bytes: b.slice(start + hlen) };
}
