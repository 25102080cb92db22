#include "wnn/view/scene.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "wnn/core/error.h"
#include "wnn/core/ops/describe.h"

namespace wnn::view {

std::string type_text(const OperandDesc& desc) {
  return fmt::format("{}[{}]", dtype_name(desc.dtype), fmt::join(desc.shape, ","));
}

std::string byte_size_text(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes) / 1024;
  size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) v /= 1024, ++u;
  return fmt::format("{:.1f} {}", v, units[u]);
}

size_t display_width(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

std::string shorten(const std::string& text, size_t max_chars) {
  if (display_width(text) <= max_chars) return text;
  size_t kept = 0, i = 0;
  for (; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && kept++ == max_chars - 1) break;
  }
  return text.substr(0, i) + "…";
}

std::vector<std::pair<std::string, OperandId>> operand_params(const Node& node) {
  std::vector<std::pair<std::string, OperandId>> out;
  const OpSchema& s = node.attrs.schema();
  for (size_t i = 0; i < s.num_params(); ++i) {
    const ParamSpec& p = s.param(i);
    const Value& v = node.attrs.at(i);
    if (const auto* id = std::get_if<OperandId>(&v)) {
      out.emplace_back(std::string(p.name), *id);
    } else if (const auto* list = std::get_if<OperandList>(&v)) {
      for (size_t k = 0; k < list->size(); ++k) {
        out.emplace_back(fmt::format("{}[{}]", p.name, k), (*list)[k]);
      }
    }
  }
  return out;
}

std::string constant_value_text(const Graph& g, OperandId id) {
  const ConstantInfo* c = g.constant_of(id);
  if (c == nullptr) return {};
  if (c->init == ConstantInitKind::kScalar) return value_to_text(c->scalar);
  const OperandDesc& d = g.desc(id);
  const int64_t n = element_count(d.shape);
  if (!c->bound() || n > 4 || c->data.size() < d.byte_size()) return {};
  const ConstTensorView view{d.dtype, d.shape, c->data.data()};
  std::vector<std::string> values;
  for (int64_t i = 0; i < n; ++i) values.push_back(fmt::format("{}", element_as_double(view, i)));
  return n == 1 && d.shape.empty() ? values[0] : fmt::format("[{}]", fmt::join(values, ", "));
}

namespace {

int text_width(const std::string& text, double char_width) {
  return int(std::ceil(double(display_width(text)) * char_width));
}

int even(int v) { return v + (v & 1); }

std::string constant_row(const Graph& g, const std::string& param, OperandId id) {
  const OperandDesc& d = g.desc(id);
  const std::string value = constant_value_text(g, id);
  const std::string text =
      value.empty() ? fmt::format("{}: {} ({})", param, type_text(d), byte_size_text(d.byte_size()))
                    : fmt::format("{}: {} = {}", param, type_text(d), value);
  return shorten(text);
}

class SceneBuilder {
 public:
  SceneBuilder(const Graph& g, const SceneOptions& options) : g_(g), options_(options) {
    readers_.resize(g.operands().size());
    for (uint32_t n = 0; n < g.nodes().size(); ++n) {
      for (OperandId id : g.nodes()[n].inputs) {
        auto& r = readers_[id.index];
        if (r.empty() || r.back() != n) r.push_back(n);
      }
    }
  }

  Scene build() {
    add_input_boxes();
    add_node_boxes();
    add_output_boxes();
    size_boxes();
    lay_out();
    return std::move(scene_);
  }

 private:
  bool is_constant(OperandId id) const { return g_.operand(id).kind == OperandKind::kConstant; }

  // The distinct operands a node reads from other boxes or sections (not constants).
  std::vector<OperandId> flowing_inputs(const Node& node) const {
    std::vector<OperandId> out;
    for (OperandId id : node.inputs) {
      if (!is_constant(id) && std::find(out.begin(), out.end(), id) == out.end()) {
        out.push_back(id);
      }
    }
    return out;
  }

  // Whether `n` continues a chain from the node that produces its one flowing input: that node
  // hands its only output to `n` alone, and nothing else must see it leave the box.
  bool continues_chain(uint32_t n) const {
    const auto in = flowing_inputs(g_.nodes()[n]);
    if (in.size() != 1) return false;
    const Operand& o = g_.operand(in[0]);
    if (o.kind != OperandKind::kNodeOutput) return false;
    const Node& p = g_.nodes()[o.producer];
    return p.outputs.size() == 1 && !g_.is_output(in[0]) && readers_[in[0].index].size() == 1;
  }

  void add_input_boxes() {
    box_of_operand_.assign(g_.operands().size(), UINT32_MAX);
    for (const auto& in : g_.inputs()) {
      SceneBox b;
      b.kind = BoxKind::kInput;
      b.operand = in.id;
      b.title = shorten(g_.name_of(in.id));
      b.outputs = {in.id};
      box_of_operand_[in.id.index] = uint32_t(scene_.boxes.size());
      scene_.boxes.push_back(std::move(b));
    }
  }

  void add_node_boxes() {
    scene_.box_of_node.assign(g_.nodes().size(), UINT32_MAX);
    for (uint32_t n = 0; n < g_.nodes().size(); ++n) {
      const Node& node = g_.nodes()[n];
      uint32_t box = UINT32_MAX;
      if (options_.collapse_chains && continues_chain(n)) {
        box = scene_.box_of_node[g_.operand(flowing_inputs(node)[0]).producer];
      }
      if (box == UINT32_MAX) {
        box = uint32_t(scene_.boxes.size());
        scene_.boxes.push_back({});
      }
      SceneBox& b = scene_.boxes[box];
      Section s;
      s.node = n;
      s.title = std::string(op_name(node.op()));
      for (const auto& [param, id] : operand_params(node)) {
        if (is_constant(id)) s.constants.push_back({param, id, constant_row(g_, param, id)});
      }
      b.sections.push_back(std::move(s));
      b.outputs = node.outputs;  // a chain box's outputs are its last section's
      scene_.box_of_node[n] = box;
      for (OperandId o : node.outputs) box_of_operand_[o.index] = box;
    }
  }

  void add_output_boxes() {
    for (OperandId id : g_.outputs()) {
      SceneBox b;
      b.kind = BoxKind::kOutput;
      b.operand = id;
      b.title = shorten(g_.name_of(id));
      scene_.boxes.push_back(std::move(b));
    }
  }

  // Widths from the longest text, heights from the rows; chain sections share one width.
  void size_boxes() {
    for (SceneBox& b : scene_.boxes) {
      int width = 60;
      if (b.kind != BoxKind::kNodes) {
        width = std::max(width, text_width(b.title, kTitleCharWidth) + 2 * kPadding);
        b.height = kTitleHeight + 2 * kPadding - 4;
      } else {
        int y = 0;
        for (size_t i = 0; i < b.sections.size(); ++i) {
          Section& s = b.sections[i];
          width = std::max(width, text_width(s.title, kTitleCharWidth) + 2 * kPadding);
          for (const auto& c : s.constants) {
            width = std::max(width, text_width(c.text, kRowCharWidth) + 2 * kPadding);
          }
          if (i + 1 < b.sections.size()) {
            // The inner arrow sits 10 px in; its label starts 6 px right of it.
            const OperandId o = g_.nodes()[s.node].outputs[0];
            width = std::max(
                width, 16 + text_width(shorten(type_text(g_.desc(o))), kRowCharWidth) + kPadding);
          }
          s.y = y;
          s.height = kTitleHeight + kPadding + kRowHeight * int(s.constants.size());
          y += s.height + (i + 1 < b.sections.size() ? kInnerGap : 0);
        }
        b.height = y;
      }
      b.width = even(width);
    }
  }

  // The edge labels of a box's ports: one row under a single port, starting right of it; with
  // several ports, stacked rows right of the last port, each naming its output index.
  struct PortLabels {
    std::vector<std::pair<int, std::string>> rows;  // (port, text)
    int x_offset = 0;                               // from the box's left
    int width = 0;
  };

  PortLabels port_labels(const LayoutBox& lb, const SceneBox& b,
                         const std::vector<bool>& used) const {
    PortLabels p;
    const bool many = b.outputs.size() > 1;
    for (size_t port = 0; port < b.outputs.size(); ++port) {
      if (!used[port]) continue;
      std::string text = shorten(type_text(g_.desc(b.outputs[port])));
      if (many) text = fmt::format("{}: {}", port, text);
      p.width = std::max(p.width, text_width(text, kRowCharWidth));
      p.rows.push_back({int(port), std::move(text)});
    }
    const int last_port = int(b.outputs.size()) - 1;
    p.x_offset = out_port_x(lb, 0, std::max(last_port, 0)) + 4;
    return p;
  }

  void lay_out() {
    std::vector<LayoutEdge> edges;
    // Edges into a box, by the operands its first section reads (a chain's later sections read
    // inside the box), in the order the graph lists them.
    auto connect = [&](OperandId id, uint32_t to) {
      if (is_constant(id)) return;
      const uint32_t from = box_of_operand_[id.index];
      check(from != UINT32_MAX, "internal error: operand '{}' comes from no box", g_.name_of(id));
      const auto& outs = scene_.boxes[from].outputs;
      const uint32_t port = uint32_t(std::find(outs.begin(), outs.end(), id) - outs.begin());
      edges.push_back({from, port, to});
      scene_.edges.push_back({id, from, to, {}});
    };
    for (uint32_t b = 0; b < scene_.boxes.size(); ++b) {
      const SceneBox& box = scene_.boxes[b];
      if (box.kind == BoxKind::kNodes) {
        for (OperandId id : flowing_inputs(g_.nodes()[box.sections[0].node])) connect(id, b);
      } else if (box.kind == BoxKind::kOutput) {
        connect(box.operand, b);
      }
    }
    // Boxes no graph input reaches only prepare constants (weights cast, dequantized): they
    // sit just above their readers, not at the top. Edges come in box order, sources first.
    std::vector<bool> fed(scene_.boxes.size(), false);
    for (uint32_t b = 0; b < scene_.boxes.size(); ++b) {
      fed[b] = scene_.boxes[b].kind == BoxKind::kInput;
    }
    for (const auto& e : edges) fed[e.to] = fed[e.to] || fed[e.from];
    std::vector<LayoutBox> lboxes;
    std::vector<PortLabels> labels;
    for (uint32_t b = 0; b < scene_.boxes.size(); ++b) {
      const SceneBox& box = scene_.boxes[b];
      LayoutBox lb{box.width, box.height, 0, 0, std::max<int>(int(box.outputs.size()), 1)};
      lb.hug_successors = !fed[b];
      std::vector<bool> used(box.outputs.size(), false);
      for (const auto& e : edges) {
        if (e.from == b) used[e.from_port] = true;
      }
      PortLabels p = port_labels(lb, box, used);
      if (!p.rows.empty()) {
        lb.label_height = kRowHeight * int(p.rows.size()) + 6;
        lb.extra_right = std::max(0, p.x_offset + p.width - box.width);
      }
      lboxes.push_back(lb);
      labels.push_back(std::move(p));
    }
    scene_.layout = layout_graph(lboxes, edges, options_.layout);
    const Layout& l = scene_.layout;
    scene_.width = l.width;
    scene_.height = l.height;
    for (uint32_t b = 0; b < scene_.boxes.size(); ++b) {
      SceneBox& box = scene_.boxes[b];
      box.x = l.boxes[b].x;
      box.y = l.boxes[b].y;
      const PortLabels& p = labels[b];
      for (size_t r = 0; r < p.rows.size(); ++r) {
        scene_.labels.push_back({box.outputs[size_t(p.rows[r].first)], box.x + p.x_offset,
                                 box.y + box.height + kRowHeight * int(r + 1) + 1,
                                 p.rows[r].second});
      }
      for (size_t i = 0; i + 1 < box.sections.size(); ++i) {
        const Section& s = box.sections[i];
        const OperandId o = g_.nodes()[s.node].outputs[0];
        scene_.inner_edges.push_back({o, b, box.x + 10, box.y + s.y + s.height,
                                      box.y + box.sections[i + 1].y,
                                      shorten(type_text(g_.desc(o)))});
      }
    }
    for (size_t i = 0; i < scene_.edges.size(); ++i) scene_.edges[i].points = l.edges[i].points;
  }

  const Graph& g_;
  const SceneOptions& options_;
  Scene scene_;
  std::vector<std::vector<uint32_t>> readers_;  // per operand: distinct reading nodes
  std::vector<uint32_t> box_of_operand_;        // per operand: the box it leaves
};

}  // namespace

Scene build_scene(const Graph& graph, const SceneOptions& options) {
  return SceneBuilder(graph, options).build();
}

}  // namespace wnn::view
