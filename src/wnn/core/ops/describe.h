// Descriptions of the operator table for people and programs: JSON (`wnn ops --json`),
// a text listing and the Markdown of docs/operators.md, all printed from the table itself.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "wnn/core/ops/schema.h"

namespace wnn {

// A typed value as JSON (operands as their index; callers that know names map them).
nlohmann::json value_to_json(const Value& v);
// "1e-05", "[1, 1]", "\"nchw\"": how a default reads in docs and listings.
std::string value_to_text(const Value& v);
// How an option's default reads: its value, what it depends on ("all axes"), or "absent".
std::string default_text(const ParamSpec& p);

nlohmann::json schema_to_json(const OpSchema& s);
nlohmann::json operator_table_json();
std::string operator_table_text();
std::string operator_table_markdown();

}  // namespace wnn
