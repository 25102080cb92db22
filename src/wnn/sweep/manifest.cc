#include "wnn/sweep/manifest.h"

#include <nlohmann/json.hpp>
#include <set>

#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"

namespace wnn::sweep {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

// Rejects any key of `obj` outside `known`, naming it and where it sits.
void check_known_fields(const json& obj, const std::set<std::string>& known,
                        const std::string& where) {
  for (const auto& [key, value] : obj.items()) {
    if (known.count(key)) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    fail("{}: unknown field '{}' (known fields: {})", where, key, list);
  }
}

std::string get_string(const json& obj, const std::string& key, const std::string& where) {
  const json& v = obj.at(key);
  check(v.is_string() && !v.get<std::string>().empty(), "{}: '{}' must be a non-empty string",
        where, key);
  return v.get<std::string>();
}

HfSource parse_hf(const json& j, const std::string& where) {
  const std::string w = where + ".hf";
  check(j.is_object(), "{}: must be an object {{\"repo\", \"revision\", \"file\", \"sidecars\"}}",
        w);
  check_known_fields(j, {"repo", "revision", "file", "sidecars"}, w);
  check(j.contains("repo") && j.contains("file"), "{}: needs 'repo' and 'file'", w);
  HfSource s;
  s.repo = get_string(j, "repo", w);
  s.file = get_string(j, "file", w);
  if (j.contains("revision")) s.revision = get_string(j, "revision", w);
  if (j.contains("sidecars")) {
    check(j["sidecars"].is_array(), "{}: 'sidecars' must be an array of file names", w);
    for (const auto& f : j["sidecars"]) {
      check(f.is_string() && !f.get<std::string>().empty(),
            "{}: 'sidecars' must hold non-empty strings", w);
      s.sidecars.push_back(f.get<std::string>());
    }
  }
  return s;
}

std::string pin_text(const json& v, const std::string& where, const std::string& name) {
  if (v.is_number()) return v.dump();
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array() && !v.empty()) {
    std::string text;
    for (const auto& x : v) {
      check(x.is_number(), "{}: pin_inputs '{}' must hold numbers", where, name);
      text += (text.empty() ? "" : ",") + x.dump();
    }
    return text;
  }
  fail("{}: pin_inputs '{}' must be a number, a string \"1,2\" or an array of numbers", where,
       name);
}

double tolerance_value(const json& t, const char* key, const std::string& where) {
  check(t[key].is_number() && t[key].get<double>() >= 0,
        "{}: tolerance '{}' must be a non-negative number", where, key);
  return t[key].get<double>();
}

ManifestEntry parse_entry(const json& j, size_t index, const fs::path& dir) {
  std::string where = fmt::format("models[{}]", index);
  check(j.is_object(), "{}: each entry must be an object", where);
  if (j.contains("id") && j["id"].is_string()) {
    where = fmt::format("models[{}] (id '{}')", index, j["id"].get<std::string>());
  }
  check_known_fields(j,
                     {"id", "hf", "path", "url", "sha256", "override_dims", "pin_inputs", "inputs",
                      "tolerance", "heavy", "expect"},
                     where);
  ManifestEntry e;
  e.index = index;
  check(j.contains("id"), "{}: missing 'id'", where);
  e.id = get_string(j, "id", where);
  const int sources = int(j.contains("hf")) + int(j.contains("path")) + int(j.contains("url"));
  check(sources == 1, "{}: needs exactly one source of 'hf', 'path' or 'url' (found {})", where,
        sources);
  if (j.contains("hf")) e.hf = parse_hf(j["hf"], where);
  if (j.contains("path")) e.path = dir / get_string(j, "path", where);
  if (j.contains("url")) e.url = get_string(j, "url", where);
  if (j.contains("sha256")) {
    e.sha256 = get_string(j, "sha256", where);
    check(e.sha256->size() == 64 &&
              e.sha256->find_first_not_of("0123456789abcdef") == std::string::npos,
          "{}: 'sha256' must be 64 lowercase hex digits, got '{}'", where, *e.sha256);
  }
  if (j.contains("override_dims")) {
    check(j["override_dims"].is_object(), "{}: 'override_dims' must be {{name: value}}", where);
    for (const auto& [name, v] : j["override_dims"].items()) {
      check(v.is_number_integer() && v.get<int64_t>() >= 0,
            "{}: override_dims '{}' must be a non-negative integer", where, name);
      e.override_dims[name] = v.get<int64_t>();
    }
  }
  if (j.contains("pin_inputs")) {
    check(j["pin_inputs"].is_object(), "{}: 'pin_inputs' must be {{name: value}}", where);
    for (const auto& [name, v] : j["pin_inputs"].items()) {
      e.pin_inputs[name] = pin_text(v, where, name);
    }
  }
  if (j.contains("inputs")) {
    check(j["inputs"].is_object(), "{}: 'inputs' must be {{name: \"file.npy\"}}", where);
    for (const auto& [name, v] : j["inputs"].items()) {
      check(v.is_string() && !v.get<std::string>().empty(),
            "{}: inputs '{}' must be the path of a .npy file", where, name);
      e.inputs[name] = dir / v.get<std::string>();
    }
  }
  if (j.contains("tolerance")) {
    const json& t = j["tolerance"];
    check(t.is_object(), "{}: 'tolerance' must be {{\"atol\": A, \"rtol\": R}}", where);
    check_known_fields(t, {"atol", "rtol"}, where + ".tolerance");
    if (t.contains("atol")) e.atol = tolerance_value(t, "atol", where);
    if (t.contains("rtol")) e.rtol = tolerance_value(t, "rtol", where);
  }
  if (j.contains("heavy")) {
    check(j["heavy"].is_boolean(), "{}: 'heavy' must be true or false", where);
    e.heavy = j["heavy"].get<bool>();
  }
  if (j.contains("expect")) {
    const std::string expect = j["expect"].is_string() ? j["expect"].get<std::string>() : "";
    if (expect == "pass") {
      e.expect_pass = true;
    } else {
      check(expect.rfind("fail:", 0) == 0 && expect.size() > 5,
            "{}: 'expect' must be \"pass\" or \"fail:<reason>\", got {}", where,
            j["expect"].dump());
      e.expect_pass = false;
      e.expect_reason = expect.substr(5);
    }
  }
  return e;
}

}  // namespace

std::string ManifestEntry::source_text() const {
  if (hf) return fmt::format("hf:{}@{}/{}", hf->repo, hf->revision, hf->file);
  if (url) return "url:" + *url;
  return "path:" + (path ? path->string() : "");
}

Manifest parse_manifest(const std::string& text, const fs::path& manifest_path) {
  const std::string name = manifest_path.string();
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    // Not only parse_error: a number like 1e999 throws out_of_range (found by fuzzing).
    fail("{}: not valid JSON: {}", name, e.what());
  }
  check(j.is_object(), "{}: the top level must be {{\"version\": 1, \"models\": [...]}}", name);
  check_known_fields(j, {"version", "models"}, name);
  check(j.contains("version") && j["version"] == 1, "{}: 'version' must be 1", name);
  check(j.contains("models") && j["models"].is_array(), "{}: 'models' must be an array", name);
  Manifest m;
  m.path = manifest_path;
  const fs::path dir = manifest_path.parent_path();
  std::set<std::string> ids;
  for (size_t i = 0; i < j["models"].size(); ++i) {
    ManifestEntry e = with_error_context(name, [&] { return parse_entry(j["models"][i], i, dir); });
    check(ids.insert(e.id).second, "{}: models[{}]: id '{}' is used twice", name, i, e.id);
    m.models.push_back(std::move(e));
  }
  return m;
}

Manifest read_manifest(const fs::path& manifest_path) {
  return parse_manifest(read_file(manifest_path.string()), manifest_path);
}

std::vector<size_t> select_entries(const Manifest& m, const std::string& selection) {
  std::vector<size_t> out;
  if (selection == "all") {
    for (const auto& e : m.models) out.push_back(e.index);
  } else if (selection.rfind("match=", 0) == 0) {
    const std::string text = selection.substr(6);
    check(!text.empty(), "--selection match= needs a text");
    for (const auto& e : m.models) {
      if (e.id.find(text) != std::string::npos || e.source_text().find(text) != std::string::npos) {
        out.push_back(e.index);
      }
    }
  } else if (selection.rfind("id=", 0) == 0) {
    std::set<std::string> wanted;
    const std::string list = selection.substr(3);
    for (size_t start = 0; start <= list.size();) {
      const size_t comma = std::min(list.find(',', start), list.size());
      const std::string id = list.substr(start, comma - start);
      check(!id.empty(), "--selection id=: empty id in '{}'", list);
      wanted.insert(id);
      start = comma + 1;
    }
    for (const auto& e : m.models) {
      if (wanted.erase(e.id)) out.push_back(e.index);
    }
    check(wanted.empty(), "--selection id=: no entry has id '{}'", *wanted.begin());
  } else {
    fail("--selection must be all, match=TEXT or id=ID[,ID...], got '{}'", selection);
  }
  return out;
}

std::vector<size_t> shard_entries(const std::vector<size_t>& selected, const std::string& shard) {
  const size_t slash = shard.find('/');
  int k = 0, n = 0;
  size_t used_k = 0, used_n = 0;
  try {
    k = std::stoi(shard.substr(0, slash), &used_k);
    n = std::stoi(shard.substr(slash + 1), &used_n);
  } catch (...) {
  }
  check(slash != std::string::npos && used_k == slash && used_n == shard.size() - slash - 1 &&
            n >= 1 && k >= 1 && k <= n,
        "--shard must be K/N with 1 <= K <= N, got '{}'", shard);
  std::vector<size_t> out;
  for (size_t i = size_t(k - 1); i < selected.size(); i += size_t(n)) out.push_back(selected[i]);
  return out;
}

}  // namespace wnn::sweep
