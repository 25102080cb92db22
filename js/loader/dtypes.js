// Data types: every spelling wnn's parse_dtype reads (WebNN `float16`, short `f16`, legacy
// `Float16`, `float`, `half`), the byte size of each in the file forms, and float16 encoding.

const TYPES = [
  ['float32', 'f32', 4], ['float16', 'f16', 2], ['int32', 'i32', 4], ['uint32', 'u32', 4],
  ['int64', 'i64', 8], ['uint64', 'u64', 8], ['int8', 'i8', 1], ['uint8', 'u8', 1],
  ['int4', 'i4', 0.5], ['uint4', 'u4', 0.5],
];

export const DATA_TYPES = Object.freeze(TYPES.map(([n]) => n));

// The WebNN name of a data type spelt any way wnn reads, or null.
export function parseDataType(s) {
  for (const [name, short] of TYPES) if (s === name || s === short) return name;
  const lower = String(s).toLowerCase();
  for (const [name] of TYPES) if (lower === name) return name;
  if (lower === 'float') return 'float32';
  if (lower === 'half') return 'float16';
  return null;
}

export function isFourBit(dataType) {
  return dataType === 'int4' || dataType === 'uint4';
}

export function elementCount(shape) {
  return shape.reduce((a, b) => a * b, 1);
}

// Bytes of `count` elements in the storage form (int4/uint4 packed two per byte).
export function storageBytes(dataType, count) {
  if (isFourBit(dataType)) return Math.ceil(count / 2);
  return count * TYPES.find(([n]) => n === dataType)[2];
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

// IEEE half bits of a number, rounded to nearest even once, as wnn's double_to_half does: a
// double that float32 cannot hold exactly is first rounded to odd in float32.
export function toHalfBits(value) {
  f32[0] = value;
  if (value === value && f32[0] !== value) {
    if (Math.abs(f32[0]) > Math.abs(value)) u32[0] -= 1;
    u32[0] |= 1;
  }
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) ++h;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) ++h;
  return sign | h;
}

// The number that half bits hold.
export function fromHalfBits(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}
