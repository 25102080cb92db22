// The backends every graph and error test runs on (as in tests/CMakeLists.txt's
// js.wpt_vectors_*). Not a test file itself; node --test runs it as an empty one.
export const BACKENDS = ['ref', 'onednn', 'xnnpack', 'auto'];
