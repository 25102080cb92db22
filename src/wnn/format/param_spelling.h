// How the .webnn text and JSON forms spell an operator's parameter names, where they differ from
// the operator table's (the WebNN IDL's) names. One table for both readers and both writers, so
// what wnn prints is what it and the format's other tools read.
#pragma once

#include <string>
#include <string_view>

namespace wnn::format {

// The name a writer prints for parameter `param` of `op`: the format's canonical spelling
// (WEBNN_FORMAT.md writes `cast(x, type="float16")`, where the IDL now says dataType).
std::string_view file_param_name(std::string_view op, std::string_view param);

// The table's name for a parameter a file spells `name`: the canonical spelling and every older
// one (`cast(x, to="Float32")`, the IDL's own `dataType=`) map to it; other names pass through.
std::string table_param_name(std::string_view op, std::string_view name);

}  // namespace wnn::format
