// UTF-8 validity, as JSON (and so webnn-graph-json and safetensors headers) requires it.
#pragma once

#include <cstddef>
#include <string_view>

namespace wnn {

// The offset of the first byte that does not belong to well-formed UTF-8 (overlong forms,
// surrogates and code points above U+10FFFF are ill-formed), or npos when `s` is valid.
size_t first_invalid_utf8(std::string_view s);

}  // namespace wnn
