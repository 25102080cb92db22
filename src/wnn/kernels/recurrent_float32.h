// The float32 fast path of the gru and lstm sequence operators (see recurrent_float32.cc).
#pragma once

#include "wnn/kernels/kernel.h"

namespace wnn::kernels {

// Runs gru (is_lstm false) or lstm on float32 operands and returns true; returns false, doing
// nothing, when the input is another dtype (the double-precision path handles those).
bool recurrent_float32(const KernelArgs& args, bool is_lstm);

}  // namespace wnn::kernels
