'use strict';
// Finds and loads the wnn Node-API addon: WNN_NODE_ADDON, else <checkout>/build/js/wnn.node
// (where CMake puts it).
const path = require('path');

const candidates = [
  process.env.WNN_NODE_ADDON,
  path.join(__dirname, '..', '..', 'build', 'js', 'wnn.node'),
].filter(Boolean);

// How oneDNN's OpenMP workers wait between kernels, chosen as the CLI chooses (a bounded spin on
// an idle machine, sleeping at once on a busy one; OMP_WAIT_POLICY or GOMP_SPINCOUNT set by the
// user win). libgomp reads it once, when wnn.node loads it, so wnn_env.node (beside wnn.node,
// linking no OpenMP) decides first. Without it libgomp's defaults apply.
function chooseOpenmpWaiting(addonFile) {
  try {
    require(path.join(path.dirname(addonFile), 'wnn_env.node')).chooseOpenmpWaiting();
  } catch (e) {
    if (e.code !== 'MODULE_NOT_FOUND') throw e;  // absent: libgomp's defaults
  }
}

let addon = null;
const errors = [];
for (const file of candidates) {
  try {
    chooseOpenmpWaiting(file);
    addon = require(file);
    break;
  } catch (e) {
    errors.push(`${file}: ${e.message}`);
  }
}
if (!addon) {
  throw new Error(`wnn: cannot load the Node addon (build it with 'cmake --build build --target wnn_node'):\n  ${errors.join('\n  ')}`);
}
module.exports = addon;
