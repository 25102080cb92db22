#include "wnn/onnx/subgraph.h"

#include <fmt/format.h>

#include <map>

namespace wnn::onnx {

namespace {

using Renames = std::map<std::string, std::string>;

// Names `g` defines itself: they shadow outer values of the same name inside `g`.
std::set<std::string> defined_names(const GraphProto& g) {
  std::set<std::string> d;
  for (const auto& t : g.initializer) d.insert(t.name);
  for (const auto& in : g.input) d.insert(in.name);
  for (const auto& n : g.node) {
    for (const auto& o : n.output) {
      if (!o.empty()) d.insert(o);
    }
  }
  return d;
}

void rename_reads(GraphProto& g, const Renames& renames);

void rename_in_attributes(NodeProto& node, const Renames& renames) {
  for (auto& a : node.attribute) {
    if (a.g) {
      a.g = std::make_shared<GraphProto>(*a.g);
      rename_reads(*a.g, renames);
    }
    for (auto& sub : a.graphs) {
      sub = std::make_shared<GraphProto>(*sub);
      rename_reads(*sub, renames);
    }
  }
}

// Renames the captures of `g` (reads of values `g` does not define) through `renames`.
void rename_reads(GraphProto& g, const Renames& renames) {
  const std::set<std::string> own = defined_names(g);
  Renames visible;
  for (const auto& [from, to] : renames) {
    if (!own.count(from)) visible.emplace(from, to);
  }
  if (visible.empty()) return;
  auto follow = [&](std::string& name) {
    if (auto it = visible.find(name); it != visible.end()) name = it->second;
  };
  for (auto& n : g.node) {
    for (auto& in : n.input) follow(in);
    rename_in_attributes(n, visible);
  }
  for (auto& out : g.output) follow(out.name);
}

}  // namespace

void collect_names(const GraphProto& g, std::set<std::string>& names) {
  for (const auto& t : g.initializer) names.insert(t.name);
  for (const auto& v : g.input) names.insert(v.name);
  for (const auto& v : g.output) names.insert(v.name);
  for (const auto& v : g.value_info) names.insert(v.name);
  for (const auto& n : g.node) {
    if (!n.name.empty()) names.insert(n.name);
    for (const auto& s : n.input) names.insert(s);
    for (const auto& s : n.output) names.insert(s);
    for (const auto& a : n.attribute) {
      if (a.g) collect_names(*a.g, names);
      for (const auto& sub : a.graphs) collect_names(*sub, names);
    }
  }
}

GraphProto scope_subgraph(const GraphProto& branch, std::string_view scope,
                          std::set<std::string>& taken) {
  auto fresh = [&](const std::string& name) {
    std::string n = fmt::format("{}/{}", scope, name);
    for (int k = 1; taken.count(n); ++k) n = fmt::format("{}/{}${}", scope, name, k);
    taken.insert(n);
    return n;
  };
  Renames renames;
  for (const auto& name : defined_names(branch)) renames.emplace(name, fresh(name));
  GraphProto g = branch;
  for (auto& t : g.initializer) t.name = renames.at(t.name);
  for (auto& n : g.node) {
    // Inputs first: a node may read a value the branch defines (renamed) or a capture (kept).
    for (auto& in : n.input) {
      if (auto it = renames.find(in); it != renames.end()) in = it->second;
    }
    for (auto& o : n.output) {
      if (!o.empty()) o = renames.at(o);
    }
    if (!n.name.empty()) n.name = fresh(n.name);
    rename_in_attributes(n, renames);
  }
  for (auto& out : g.output) {
    if (auto it = renames.find(out.name); it != renames.end()) out.name = it->second;
  }
  return g;
}

}  // namespace wnn::onnx
