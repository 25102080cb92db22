// wnn's one exception type and the check helpers that throw it.
// Errors carry a context chain (file:line:col, node, op, argument), added by each layer that
// knows more, and a kind that decides the CLI exit code: bad input (2) or internal bug (3).
#pragma once

#include <fmt/format.h>

#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace wnn {

enum class ErrorKind {
  kInvalidInput,  // the user's file or arguments are wrong: exit code 2
  kInternal,      // an invariant of wnn itself broke: a bug, exit code 3
};

class Error : public std::exception {
 public:
  explicit Error(std::string message, ErrorKind kind = ErrorKind::kInvalidInput);

  // The full message: context entries outermost first, then the message itself.
  const char* what() const noexcept override { return full_.c_str(); }
  const std::string& message() const { return message_; }
  const std::vector<std::string>& context() const { return context_; }
  ErrorKind kind() const { return kind_; }

  // Adds an outer context entry ("model.webnn:3:7", "conv2d 'y'"). Returns *this to rethrow.
  Error& with_context(std::string context);

 private:
  void rebuild();
  std::string message_;
  std::vector<std::string> context_;  // outermost first
  ErrorKind kind_;
  std::string full_;
};

// Throws wnn::Error (invalid input) with the formatted message when cond is false.
template <typename... Args>
inline void check(bool cond, fmt::format_string<Args...> format, Args&&... args) {
  if (!cond) [[unlikely]] {
    throw Error(fmt::format(format, std::forward<Args>(args)...));
  }
}
// A string literal as the condition would always be true: refuse to compile it.
template <typename... Args>
void check(const char*, Args&&...) = delete;

// Throws wnn::Error of kind kInternal: for invariants of wnn's own code, never user input.
template <typename... Args>
inline void check_internal(bool cond, fmt::format_string<Args...> format, Args&&... args) {
  if (!cond) [[unlikely]] {
    throw Error(fmt::format(format, std::forward<Args>(args)...), ErrorKind::kInternal);
  }
}
template <typename... Args>
void check_internal(const char*, Args&&...) = delete;

template <typename... Args>
[[noreturn]] inline void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

// Runs fn; any wnn::Error escaping it gets `context` added as its next outer entry.
template <typename Fn>
decltype(auto) with_error_context(const std::string& context, Fn&& fn) {
  try {
    return fn();
  } catch (Error& e) {
    e.with_context(context);
    throw;
  }
}

}  // namespace wnn
