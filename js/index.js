'use strict';
// require('<checkout>/js'): { ml } is navigator.ml of the W3C WebNN API, backed by wnn.
module.exports = require('./lib/webnn');
