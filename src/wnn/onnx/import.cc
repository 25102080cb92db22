#include "wnn/onnx/import.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/onnx/dim_overrides.h"
#include "wnn/onnx/external_data.h"
#include "wnn/onnx/registry.h"
#include "wnn/onnx/subgraph.h"
#include "wnn/onnx/tensor_data.h"
#include "wnn/onnx/topo_order.h"
#include "wnn/onnx/unsupported.h"
#include "wnn/passes/graph_copy.h"
#include "wnn/runtime/profile.h"
#include "wnn/runtime/session.h"

namespace wnn::onnx {

bool is_batch_like_dim(std::string_view name) {
  std::string n;
  for (char c : name) n += char(std::tolower(static_cast<unsigned char>(c)));
  static const std::set<std::string, std::less<>> kBatch = {
      "n", "b", "batch", "batch_size", "batchsize", "bs", "nbatch", "num_batches", "unk__0"};
  return kBatch.count(n) > 0;
}

namespace {

// Folding evaluates a node on known inputs only when everything involved stays this small, so
// shape arithmetic folds while weight-sized tensors and broadcasts stay graph operations.
constexpr int64_t kMaxFoldElements = 1 << 16;

class Importer {
 public:
  Importer(const ModelProto& model, const std::string& model_dir, const ImportOptions& options)
      : model_(model),
        options_(options),
        resolver_(model_dir.empty() ? ExternalDataResolver()
                                    : ExternalDataResolver(std::filesystem::path(model_dir))),
        builder_(result_.graph),
        names_([this](const std::string& n) { return result_.graph.find(n).has_value(); }),
        values_(builder_, names_) {
    resolver_.zero_fill_missing(options.zero_missing_weights);
  }

  ImportResult run() {
    // What a model must hold before anything converts: each check says what is missing.
    check(!model_.graph_missing, "the model has no graph{}",
          model_.ir_version == 0 && model_.opset_import.empty() ? " (an empty or non-ONNX file?)"
                                                                : "");
    check(!model_.opset_import.empty(),
          "the model has no opset_import: which operator set its nodes follow is unknown");
    check(!model_.graph.output.empty(),
          "the graph has no outputs: a WebNN graph needs at least one");
    for (const auto& o : model_.opset_import)
      opsets_[std::string(canonical_domain(o.domain))] = o.version;
    if (!opsets_.count("")) opsets_[""] = 1;
    read_metadata_dims();
    const GraphProto& g = model_.graph;
    result_.nodes_in = g.node.size();
    check(g.sparse_initializer.empty(), "sparse initializers are not supported ({} found)",
          g.sparse_initializer.size());
    for (const auto& in : g.input) names_.reserve(in.name);
    for (const auto& out : g.output) names_.reserve(out.name);
    for (const auto& t : g.initializer) add_initializer(t);
    add_inputs(g);
    check_output_types(g);
    size_t converted = 0;
    for (size_t i : node_order(g.node)) {
      convert_node(g.node[i]);
      record_values(g.node[i]);
      if (options_.on_node) options_.on_node(++converted, g.node.size());
    }
    report_unsupported();
    add_outputs(g);
    result_.origin_of.resize(result_.graph.nodes().size(), -1);
    prune_unread_inputs();
    if (!options_.keep_misaligned_weights) align_constants();
    const auto zeroed = resolver_.zero_filled();
    if (!zeroed.empty()) {
      result_.warnings.push_back(fmt::format(
          "--weights zeros: external data missing from {} read as zeros; the weights are not "
          "the model's",
          fmt::join(zeroed, ", ")));
    }
    return std::move(result_);
  }

 private:
  void read_metadata_dims() {
    for (const auto& [k, v] : model_.metadata_props) {
      if (k != "freeDimensionOverrides") continue;
      auto j = nlohmann::json::parse(v, nullptr, false);
      if (!j.is_object()) continue;
      for (auto& [name, val] : j.items()) {
        if (val.is_number_integer()) metadata_dims_[name] = val.get<int64_t>();
      }
    }
  }

  void add_initializer(const TensorProto& t) {
    with_error_context(fmt::format("initializer '{}'", t.name), [&] {
      TensorData d = tensor_data(t, resolver_, /*keep_misaligned=*/true);
      if (!d.conversion.empty()) {
        result_.warnings.push_back(fmt::format("initializer '{}': {}", t.name, d.conversion));
      }
      values_.set_known(t.name, Tensor{d.dtype, d.shape, d.data});
    });
  }

  std::optional<int64_t> resolve_dim(const std::string& param) {
    if (auto it = dim_overrides_.names.find(param); it != dim_overrides_.names.end()) {
      return it->second;
    }
    if (auto it = metadata_dims_.find(param); it != metadata_dims_.end()) return it->second;
    if (is_batch_like_dim(param)) return 1;
    return std::nullopt;
  }

  void add_inputs(const GraphProto& g) {
    dim_overrides_ = classify_dim_overrides(options_.override_dims, [&](std::string_view n) {
      return std::any_of(g.input.begin(), g.input.end(), [&](auto& i) { return i.name == n; });
    });
    for (const auto& [ref, v] : dim_overrides_.axes) {
      // A structured binding cannot be captured by clang 14 (make fuzz builds with it).
      const std::string& input = ref.input;
      const auto in =
          std::find_if(g.input.begin(), g.input.end(), [&](auto& i) { return i.name == input; });
      check(in->type.has_shape && ref.axis < in->type.dims.size(),
            "--override-dim {}={}: graph input '{}' has {} axes", axis_key(ref.input, ref.axis), v,
            ref.input, in->type.has_shape ? in->type.dims.size() : 0);
      const auto& fixed = in->type.dims[ref.axis].value;
      check(!fixed || *fixed == v, "--override-dim {}={}: axis {} of '{}' is fixed at {}",
            axis_key(ref.input, ref.axis), v, ref.axis, ref.input, fixed.value_or(0));
    }
    std::vector<std::string> unresolved;
    for (const auto& in : g.input) {
      if (values_.has(in.name)) continue;  // an initializer listed as input (IR < 4)
      const TypeProto& t = in.type;
      if (!t.is_tensor()) {
        unsupported_.push_back({"(graph input) " + in.name, "input", "", 0,
                                "input type " + type_to_string(t) + " is not a tensor",
                                non_tensor_category(t)});
        poisoned_.insert(in.name);
        continue;
      }
      if (const InexpressibleType* e = find_inexpressible_io_type(t.elem_type)) {
        unsupported_.push_back({"(graph input) " + in.name, "input", "", 0, std::string(e->why),
                                std::string(kDataTypeCategory)});
        poisoned_.insert(in.name);
        continue;
      }
      auto dtype = wnn_dtype_for(t.elem_type);
      if (!dtype) {
        unsupported_.push_back({"(graph input) " + in.name, "input", "", 0,
                                "element type " + onnx_type_name(t.elem_type),
                                t.elem_type == int32_t(OnnxType::kString) ? "strings" : ""});
        poisoned_.insert(in.name);
        continue;
      }
      check(t.has_shape, "graph input '{}' has no shape (unknown rank)", in.name);
      Shape shape;
      for (size_t k = 0; k < t.dims.size(); ++k) {
        const Dimension& d = t.dims[k];
        std::optional<int64_t> v = d.value;
        if (auto it = dim_overrides_.axes.find({in.name, k}); it != dim_overrides_.axes.end()) {
          v = it->second;
        }
        if (!v && !d.param.empty()) v = resolve_dim(d.param);
        if (!v) {
          unresolved.push_back(fmt::format("'{}' dim {} ({}): {}", in.name, k,
                                           d.param.empty() ? "unnamed" : d.param,
                                           dim_override_flag(in.name, k, d.param)));
          v = 1;
        }
        check(*v >= 0, "graph input '{}' dim {} is {}", in.name, k, *v);
        shape.push_back(*v);
      }
      if (auto pin = options_.pin_tensors.find(in.name); pin != options_.pin_tensors.end()) {
        check(pin->second.shape == shape && pin->second.dtype == *dtype,
              "pinned input '{}' is {}, the model declares {}", in.name,
              OperandDesc{pin->second.dtype, pin->second.shape}.to_string(),
              OperandDesc{*dtype, shape}.to_string());
        values_.set_known(in.name, pin->second);
        result_.pinned.emplace_back(in.name, pin->second);
        continue;
      }
      if (auto pin = options_.pin_inputs.find(in.name); pin != options_.pin_inputs.end()) {
        Tensor value = pinned_value(in.name, *dtype, shape, pin->second);
        values_.set_known(in.name, value);
        result_.pinned.emplace_back(in.name, std::move(value));
        continue;
      }
      const std::string& name = names_.map(in.name);
      values_.set_operand(in.name, builder_.input(name, {*dtype, shape}));
      result_.inputs.emplace_back(in.name, name);
    }
    for (const auto& pinned : options_.pin_inputs) {
      const std::string& name = pinned.first;
      check(std::any_of(g.input.begin(), g.input.end(), [&](auto& i) { return i.name == name; }),
            "--pin-input names '{}', which is not a graph input", name);
    }
    if (!unresolved.empty()) {
      report_unsupported();  // an unusable input explains more than its missing dims
      std::string all;
      for (const auto& u : unresolved) all += "\n  " + u;
      fail(
          "{} free input dimension(s) have no value:{}\nhint: give each with the flag shown "
          "(or --override-dims-file), or give the input a value whose shape binds them "
          "(wnn validate --input NAME=FILE.npy)",
          unresolved.size(), all);
    }
  }

  static Tensor pinned_value(const std::string& name, DataType dtype, const Shape& shape,
                             const std::string& text) {
    std::vector<double> v;
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t end = text.find(',', pos);
      if (end == std::string::npos) end = text.size();
      const std::string item = text.substr(pos, end - pos);
      try {
        size_t used = 0;
        v.push_back(std::stod(item, &used));
        check(used == item.size(), "x");
      } catch (...) {
        fail("--pin-input {}={}: '{}' is not a number", name, text, item);
      }
      pos = end + 1;
    }
    const int64_t n = element_count(shape);
    check(v.size() == 1 || int64_t(v.size()) == n,
          "--pin-input {}: {} values given for shape {} ({} elements)", name, v.size(),
          shape_to_string(shape), n);
    return make_tensor(dtype, shape, v);
  }

  // The order to convert `nodes` in (topo_order.h): what the value table holds so far, poisoned
  // values included, exists before the first of them.
  std::vector<size_t> node_order(const std::vector<NodeProto>& nodes) const {
    return topo_order(nodes,
                      [&](const std::string& v) { return values_.has(v) || poisoned_.count(v); });
  }

  std::optional<std::vector<ValueSlot>> try_fold(const Converter& c, const NodeProto& node,
                                                 int64_t opset) {
    for (const auto& in : node.input) {
      if (in.empty()) continue;
      const ValueSlot& s = values_.slot(in);
      if (!s.known || s.known->size() > kMaxFoldElements) return std::nullopt;
    }
    auto graph = std::make_shared<Graph>();
    GraphBuilder sb(*graph);
    NameMapper sn([&](const std::string& n) { return graph->find(n).has_value(); });
    ValueTable scratch(sb, sn);
    for (const auto& in : node.input) {
      if (in.empty()) continue;
      Tensor known = *values_.slot(in).known;  // the scratch graph runs: aligned data only
      known.data = aligned_copy_if_needed(known.data, known.dtype);
      scratch.set_known(in, std::move(known));
    }
    try {
      ConvertContext ctx(node, opset, scratch);
      c.fn(ctx);
      std::vector<ValueSlot> out(node.output.size());
      std::vector<size_t> pending;
      for (size_t i = 0; i < node.output.size(); ++i) {
        if (node.output[i].empty()) continue;
        ValueSlot& s = scratch.slot(node.output[i]);
        if (s.known) {
          out[i].known = s.known;
        } else {
          if (element_count(graph->desc(*s.operand).shape) > kMaxFoldElements) return std::nullopt;
          if (!graph->is_output(*s.operand)) sb.output(*s.operand);
          pending.push_back(i);
        }
      }
      if (!pending.empty()) {
        runtime::Session session(graph);
        auto results = session.run({});
        for (size_t i : pending) {
          const std::string& name = graph->name_of(*scratch.slot(node.output[i]).operand);
          for (auto& r : results) {
            if (r.name == name) out[i].known = r.tensor;
          }
        }
      }
      return out;
    } catch (const Error&) {
      return std::nullopt;  // not foldable after all: convert it as graph operations
    }
  }

  void convert_node(const NodeProto& node) {
    const std::string domain(canonical_domain(node.domain));
    const std::string label = node.name.empty() ? "(unnamed)" : node.name;
    auto mark_poisoned = [&] {
      for (const auto& o : node.output) poisoned_.insert(o);
    };
    auto opset_it = opsets_.find(domain);
    if (opset_it == opsets_.end()) {
      unsupported_.push_back({label, node.op_type, domain, 0, "domain not in opset_import", ""});
      return mark_poisoned();
    }
    const int64_t opset = opset_it->second;
    const Converter* c = find_converter(domain, node.op_type, opset);
    if (!c || c->kind == ConvertKind::kUnsupported) {
      std::string reason =
          c ? std::string(c->note) : fmt::format("no converter for opset {}", opset);
      unsupported_.push_back({label, node.op_type, domain, opset, reason, ""});
      return mark_poisoned();
    }
    for (const auto& in : node.input) {
      if (in.empty()) continue;
      if (poisoned_.count(in)) return mark_poisoned();
      check(values_.has(in), "node '{}' ({}) reads '{}', which nothing produced", label,
            node.op_type, in);
    }
    if (domain.empty() && node.op_type == "If" && !node.input.empty() && !node.input[0].empty()) {
      if (const auto& cond = values_.slot(node.input[0]).known) {
        return with_error_context(fmt::format("node '{}' (If)", label),
                                  [&] { inline_if(node, *cond); });
      }
      const std::string why_not = with_error_context(
          fmt::format("node '{}' (If)", label), [&] { return select_if(node, label, domain); });
      if (why_not.empty()) return;
      unsupported_.push_back(
          {label, node.op_type, domain, opset,
           fmt::format("the condition is only known at run time and {}: a WebNN graph has no "
                       "branches; pin the input(s) that decide it with --pin-input",
                       why_not),
           std::string(kControlFlowCategory)});
      return mark_poisoned();
    }
    if (c->foldable) {
      if (auto folded = try_fold(*c, node, opset)) {
        for (size_t i = 0; i < node.output.size(); ++i) {
          if (!node.output[i].empty()) values_.set_known(node.output[i], *(*folded)[i].known);
        }
        return;
      }
    }
    try {
      const size_t nodes_before = result_.graph.nodes().size();
      ConvertContext ctx(node, opset, values_);
      with_error_context(fmt::format("node '{}' ({})", label, node.op_type), [&] { c->fn(ctx); });
      record_origin(node, domain, nodes_before);
      for (size_t i = 0; i < node.output.size(); ++i) {
        // An output the converter does not compute: an optional one wnn leaves out, or one the
        // operator does not define (a Relu with two outputs). Either way it is named, not
        // dropped.
        const std::string& o = node.output[i];
        if (!o.empty() && !values_.has(o)) {
          ctx.unsupported("output {} ('{}') is not computed by the {} converter", i, o,
                          node.op_type);
        }
      }
    } catch (const UnsupportedError& e) {
      unsupported_.push_back({label, node.op_type, domain, opset, e.message(), e.category()});
      mark_poisoned();
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::kInternal) throw;
      unsupported_.push_back(
          {label, node.op_type, domain, opset, "conversion failed: " + std::string(e.what()), ""});
      mark_poisoned();
    }
  }

  void record_origin(const NodeProto& node, const std::string& domain, size_t nodes_before) {
    const size_t nodes_after = result_.graph.nodes().size();
    if (nodes_after == nodes_before) return;  // an alias of an existing operand
    NodeOrigin origin{node.name, node.op_type, domain, {}};
    for (const auto& o : node.output) {
      if (o.empty() || !values_.has(o)) continue;
      if (const auto& id = values_.slot(o).operand) {
        origin.outputs.emplace_back(o, result_.graph.name_of(*id));
      }
    }
    result_.origins.push_back(std::move(origin));
    result_.origin_of.resize(nodes_after, -1);
    for (size_t n = nodes_before; n < nodes_after; ++n) {
      result_.origin_of[n] = int32_t(result_.origins.size() - 1);
    }
  }

  // An If whose condition is known: the chosen branch's nodes are converted in place of the
  // If, under scoped names, and the If's outputs become the branch's outputs. The branch reads
  // outer values by their names (captures), which the value table already holds.
  void inline_if(const NodeProto& node, const Tensor& cond) {
    check(cond.size() == 1, "the condition has {} elements; If needs exactly one", cond.size());
    const bool taken_branch = element_as_double(cond.view(), 0) != 0;
    const GraphProto branch = scoped_branch(node, taken_branch ? "then" : "else");
    convert_branch_nodes(branch);
    for (size_t i = 0; i < node.output.size(); ++i) {
      const std::string& from = branch.output[i].name;
      const std::string& to = node.output[i];
      if (to.empty()) continue;
      if (poisoned_.count(from)) {
        poisoned_.insert(to);
        continue;
      }
      check(values_.has(from), "branch output '{}' is not produced by the branch", from);
      const ValueSlot value = values_.slot(from);
      if (value.operand) values_.set_operand(to, *value.operand);
      if (value.known) values_.set_known(to, *value.known);
    }
  }

  // Branch `which` ("then" or "else") of If `node`, its values renamed under the scope
  // "<node name>/<which>" (subgraph.h).
  GraphProto scoped_branch(const NodeProto& node, std::string_view which) {
    const AttributeProto* a = node.find_attribute(fmt::format("{}_branch", which));
    check(a && a->g, "the {}_branch attribute is missing", which);
    check(!node.output.empty(), "If has no outputs");
    if (!scoped_names_) {
      scoped_names_.emplace();
      collect_names(model_.graph, *scoped_names_);
    }
    const std::string scope =
        fmt::format("{}/{}", node.name.empty() ? "If_" + node.output.at(0) : node.name, which);
    GraphProto branch = scope_subgraph(*a->g, scope, *scoped_names_);
    check(branch.sparse_initializer.empty(), "sparse initializers are not supported");
    check(branch.output.size() == node.output.size(), "the {} branch has {} outputs, the If {}",
          which, branch.output.size(), node.output.size());
    return branch;
  }

  void convert_branch_nodes(const GraphProto& branch) {
    for (const auto& t : branch.initializer) add_initializer(t);
    for (size_t i : node_order(branch.node)) convert_node(branch.node[i]);
  }

  // Why a branch of a run-time If cannot be computed unconditionally ("" when it can): it must
  // be pure and hold no Loop or Scan, at any depth (a nested If is checked when it is reached).
  static std::string why_not_unconditional(const GraphProto& g, std::string_view which) {
    for (const auto& n : g.node) {
      const std::string label = n.name.empty() ? "(unnamed)" : n.name;
      if (n.op_type == "Loop" || n.op_type == "Scan") {
        return fmt::format("the {} branch holds a {} ('{}')", which, n.op_type, label);
      }
      const Inexpressible* e = find_inexpressible(n.op_type);
      if (e && e->category == kRandomnessCategory) {
        return fmt::format("the {} branch is impure ({} '{}' draws random values)", which,
                           n.op_type, label);
      }
      for (const auto& a : n.attribute) {
        std::vector<const GraphProto*> nested;
        if (a.g) nested.push_back(a.g.get());
        for (const auto& sub : a.graphs) nested.push_back(sub.get());
        for (const GraphProto* sub : nested) {
          if (std::string why = why_not_unconditional(*sub, which); !why.empty()) return why;
        }
      }
    }
    return {};
  }

  struct BranchCost {
    size_t ops = 0;
    double flops = 0, bytes = 0;  // bytes: of every value the branch's nodes write
  };

  // Converts a scoped branch; returns the cost of the nodes it added.
  BranchCost convert_branch(const GraphProto& branch) {
    const size_t before = result_.graph.nodes().size();
    convert_branch_nodes(branch);
    BranchCost cost;
    const auto& nodes = result_.graph.nodes();
    for (size_t i = before; i < nodes.size(); ++i) {
      ++cost.ops;
      cost.flops += runtime::node_flops(result_.graph, nodes[i]);
      for (OperandId o : nodes[i].outputs) {
        const OperandDesc& d = result_.graph.desc(o);
        cost.bytes += double(element_count(d.shape)) * double(dtype_size(d.dtype));
      }
    }
    return cost;
  }

  // An If whose condition is only known at run time: both branches are converted under their
  // scoped names and each output becomes where(cond, then, else). Returns why not ("") when a
  // branch is not pure and loop-free, or the outputs differ in dtype or do not broadcast.
  std::string select_if(const NodeProto& node, const std::string& label,
                        const std::string& domain) {
    for (const char* which : {"then", "else"}) {
      const AttributeProto* a = node.find_attribute(fmt::format("{}_branch", which));
      check(a && a->g, "the {}_branch attribute is missing", which);
      if (std::string why = why_not_unconditional(*a->g, which); !why.empty()) return why;
    }
    const GraphProto then_g = scoped_branch(node, "then"), else_g = scoped_branch(node, "else");
    const BranchCost then_cost = convert_branch(then_g);
    const BranchCost else_cost = convert_branch(else_g);
    auto desc_of = [&](const std::string& v) {
      const ValueSlot& s = values_.slot(v);
      return s.known ? OperandDesc{s.known->dtype, s.known->shape} : result_.graph.desc(*s.operand);
    };
    std::vector<size_t> selected;
    for (size_t i = 0; i < node.output.size(); ++i) {
      const std::string &t = then_g.output[i].name, &e = else_g.output[i].name;
      if (node.output[i].empty()) continue;
      if (poisoned_.count(t) || poisoned_.count(e)) {
        poisoned_.insert(node.output[i]);
        continue;
      }
      check(values_.has(t) && values_.has(e), "output {} is not produced by its branch", i);
      const OperandDesc td = desc_of(t), ed = desc_of(e);
      if (td.dtype != ed.dtype) {
        return fmt::format("output {} ('{}') is {} in the then branch but {} in the else branch", i,
                           node.output[i], dtype_name(td.dtype), dtype_name(ed.dtype));
      }
      if (!broadcast_shapes(td.shape, ed.shape)) {
        return fmt::format("output {} ('{}') has shapes {} and {}, which do not broadcast", i,
                           node.output[i], shape_to_string(td.shape), shape_to_string(ed.shape));
      }
      selected.push_back(i);
    }
    const size_t before = result_.graph.nodes().size();
    OperandId cond = values_.operand(node.input[0]);
    // A one-element condition of any rank selects like a scalar: the outputs keep the rank of
    // the branches (where would broadcast them to the condition's rank).
    if (!result_.graph.desc(cond).shape.empty()) {
      check(element_count(result_.graph.desc(cond).shape) == 1,
            "the condition has shape {}; If needs exactly one element",
            shape_to_string(result_.graph.desc(cond).shape));
      cond = builder_.add1(OpKind::kReshape, {cond, RawValue(Shape{})}, {},
                           builder_.unique_name(names_.map(node.input[0]) + "_scalar"));
    }
    for (size_t i : selected) {
      const OperandId t = values_.operand(then_g.output[i].name);
      const OperandId e = values_.operand(else_g.output[i].name);
      values_.set_operand(node.output[i], builder_.add1(OpKind::kWhere, {cond, t, e}, {},
                                                        names_.map(node.output[i])));
    }
    record_origin(node, domain, before);
    const size_t ops = then_cost.ops + else_cost.ops + result_.graph.nodes().size() - before;
    result_.warnings.push_back(fmt::format(
        "If '{}': the condition is only known at run time, so both branches are computed and "
        "each output is selected with where: {} ops added; every run computes the branch it "
        "does not take (then: {} ops, {:.4g} FLOPs, {:.4g} bytes written; else: {} ops, {:.4g} "
        "FLOPs, {:.4g} bytes written)",
        label, ops, then_cost.ops, then_cost.flops, then_cost.bytes, else_cost.ops, else_cost.flops,
        else_cost.bytes));
    return {};
  }

  // Names, not ids: pruning inputs rebuilds the graph but keeps every operand's name.
  void record_values(const NodeProto& node) {
    for (const auto& o : node.output) {
      if (o.empty() || !values_.has(o)) continue;  // an unsupported node: the import fails
      const ValueSlot& s = values_.slot(o);
      result_.values.emplace_back(
          o, s.known || !s.operand ? std::string() : result_.graph.name_of(*s.operand));
    }
  }

  void align_constants() {
    const auto constants = result_.graph.constants();
    for (size_t i = 0; i < constants.size(); ++i) {
      const Buffer& data = constants[i].data;
      Buffer aligned = aligned_copy_if_needed(data, result_.graph.desc(constants[i].id).dtype);
      if (aligned.data() != data.data()) result_.graph.bind_constant(i, std::move(aligned));
    }
  }

  // Inputs nothing reads (a pinned If took the other branch, Shape of an input folded) are
  // removed, so a caller need not feed values the graph ignores.
  void prune_unread_inputs() {
    std::vector<std::string> removed;
    Graph pruned = passes::remove_unread_inputs(result_.graph, removed);
    if (removed.empty()) return;
    std::vector<std::string> onnx_names;
    std::erase_if(result_.inputs, [&](const auto& in) {
      if (std::find(removed.begin(), removed.end(), in.second) == removed.end()) return false;
      onnx_names.push_back(in.first);
      result_.pruned.emplace_back(in.first, result_.graph.desc(*result_.graph.find(in.second)));
      return true;
    });
    result_.graph = std::move(pruned);
    result_.warnings.push_back(fmt::format(
        "graph input(s) '{}' are read by nothing after pinning and folding: removed from the "
        "converted graph",
        fmt::join(onnx_names, "', '")));
  }

  static std::string non_tensor_category(const TypeProto& t) {
    switch (t.kind) {
      case TypeProto::Kind::kSequence:
        return "sequences";
      case TypeProto::Kind::kOptional:
        return "optional";
      case TypeProto::Kind::kMap:
        return "maps";
      default:
        return "";
    }
  }

  void check_output_types(const GraphProto& g) {
    for (const auto& out : g.output) {
      const TypeProto& t = out.type;
      if (t.kind != TypeProto::Kind::kNone && !t.is_tensor()) {
        unsupported_.push_back({"(graph output) " + out.name, "output", "", 0,
                                "output type " + type_to_string(t) + " is not a tensor",
                                non_tensor_category(t)});
      } else if (t.is_tensor() && t.elem_type == int32_t(OnnxType::kString)) {
        unsupported_.push_back(
            {"(graph output) " + out.name, "output", "", 0, "string output", "strings"});
      } else if (const InexpressibleType* e = find_inexpressible_io_type(t.elem_type)) {
        unsupported_.push_back({"(graph output) " + out.name, "output", "", 0, std::string(e->why),
                                std::string(kDataTypeCategory)});
      }
    }
  }

  void report_unsupported() {
    if (unsupported_.empty()) return;
    for (auto& u : unsupported_) {
      if (u.category.empty()) {
        if (const Inexpressible* e = find_inexpressible(u.op_type)) u.category = e->category;
      }
    }
    std::string all;
    for (const auto& u : unsupported_) {
      all += fmt::format("\n  node '{}': {} (domain '{}', opset {}): {}", u.name, u.op_type,
                         u.domain.empty() ? "ai.onnx" : u.domain, u.opset, u.reason);
    }
    std::string message =
        fmt::format("{} unsupported node(s); nothing was written:{}", unsupported_.size(), all);
    throw UnsupportedModelError(std::move(message), std::move(unsupported_));
  }

  void add_outputs(const GraphProto& g) {
    for (const auto& out : g.output) {
      ValueSlot& slot = values_.slot(out.name);
      if (!slot.operand) {
        // A folded output: its constant takes another name, the identity below takes this one.
        slot.operand = builder_.constant(
            builder_.unique_name("const_" + names_.map(out.name) + "_value"), *slot.known);
      }
      OperandId id = *slot.operand;
      const Operand& op = result_.graph.operand(id);
      // Outputs keep their ONNX names where the text format can write them (NameMapper).
      std::string name = names_.map(out.name);
      if (op.name != name || op.kind != OperandKind::kNodeOutput || result_.graph.is_output(id)) {
        // An input, constant or renamed value is passed through. A graph input passed straight
        // to an output of the same ONNX name (or an output listed twice) already holds the
        // name: the identity takes a fresh one, and the output map records it.
        if (result_.graph.find(name)) name = builder_.unique_name(name + "_output");
        id = builder_.add1(OpKind::kIdentity, {id}, {}, name);
      }
      builder_.output(id);
      result_.outputs.emplace_back(out.name, name);
    }
  }

  const ModelProto& model_;
  const ImportOptions& options_;
  ExternalDataResolver resolver_;
  ImportResult result_;
  GraphBuilder builder_;
  NameMapper names_;
  ValueTable values_;
  std::map<std::string, int64_t> opsets_;
  std::map<std::string, int64_t> metadata_dims_;
  DimOverrides dim_overrides_;
  std::set<std::string> poisoned_;
  // Every name of the model plus the scoped names given so far (made on the first If inlined).
  std::optional<std::set<std::string>> scoped_names_;
  std::vector<UnsupportedNode> unsupported_;
};

}  // namespace

ImportResult import_model(const ModelProto& model, const std::string& model_dir,
                          const ImportOptions& options) {
  return Importer(model, model_dir, options).run();
}

ImportResult import_model(const std::string& path, const ImportOptions& options) {
  ModelProto model = load_model(path);
  return with_error_context(path, [&] {
    return import_model(model, std::filesystem::path(path).parent_path().string(), options);
  });
}

}  // namespace wnn::onnx
