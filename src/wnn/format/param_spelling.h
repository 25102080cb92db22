// How the .webnn text and JSON forms spell an operator's parameter names, where they differ from
// the operator table's (the WebNN IDL's) names. One table for both readers and both writers, so
// what wnn prints is what it and the format's other tools read.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace wnn::format {

// One parameter whose file spelling differs from the operator table's name.
struct ParamSpelling {
  std::string_view op;
  std::string_view table;     // the operator table's (IDL's) name
  std::string_view file;      // what writers print
  std::string_view older[2];  // also read
};

// The whole table, for readers outside C++ (js/loader's operators.js is generated from it).
std::span<const ParamSpelling> param_spellings();

// The name a writer prints for parameter `param` of `op`: the format's canonical spelling
// (WEBNN_FORMAT.md writes `cast(x, type="float16")`, where the IDL now says dataType).
std::string_view file_param_name(std::string_view op, std::string_view param);

// The table's name for a parameter a file spells `name`: the canonical spelling and every older
// one (`cast(x, to="Float32")`, the IDL's own `dataType=`) map to it; other names pass through.
std::string table_param_name(std::string_view op, std::string_view name);

}  // namespace wnn::format
