// Helpers shared by the onnx module's tests.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "wnn/core/error.h"
#include "wnn/onnx/tensor_data.h"

namespace wnn::onnx::testing {

// Runs fn, expects a wnn::Error, and returns its full message.
template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no wnn::Error thrown";
  return "";
}

template <typename T>
std::vector<T> elements(const TensorData& d) {
  std::vector<T> out(d.data.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), d.data.data(), d.data.size());
  return out;
}

inline Buffer bytes_buffer(std::initializer_list<uint8_t> bytes) {
  std::vector<std::byte> b;
  for (uint8_t v : bytes) b.push_back(std::byte{v});
  return Buffer::copy_of(b);
}

}  // namespace wnn::onnx::testing
