#include "wnn/format/ordered_json_reader.h"

#include <unordered_set>
#include <vector>

#include "wnn/core/error.h"

namespace wnn::format {

namespace {

using Json = nlohmann::ordered_json;
// ordered_map is a std::vector of pairs: appending to it directly skips the linear key search.
using Members = std::vector<std::pair<const std::string, Json>>;

// A SAX handler that builds the document, appending object members without searching and
// catching repeated keys with a hash set per open object.
class OrderedDomBuilder {
 public:
  explicit OrderedDomBuilder(const std::string& what) : what_(what) {}

  bool null() { return put(nullptr); }
  bool boolean(bool v) { return put(v); }
  bool number_integer(Json::number_integer_t v) { return put(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return put(v); }
  bool number_float(Json::number_float_t v, const std::string&) { return put(v); }
  bool string(std::string& v) { return put(std::move(v)); }
  bool binary(Json::binary_t& v) { return put(Json::binary(std::move(v))); }

  bool start_object(std::size_t) {
    Json* j = open(Json::object());
    stack_.push_back({j, {}});
    return true;
  }
  bool key(std::string& k) {
    Frame& f = stack_.back();
    check(f.keys.insert(k).second, "{}: JSON object declares '{}' twice", what_, k);
    Members& members = *f.value->get_ptr<Json::object_t*>();
    members.emplace_back(std::move(k), nullptr);
    pending_ = &members.back().second;
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    Json* j = open(Json::array());
    stack_.push_back({j, {}});
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    // Rethrow as the type the caller catches, with its byte position (throw e would slice).
    if (const auto* pe = dynamic_cast<const Json::parse_error*>(&e)) throw *pe;
    // Number overflow ("1e999") arrives as out_of_range; drop nlohmann's "[json.exception...]".
    std::string message = e.what();
    if (const size_t p = message.find("] "); p != std::string::npos) message.erase(0, p + 2);
    fail("{}: not valid JSON: {}", what_, message);
  }

  Json take() { return std::move(root_); }

 private:
  struct Frame {
    Json* value;
    std::unordered_set<std::string> keys;  // objects only
  };

  // Where the next value goes: the root, the member a key just made, or an array's end.
  Json* open(Json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Json& top = *stack_.back().value;
    if (top.is_array()) {
      top.get_ptr<Json::array_t*>()->push_back(std::move(v));
      return &top.get_ptr<Json::array_t*>()->back();
    }
    *pending_ = std::move(v);
    return pending_;
  }
  template <typename T>
  bool put(T&& v) {
    open(Json(std::forward<T>(v)));
    return true;
  }

  const std::string& what_;
  Json root_;
  std::vector<Frame> stack_;
  Json* pending_ = nullptr;
};

}  // namespace

nlohmann::ordered_json parse_ordered_json(std::string_view text, const std::string& what) {
  OrderedDomBuilder builder(what);
  Json::sax_parse(text.begin(), text.end(), &builder);
  return builder.take();
}

}  // namespace wnn::format
