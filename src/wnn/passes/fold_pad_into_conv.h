// A zero pad of the spatial dims before a conv2d folded into the conv's own padding. tf2onnx
// writes Keras' ZeroPadding2D before a strided conv (MobileNet blocks, "same" padding of a
// stride-2 conv) as an ONNX Pad: on the reference kernels it copied each activation once more
// and split the delegate region around it (mlsd-tiny-320: 41% of the run in three pads).
#pragma once

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

using PadFolding = PatternFusion;

// Deterministic, matched on structure only: a pad in constant mode with value 0, zero padding
// on the batch and channel dims of the conv's inputLayout, read as a conv2d's input (not
// convTranspose2d, whose padding crops). Each such conv reads the pad's input with the pad
// added to its padding; the pad itself stays only if something else reads it or it is a
// graph output.
PadFolding fold_pads_into_convs(const Graph& graph);

}  // namespace wnn::passes
