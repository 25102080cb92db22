// Helpers the validate tests share: a scratch directory and scoped environment variables.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>

#include <fmt/format.h>

namespace wnn::validate::testing {

inline const std::string kFixtures = std::string(WNN_SOURCE_DIR) + "/tests/fixtures/validate/";
inline const std::string kTinyClassifier =
    std::string(WNN_SOURCE_DIR) + "/examples/tiny_classifier.onnx";

class ScratchDir {
 public:
  ScratchDir() {
    std::random_device rd;
    path_ = fmt::format("{}/wnn-validate-test-{}-{:08x}",
                        std::filesystem::temp_directory_path().string(), ::getpid(), rd());
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Sets (or, with nullopt, unsets) an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace wnn::validate::testing
