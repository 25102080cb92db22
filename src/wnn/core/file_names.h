// Operand names as file names: `wnn run --output-dir` writes one file per output, and an output
// may be called `/model/logits` or `../x`. The mapping keeps ordinary names as they are and
// never leaves the directory it is joined to.
#pragma once

#include <string>
#include <string_view>

namespace wnn {

// One path component for `name`: bytes other than ASCII letters, digits, '_', '-' and '.' (and
// a leading '.') become %XX, so the result is injective, never a path, never "." or "..", and
// never hidden. A result longer than 200 bytes keeps its first 183 and appends '~' and 16 hex
// digits of a hash of the whole name (file systems cap a name at 255 bytes).
std::string file_name_component(std::string_view name);

}  // namespace wnn
