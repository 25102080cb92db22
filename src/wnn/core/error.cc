#include "wnn/core/error.h"

namespace wnn {

Error::Error(std::string message, ErrorKind kind) : message_(std::move(message)), kind_(kind) {
  rebuild();
}

Error& Error::with_context(std::string context) {
  context_.insert(context_.begin(), std::move(context));
  rebuild();
  return *this;
}

void Error::rebuild() {
  full_.clear();
  for (const auto& c : context_) {
    full_ += c;
    full_ += ": ";
  }
  full_ += message_;
}

}  // namespace wnn
