// Escaping text for XML and HTML markup: the JUnit reports of wnn validate-models and the SVG
// and HTML of wnn view.
#pragma once

#include <string>
#include <string_view>

namespace wnn {

// &, <, >, " and ' as entities; control characters XML 1.0 forbids even escaped (all below
// 0x20 but newline and tab) as spaces.
std::string xml_escape(std::string_view text);

}  // namespace wnn
