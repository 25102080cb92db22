// Conversions between numpy arrays and wnn tensors for the Python bindings. Views borrow the
// array's memory (zero-copy) when its dtype and layout already match; results hand numpy an
// array that keeps the wnn Buffer alive instead of copying it.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "wnn/core/tensor.h"

namespace wnn::python {

namespace py = pybind11;

// The numpy dtype that holds `t` (float16 as numpy float16, int4/uint4 unpacked as int8/uint8).
py::dtype numpy_dtype(DataType t);
// The WebNN dtype of a numpy dtype; bool is read as uint8. Throws wnn::Error for others.
DataType wnn_dtype(const py::dtype& d);
// Parses "float32", "f32", numpy dtypes or numpy scalar types.
DataType parse_dtype_arg(const py::handle& h);

// A C-contiguous array of the matching numpy dtype over the same memory when possible, else a
// contiguous copy. Keep the returned array alive while views into it are used.
py::array contiguous(const py::array& a);
Shape shape_of(const py::array& a);

// An owned copy of the array's data as a wnn Tensor of dtype `as`.
Tensor tensor_from_array(const py::array& a);
// A numpy array over the tensor's buffer, which it keeps alive.
py::array array_from_tensor(const Tensor& t);

}  // namespace wnn::python
