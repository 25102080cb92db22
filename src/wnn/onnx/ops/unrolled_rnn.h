// Recurrences WebNN's gru/lstm cannot take as they are, unrolled step by step over the static
// sequence length: the simple RNN (no WebNN op), and LSTM with run-time or output-gate
// peepholes (WebNN's lstm peeps at the previous cell state for the output gate; ONNX at the
// new one). Every activation, clip, sequence_lens and layout=1 are honoured.
#pragma once

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {

void rnn_unrolled(ConvertContext& c);
void lstm_unrolled(ConvertContext& c);

// layout=1 (batch-major) <-> ONNX's default seq-major layout: X [B,S,I] -> [S,B,I] and the
// states [B,D,H] -> [D,B,H]; and back for Y [S,D,B,H] -> [B,S,D,H].
OperandId to_seq_major(ConvertContext& c, OperandId x);
OperandId state_to_dir_major(ConvertContext& c, OperandId s);
OperandId y_to_batch_major(ConvertContext& c, OperandId y, std::string name);
OperandId state_to_batch_major(ConvertContext& c, OperandId s, std::string name);

}  // namespace wnn::onnx::ops
