// Helpers for format tests: a fresh temporary directory per test and raw file writing, so
// malformed files can be built byte by byte.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "wnn/core/error.h"
#include "wnn/core/tensor.h"

namespace wnn::format::testing {

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            (std::string("wnn_") + info->test_suite_name() + "_" + info->name() + "_" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_raw(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

inline std::string read_raw(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::string u64_le(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = char((v >> (8 * i)) & 0xff);
  return s;
}

// A Safetensors file from a header and a data region, exactly as given.
inline std::string safetensors_bytes(const std::string& header, const std::string& data) {
  return u64_le(header.size()) + header + data;
}

template <typename T>
Buffer buffer_of(const std::vector<T>& values) {
  return Buffer::copy_of(std::as_bytes(std::span(values)));
}

template <typename T>
std::vector<T> values_of(const Buffer& b) {
  std::vector<T> out(b.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), b.data(), b.size());
  return out;
}

// The message of the wnn::Error `fn` throws; fails the test when it throws nothing.
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a wnn::Error";
  return "";
}

inline bool have_python() { return std::filesystem::exists("/usr/bin/python3"); }

// Runs a command and returns its stdout; fails the test on a non-zero exit.
inline std::string run_command(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = ::pclose(p);
  EXPECT_EQ(rc, 0) << command << "\n" << out;
  return out;
}

}  // namespace wnn::format::testing
