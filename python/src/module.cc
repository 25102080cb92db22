// The `wnn._wnn` extension: a thin face over the C++ core. GraphBuilder validates each add
// exactly as the C++ builder does; load/save use format::load_model/save_model; Session runs a
// graph with numpy inputs viewed in place. wnn::Error surfaces as the Python class wnn.Error.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "ndarray.h"
#include "onnx_bindings.h"
#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/core/names.h"
#include "wnn/format/graph_file.h"
#include "wnn/format/model.h"
#include "wnn/format/resolve_dims.h"
#include "wnn/runtime/session.h"

namespace wnn::python {
namespace {

// A handle to one operand of a builder's graph.
struct PyOperand {
  std::shared_ptr<Graph> graph;
  OperandId id;
  const OperandDesc& desc() const { return graph->desc(id); }
};

RawValue to_raw(const py::handle& h, const std::shared_ptr<Graph>& graph) {
  if (py::isinstance<PyOperand>(h)) {
    const PyOperand& o = h.cast<const PyOperand&>();
    check(o.graph == graph, "operand '{}' belongs to another GraphBuilder", o.graph->name_of(o.id));
    return RawValue(o.id);
  }
  if (py::isinstance<py::bool_>(h)) return RawValue(h.cast<bool>());
  // numpy integer scalars and Python ints (bool was handled above).
  if (py::isinstance<py::int_>(h) || py::hasattr(h, "__index__")) {
    return RawValue(h.cast<int64_t>());
  }
  if (py::isinstance<py::float_>(h) || py::hasattr(h, "__float__")) {
    if (!py::isinstance<py::str>(h)) return RawValue(h.cast<double>());
  }
  if (py::isinstance<py::str>(h)) return RawValue(h.cast<std::string>());
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    RawValue::List list;
    for (const py::handle item : h) list.push_back(to_raw(item, graph));
    return RawValue(std::move(list));
  }
  if (py::isinstance<py::dtype>(h) || py::isinstance<py::type>(h)) {
    return RawValue(parse_dtype_arg(h));
  }
  fail("cannot pass a Python {} to the builder",
       std::string(py::str(h.get_type().attr("__name__"))));
}

class PyGraphBuilder {
 public:
  PyGraphBuilder()
      : graph_(std::make_shared<Graph>()),
        builder_(*graph_),
        names_([g = graph_.get()](const std::string& n) { return g->find(n).has_value(); }) {}

  // `dynamic_dims`: one entry per dim, None or (name, max); a dynamic dim's static size in
  // `shape` must be its max (the file format's rule).
  PyOperand input(std::string name, std::vector<int64_t> shape, const py::object& dtype,
                  const std::optional<std::vector<std::optional<std::pair<std::string, int64_t>>>>&
                      dynamic_dims) {
    const DataType t = dtype.is_none() ? DataType::kFloat32 : parse_dtype_arg(dtype);
    std::vector<std::optional<DynamicDim>> dyn;
    if (dynamic_dims) {
      check(dynamic_dims->size() == shape.size(),
            "input '{}': dynamic_dims has {} entries for a rank-{} shape", name,
            dynamic_dims->size(), shape.size());
      for (size_t i = 0; i < shape.size(); ++i) {
        const auto& d = (*dynamic_dims)[i];
        if (!d) {
          dyn.emplace_back();
          continue;
        }
        check(d->second == shape[i],
              "input '{}': dynamic dim '{}' (dim {}) has max {} but the shape says {}", name,
              d->first, i, d->second, shape[i]);
        dyn.push_back(DynamicDim{d->first, d->second});
      }
    }
    return wrap(builder_.input(std::move(name), {t, std::move(shape)}, std::move(dyn)));
  }

  // A constant holding a copy of `data`: stored as weights under `key` (default: its name),
  // or written inline as @bytes when `inline_bytes` (small derived tensors such as arange).
  PyOperand constant(std::string name, const py::array& data, std::optional<std::string> key,
                     bool inline_bytes) {
    Tensor t = tensor_from_array(data);
    if (inline_bytes) {
      const auto* p = reinterpret_cast<const uint8_t*>(t.data.data());
      std::vector<uint8_t> bytes(p, p + t.byte_size());
      return wrap(builder_.constant(std::move(name), {t.dtype, t.shape}, ConstantInitKind::kBytes,
                                    {}, {}, std::move(bytes)));
    }
    std::string k = key.value_or(name);
    return wrap(builder_.constant(std::move(name), {t.dtype, t.shape}, ConstantInitKind::kWeights,
                                  std::move(k), {}, {}, t.data));
  }

  // An inline @scalar constant: `shape` filled with `value`; never stored as weights.
  PyOperand scalar(std::string name, const py::object& value, const py::object& dtype,
                   std::vector<int64_t> shape) {
    const DataType t = parse_dtype_arg(dtype);
    Value v;
    if (py::isinstance<py::bool_>(value)) {
      v = int64_t(value.cast<bool>());
    } else if (is_float(t)) {
      v = value.cast<double>();
    } else {
      v = value.cast<int64_t>();
    }
    if (name.empty()) name = builder_.unique_name("scalar");
    return wrap(builder_.constant(std::move(name), {t, std::move(shape)}, ConstantInitKind::kScalar,
                                  {}, std::move(v)));
  }

  py::object add(const std::string& op, const py::args& args, const py::kwargs& kwargs) {
    Call call;
    call.op = op;
    for (const py::handle a : args) call.args.push_back({"", to_raw(a, graph_), ""});
    for (const auto& [k, v] : kwargs) {
      const std::string key = k.cast<std::string>();
      if (key == "name") {
        if (py::isinstance<py::str>(v)) {
          call.outputs.push_back(v.cast<std::string>());
        } else {
          call.outputs = v.cast<std::vector<std::string>>();
        }
        continue;
      }
      if (v.is_none()) continue;  // None means "not given": the spec default applies
      call.args.push_back({key, to_raw(v, graph_), ""});
    }
    const std::vector<OperandId> outs = builder_.add(call);
    if (outs.size() == 1) return py::cast(wrap(outs[0]));
    py::tuple t(outs.size());
    for (size_t i = 0; i < outs.size(); ++i) t[i] = py::cast(wrap(outs[i]));
    return t;
  }

  void output(const py::object& o) {
    if (py::isinstance<py::str>(o)) {
      builder_.output(o.cast<std::string>());
    } else {
      const PyOperand& op = o.cast<const PyOperand&>();
      check(op.graph == graph_, "operand '{}' belongs to another GraphBuilder",
            op.graph->name_of(op.id));
      builder_.output(op.id);
    }
  }

  PyOperand operand(const std::string& name) const {
    const auto id = graph_->find(name);
    check(id.has_value(), "no operand named '{}'", name);
    return {graph_, *id};
  }

  std::string unique_name(const std::string& base) const { return builder_.unique_name(base); }
  // NameMapper's name for `name`: itself when the text form can hold it and it is free.
  std::string text_name(const std::string& name) { return names_.map(name); }
  std::shared_ptr<Graph> graph() const { return graph_; }

 private:
  PyOperand wrap(OperandId id) const { return {graph_, id}; }
  std::shared_ptr<Graph> graph_;
  GraphBuilder builder_;
  NameMapper names_;
};

std::vector<std::string> input_names(const Graph& g) {
  std::vector<std::string> names;
  for (const auto& in : g.inputs()) names.push_back(g.name_of(in.id));
  return names;
}

std::vector<std::string> output_names(const Graph& g) {
  std::vector<std::string> names;
  for (const OperandId id : g.outputs()) names.push_back(g.name_of(id));
  return names;
}

std::shared_ptr<Graph> load(const std::string& path, std::optional<std::string> weights) {
  format::LoadOptions options;
  options.weights_path = std::move(weights);
  return std::make_shared<Graph>(format::load_model(path, options).graph);
}

// "m.webnn" -> "m.safetensors"; any other name gets ".safetensors" appended.
std::string default_weights_path(const std::string& graph_path) {
  const std::string ext = ".webnn";
  if (graph_path.size() > ext.size() &&
      graph_path.compare(graph_path.size() - ext.size(), ext.size(), ext) == 0) {
    return graph_path.substr(0, graph_path.size() - ext.size()) + ".safetensors";
  }
  return graph_path + ".safetensors";
}

class PySession {
 public:
  PySession(const py::object& source, const std::string& backend, int threads) {
    std::shared_ptr<const Graph> graph;
    if (py::isinstance<Graph>(source)) {
      // A copy, so a builder that keeps adding cannot change the compiled graph.
      graph = std::make_shared<const Graph>(source.cast<const Graph&>());
    } else if (py::isinstance<PyGraphBuilder>(source)) {
      graph = std::make_shared<const Graph>(*source.cast<const PyGraphBuilder&>().graph());
    } else {
      graph = load(py::str(source).cast<std::string>(), std::nullopt);
    }
    options_.backend = backend;
    options_.threads = threads;
    if (graph->has_dynamic_inputs()) {
      // Compiled per set of actual sizes, on first use (see session_for).
      dynamic_graph_ = std::move(graph);
    } else {
      session_ = std::make_shared<runtime::Session>(std::move(graph), options_);
    }
  }

  // The graph as loaded: for a graph with dynamic dims, its inputs keep them (at max).
  const Graph& graph() const { return dynamic_graph_ ? *dynamic_graph_ : session_->graph(); }

  py::dict run(const py::dict& feeds) const {
    const Graph& g = graph();
    std::vector<py::array> arrays;  // keeps every viewed array alive through the run
    std::vector<Shape> shapes;
    arrays.reserve(feeds.size());
    shapes.reserve(feeds.size());
    std::vector<runtime::NamedView> views;
    for (const auto& [k, v] : feeds) {
      std::string name = py::str(k).cast<std::string>();
      py::array a = contiguous(py::array::ensure(v));
      check(bool(a), "input '{}' is not convertible to a numpy array", name);
      const auto id = g.find(name);
      if (id && g.operand(*id).kind == OperandKind::kInput && a.dtype().kind() != 'b') {
        // Python floats become float64 arrays: read them as the input's float type.
        const DataType want = g.desc(*id).dtype;
        if (a.dtype().kind() == 'f' && is_float(want) && wnn_dtype_or_none(a) != want) {
          a = contiguous(a.attr("astype")(numpy_dtype(want)));
        }
      }
      shapes.push_back(shape_of(a));
      views.push_back({std::move(name), ConstTensorView{wnn_dtype(a.dtype()), shapes.back(),
                                                        static_cast<const std::byte*>(a.data())}});
      arrays.push_back(std::move(a));
    }
    std::vector<runtime::NamedTensor> results;
    {
      py::gil_scoped_release release;
      results = session_for(views)->run(views);
    }
    py::dict out;
    for (const auto& r : results) out[py::str(r.name)] = array_from_tensor(r.tensor);
    return out;
  }

 private:
  static std::optional<DataType> wnn_dtype_or_none(const py::array& a) {
    const char kind = a.dtype().kind();
    if (kind == 'f' && (a.itemsize() == 4 || a.itemsize() == 2)) return wnn_dtype(a.dtype());
    return std::nullopt;
  }
  // The session for the sizes the feeds give the dynamic dims: the graph is resolved to them
  // (shapes inferred again) and compiled once per distinct set of sizes.
  std::shared_ptr<runtime::Session> session_for(std::span<const runtime::NamedView> feeds) const {
    if (!dynamic_graph_) return session_;
    std::map<std::string, int64_t> sizes;
    for (const auto& in : dynamic_graph_->inputs()) {
      const std::string& name = dynamic_graph_->name_of(in.id);
      const auto feed = std::find_if(feeds.begin(), feeds.end(),
                                     [&](const runtime::NamedView& v) { return v.name == name; });
      if (feed == feeds.end()) continue;  // the run reports the missing input
      check(feed->view.shape.size() == dynamic_graph_->desc(in.id).shape.size(),
            "input '{}' has rank {}, the graph expects {}", name, feed->view.shape.size(),
            dynamic_graph_->desc(in.id).shape.size());
      for (size_t i = 0; i < in.dynamic_dims.size(); ++i) {
        if (!in.dynamic_dims[i]) continue;
        const std::string& dim = in.dynamic_dims[i]->name;
        const int64_t size = feed->view.shape[i];
        const auto [it, fresh] = sizes.emplace(dim, size);
        check(fresh || it->second == size,
              "dynamic dim '{}' is {} in input '{}' but {} in an earlier input", dim, size, name,
              it->second);
      }
    }
    std::lock_guard lock(sessions_mutex_);
    auto& session = sessions_[sizes];
    if (!session) {
      session = std::make_shared<runtime::Session>(
          std::make_shared<const Graph>(format::resolve_dynamic_dims(*dynamic_graph_, sizes)),
          options_);
    }
    return session;
  }

  runtime::SessionOptions options_;
  std::shared_ptr<runtime::Session> session_;   // static graphs
  std::shared_ptr<const Graph> dynamic_graph_;  // graphs with dynamic input dims
  mutable std::mutex sessions_mutex_;
  mutable std::map<std::map<std::string, int64_t>, std::shared_ptr<runtime::Session>> sessions_;
};

py::dict operand_info(const Graph& g, OperandId id) {
  py::dict d;
  d["name"] = g.name_of(id);
  d["dtype"] = std::string(dtype_name(g.desc(id).dtype));
  d["shape"] = g.desc(id).shape;
  return d;
}

// An input's info plus `dynamic_dims`: one entry per dim, None or (name, max).
py::dict input_info(const Graph& g, const InputInfo& in) {
  py::dict d = operand_info(g, in.id);
  py::list dyn;
  for (size_t i = 0; i < g.desc(in.id).shape.size(); ++i) {
    if (i < in.dynamic_dims.size() && in.dynamic_dims[i]) {
      dyn.append(py::make_tuple(in.dynamic_dims[i]->name, in.dynamic_dims[i]->max));
    } else {
      dyn.append(py::none());
    }
  }
  d["dynamic_dims"] = dyn;
  return d;
}

}  // namespace
}  // namespace wnn::python

PYBIND11_MODULE(_wnn, m) {
  using namespace wnn;
  using namespace wnn::python;
  m.doc() = "wnn: WebNN graphs, their files and a CPU runtime (C++ core bindings)";
  py::register_exception<wnn::Error>(m, "Error", PyExc_RuntimeError);
  bind_onnx(m);

  py::class_<PyOperand>(m, "Operand")
      .def_property_readonly("name", [](const PyOperand& o) { return o.graph->name_of(o.id); })
      .def_property_readonly("shape",
                             [](const PyOperand& o) { return py::tuple(py::cast(o.desc().shape)); })
      .def_property_readonly(
          "dtype", [](const PyOperand& o) { return std::string(dtype_name(o.desc().dtype)); })
      .def_property_readonly("numpy_dtype",
                             [](const PyOperand& o) { return numpy_dtype(o.desc().dtype); })
      .def("__repr__", [](const PyOperand& o) {
        return "<wnn.Operand " + o.graph->name_of(o.id) + ": " + o.desc().to_string() + ">";
      });

  py::class_<Graph, std::shared_ptr<Graph>>(m, "Graph")
      .def_property_readonly("input_names", [](const Graph& g) { return input_names(g); })
      .def_property_readonly("output_names", [](const Graph& g) { return output_names(g); })
      .def_property_readonly("inputs",
                             [](const Graph& g) {
                               py::list l;
                               for (const auto& in : g.inputs()) l.append(input_info(g, in));
                               return l;
                             })
      .def_property_readonly("outputs",
                             [](const Graph& g) {
                               py::list l;
                               for (const OperandId id : g.outputs()) l.append(operand_info(g, id));
                               return l;
                             })
      .def_property_readonly("op_counts",
                             [](const Graph& g) {
                               std::map<std::string, int> counts;
                               for (const Node& n : g.nodes())
                                 ++counts[std::string(op_name(n.op()))];
                               return counts;
                             })
      .def("to_text", [](const Graph& g) { return format::print_text_mapping_names(g); });

  py::class_<PyGraphBuilder>(m, "GraphBuilder")
      .def(py::init<>())
      .def("input", &PyGraphBuilder::input, py::arg("name"), py::arg("shape"),
           py::arg("dtype") = py::none(), py::arg("dynamic_dims") = py::none(),
           "An input; dynamic_dims gives one entry per dim: None or (name, max), written as "
           "dyn(name, max)")
      .def("constant", &PyGraphBuilder::constant, py::arg("name"), py::arg("data"),
           py::arg("key") = py::none(), py::arg("inline") = false,
           "A constant holding a copy of `data`: weights stored under `key` (default: name), "
           "or inline @bytes when inline=True")
      .def("scalar", &PyGraphBuilder::scalar, py::arg("name"), py::arg("value"), py::arg("dtype"),
           py::arg("shape") = std::vector<int64_t>{},
           "An inline constant: `shape` filled with `value` (written as @scalar, not stored)")
      .def("add", &PyGraphBuilder::add, py::arg("op"),
           "add(op, *args, name=None, **options): one validated node; returns its output "
           "operand, or a tuple for several outputs")
      .def("output", &PyGraphBuilder::output)
      .def("operand", &PyGraphBuilder::operand)
      .def("unique_name", &PyGraphBuilder::unique_name)
      .def("text_name", &PyGraphBuilder::text_name,
           "The operand name for `name` that the .webnn text form can hold: `name` itself when "
           "valid and free, else a sanitized name with a hash suffix (docs/formats.md)")
      .def_property_readonly("graph", &PyGraphBuilder::graph);

  m.def("load", &load, py::arg("path"), py::arg("weights") = py::none(),
        "Loads a .webnn (or JSON) graph and binds its weights");
  m.def(
      "save",
      [](const py::object& g, const std::string& path, std::optional<std::string> weights) {
        const Graph& graph = py::isinstance<PyGraphBuilder>(g)
                                 ? *g.cast<const PyGraphBuilder&>().graph()
                                 : g.cast<const Graph&>();
        format::save_model(graph, path, weights.value_or(default_weights_path(path)));
      },
      py::arg("graph"), py::arg("path"), py::arg("weights") = py::none(),
      "Writes path (.webnn text, or JSON for .json) and its weights (default: path with "
      ".safetensors)");
  m.def("ops", [] {
    std::vector<std::string> names;
    for (const auto& s : all_schemas()) names.emplace_back(s.name);
    return names;
  });

  py::class_<PySession>(m, "Session")
      .def(py::init<const py::object&, const std::string&, int>(), py::arg("model"),
           py::arg("backend") = "ref", py::arg("threads") = 1)
      .def_property_readonly("input_names",
                             [](const PySession& s) { return input_names(s.graph()); })
      .def_property_readonly("output_names",
                             [](const PySession& s) { return output_names(s.graph()); })
      .def_property_readonly("graph",
                             [](const PySession& s) { return std::make_shared<Graph>(s.graph()); })
      .def("run", &PySession::run, py::arg("inputs"),
           "run({name: ndarray}) -> {name: ndarray}, outputs in graph order");
}
