#include "ndarray.h"

#include <cstring>

#include "wnn/core/error.h"

namespace wnn::python {

py::dtype numpy_dtype(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return py::dtype("float32");
    case DataType::kFloat16:
      return py::dtype("float16");
    case DataType::kInt32:
      return py::dtype("int32");
    case DataType::kUint32:
      return py::dtype("uint32");
    case DataType::kInt64:
      return py::dtype("int64");
    case DataType::kUint64:
      return py::dtype("uint64");
    case DataType::kInt8:
    case DataType::kInt4:
      return py::dtype("int8");
    case DataType::kUint8:
    case DataType::kUint4:
      return py::dtype("uint8");
  }
  check_internal(false, "unknown data type {}", int(t));
  return py::dtype("float32");
}

DataType wnn_dtype(const py::dtype& d) {
  const char kind = d.kind();
  const size_t size = size_t(d.itemsize());
  if (kind == 'f' && size == 4) return DataType::kFloat32;
  if (kind == 'f' && size == 2) return DataType::kFloat16;
  if (kind == 'i' && size == 4) return DataType::kInt32;
  if (kind == 'i' && size == 8) return DataType::kInt64;
  if (kind == 'i' && size == 1) return DataType::kInt8;
  if (kind == 'u' && size == 4) return DataType::kUint32;
  if (kind == 'u' && size == 8) return DataType::kUint64;
  if (kind == 'u' && size == 1) return DataType::kUint8;
  if (kind == 'b') return DataType::kUint8;  // WebNN has no bool: predicates are uint8
  const std::string name = py::repr(d).cast<std::string>();
  check(false, "numpy dtype {} has no WebNN data type", name);
  return DataType::kFloat32;
}

DataType parse_dtype_arg(const py::handle& h) {
  if (py::isinstance<py::str>(h)) {
    const std::string s = h.cast<std::string>();
    const auto t = parse_dtype(s);
    check(t.has_value(), "unknown data type '{}'", s);
    return *t;
  }
  return wnn_dtype(py::dtype::from_args(py::reinterpret_borrow<py::object>(h)));
}

py::array contiguous(const py::array& a) {
  if (a.dtype().kind() == 'b') {
    // Same bytes, read as uint8.
    return py::array::ensure(a, py::array::c_style).attr("view")(py::dtype("uint8"));
  }
  return py::array::ensure(a, py::array::c_style);
}

Shape shape_of(const py::array& a) {
  Shape s(size_t(a.ndim()));
  for (size_t i = 0; i < s.size(); ++i) s[i] = int64_t(a.shape(py::ssize_t(i)));
  return s;
}

Tensor tensor_from_array(const py::array& a) {
  const py::array c = contiguous(a);
  Tensor t;
  t.dtype = wnn_dtype(c.dtype());
  t.shape = shape_of(c);
  const size_t bytes = size_t(c.nbytes());
  t.data = Buffer::allocate(bytes);
  if (bytes != 0) std::memcpy(t.data.mutable_data(), c.data(), bytes);
  return t;
}

py::array array_from_tensor(const Tensor& t) {
  auto* keep = new Buffer(t.data);  // owned by the capsule below
  py::capsule owner(keep, [](void* p) { delete static_cast<Buffer*>(p); });
  std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
  const py::dtype dt = numpy_dtype(t.dtype);
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = dt.itemsize();
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<py::ssize_t>(shape[i], 1);
  }
  static const std::byte kEmpty[8] = {};
  const void* data = t.data.data() != nullptr ? t.data.data() : kEmpty;
  py::array out(dt, shape, strides, data, owner);
  // The buffer is shared with the session's results; numpy users get a read-only view.
  out.attr("flags").attr("writeable") = false;
  return out;
}

}  // namespace wnn::python
