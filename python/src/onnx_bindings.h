// The ONNX half of the `wnn._wnn` extension: conversion (onnx::import_model + format::save_model)
// and validation against ONNX Runtime (validate::validate_onnx_model), kept apart from the
// graph/session bindings in module.cc.
#pragma once

#include <pybind11/pybind11.h>

namespace wnn::python {

void bind_onnx(pybind11::module_& m);

}  // namespace wnn::python
