// The operand-name grammar of the .webnn text form, as src/wnn/core/names.cc defines it (the one
// definition; js/test/loader-names.test.mjs checks this copy against it on generated strings).
// Works on UTF-8 bytes: every name byte is ASCII, so any other byte ends a name.

const A = 0x61, Z = 0x7a, UA = 0x41, UZ = 0x5a, D0 = 0x30, D9 = 0x39;
const UNDERSCORE = 0x5f, SLASH = 0x2f, DOLLAR = 0x24, DOT = 0x2e, DASH = 0x2d, COLON = 0x3a;

function isAlpha(c) {
  return (c >= A && c <= Z) || (c >= UA && c <= UZ);
}

// A name starts with an ASCII letter, '_', '/' or '$'.
export function isNameStartByte(c) {
  return isAlpha(c) || c === UNDERSCORE || c === SLASH || c === DOLLAR;
}

// It continues with ASCII letters, digits, '_', '.', '/', '$' and '-'.
export function isNameContinueByte(c) {
  return isAlpha(c) || (c >= D0 && c <= D9) || c === UNDERSCORE || c === DOT || c === SLASH ||
    c === DOLLAR || c === DASH;
}

// The length in bytes of the name token at bytes[start..end): 0 when none starts there. '::' is
// part of a name when a continue byte follows it; '//' ends a name (a comment starts there).
export function nameTokenLength(bytes, start = 0, end = bytes.length) {
  if (start >= end || !isNameStartByte(bytes[start])) return 0;
  if (bytes[start] === SLASH && start + 1 < end && bytes[start + 1] === SLASH) return 0;
  let i = start + 1;
  while (i < end) {
    const c = bytes[i];
    if (c === SLASH && i + 1 < end && bytes[i + 1] === SLASH) break;
    if (isNameContinueByte(c)) {
      ++i;
    } else if (c === COLON && i + 2 < end && bytes[i + 1] === COLON && isNameContinueByte(bytes[i + 2])) {
      i += 2;
    } else {
      break;
    }
  }
  return i - start;
}

// Value literals where a value may stand, so never operand names.
export const RESERVED_NAMES = Object.freeze(['true', 'false', 'null', 'inf', 'nan']);

const encoder = new TextEncoder();

// Whether the text form can hold `name` as written (one whole name token, not reserved).
export function isValidOperandName(name) {
  const bytes = encoder.encode(name);
  return bytes.length > 0 && nameTokenLength(bytes) === bytes.length && !RESERVED_NAMES.includes(name);
}
