'use strict';
// Finds and loads the wnn Node-API addon: WNN_NODE_ADDON, else <checkout>/build/js/wnn.node
// (where CMake puts it).
const path = require('path');

const candidates = [
  process.env.WNN_NODE_ADDON,
  path.join(__dirname, '..', '..', 'build', 'js', 'wnn.node'),
].filter(Boolean);

let addon = null;
const errors = [];
for (const file of candidates) {
  try {
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
