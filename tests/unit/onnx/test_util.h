// Helpers shared by the onnx module's tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

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

// Runs a fixture script (tests/unit/onnx/SCRIPT OUT) once per process into a fresh temporary
// directory named after `tag`, and returns that directory.
inline std::filesystem::path generate_models(const std::string& script, const std::string& tag) {
  const std::filesystem::path d =
      std::filesystem::temp_directory_path() / (tag + "_" + std::to_string(::getpid()));
  const std::string cmd = "/usr/bin/python3 " WNN_SOURCE_DIR "/tests/unit/onnx/" + script + " " +
                          d.string() + " 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return d;
}

// Runs a shell command and returns its stdout; *status gets pclose's status.
inline std::string run_command(const std::string& command, int* status) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  *status = pclose(p);
  return out;
}

}  // namespace wnn::onnx::testing
