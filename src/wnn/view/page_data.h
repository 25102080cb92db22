// The JSON the page's side panel reads: per node its op, operands, arguments and options (the
// operator table's defaults listed once per op), its ONNX origin and each overlay's facts.
// Internal to the view module (page.cc embeds it).
#pragma once

#include "wnn/view/page.h"

namespace wnn::view::detail {

ordered_json page_data(const PageInput& input);

}  // namespace wnn::view::detail
