#!/usr/bin/python3
"""Rewrites a float32 ONNX model into the shape onnxconverter-common's
`float16.convert_float_to_float16(model, keep_io_types=True)` writes, for the test zoo (Debian
has no onnxconverter-common; this is wnn's own code, following the structure and names that
converter emits):

- every float32 initializer, Constant value and value_info becomes float16, and Cast nodes
  with to=FLOAT cast to FLOAT16 instead;
- keep_io_types: float32 graph inputs and outputs stay float32. Input i is cast by a node
  `graph_input_cast<i>` writing `graph_input_cast_<i>`, which the body reads instead; output i
  is written by the body as `graph_output_cast_<i>` and cast back to float32 by
  `graph_output_cast<i>` under its own name;
- ops on the block list (the converter's DEFAULT_OP_BLOCK_LIST: Resize, TopK, Range, Min, Max,
  CumSum, ... which have no float16 kernel somewhere) stay float32: each float16 input goes
  through `<node>_input_cast<i>` (to FLOAT, writing `<node>_input_cast_<i>`) and each float
  output is written as `<node>_output_cast_<i>` and cast back by `<node>_output_cast<i>`;
  initializers read only by blocked nodes stay float32.

As in the real converter, every Cast it adds is appended at the END of the node list, so the
file is not in topological order (ORT sorts on load; the ONNX checker refuses such a file).

usage: /usr/bin/python3 tests/models/fp16_converter.py IN.onnx OUT.onnx [--block-list A,B]
"""

import argparse
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# onnxconverter-common's DEFAULT_OP_BLOCK_LIST (its float16.py).
DEFAULT_OP_BLOCK_LIST = [
    "ArrayFeatureExtractor", "Binarizer", "CastMap", "CategoryMapper", "DictVectorizer",
    "FeatureVectorizer", "Imputer", "LabelEncoder", "LinearClassifier", "LinearRegressor",
    "Normalizer", "OneHotEncoder", "RandomUniformLike", "SVMClassifier", "SVMRegressor", "Scaler",
    "TreeEnsembleClassifier", "TreeEnsembleRegressor", "ZipMap", "NonMaxSuppression", "TopK",
    "RoiAlign", "Resize", "Range", "CumSum", "Min", "Max", "Upsample",
]

FLOAT, FLOAT16 = TensorProto.FLOAT, TensorProto.FLOAT16


def to_float16(t, min_positive_val=1e-7, max_finite_val=1e4):
    """A float32 TensorProto as float16, as the converter's convert_np_to_float16 does with its
    defaults: nonzero magnitudes below 1e-7 become +-1e-7 and finite ones above 1e4 become
    +-1e4 (sign and finiteness kept), then round to nearest."""
    a = numpy_helper.to_array(t).astype(np.float32)
    lo, hi = np.float32(min_positive_val), np.float32(max_finite_val)
    a = np.where((a > 0) & (a < lo), lo, a)
    a = np.where((a < 0) & (a > -lo), -lo, a)
    a = np.where((a > hi) & np.isfinite(a), hi, a)
    a = np.where((a < -hi) & np.isfinite(a), -hi, a)
    return numpy_helper.from_array(a.astype(np.float16), t.name)


def float_values(model):
    """Names of every float32 value of the graph, from ONNX shape inference."""
    inferred = onnx.shape_inference.infer_shapes(model)
    g = inferred.graph
    names = set()
    for v in list(g.value_info) + list(g.input) + list(g.output):
        if v.type.tensor_type.elem_type == FLOAT:
            names.add(v.name)
    for t in g.initializer:
        if t.data_type == FLOAT:
            names.add(t.name)
    return names, inferred.graph.value_info


def convert(model, block_list=DEFAULT_OP_BLOCK_LIST):
    """Returns a float16 copy of `model` in onnxconverter-common's keep_io_types shape."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    floats, inferred_value_info = float_values(model)
    g = model.graph
    blocked = [n for n in g.node if n.op_type in block_list]
    blocked_ids = {id(n) for n in blocked}
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)

    # Initializers: float16 unless only blocked nodes read them.
    kept_fp32 = set()
    for k, t in enumerate(g.initializer):
        if t.data_type != FLOAT:
            continue
        users = readers.get(t.name, [])
        if users and all(id(u) in blocked_ids for u in users):
            kept_fp32.add(t.name)
            continue
        g.initializer[k].CopyFrom(to_float16(t))

    # The body: Constant values, Cast targets and tensor attributes become float16.
    for n in g.node:
        if id(n) in blocked_ids:
            continue
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == FLOAT:
                a.t.CopyFrom(to_float16(a.t))
            if n.op_type == "Cast" and a.name == "to" and a.i == FLOAT:
                a.i = FLOAT16

    # value_info: float32 -> float16 (the blocked nodes' own values are cast around below).
    del g.value_info[:]
    for v in inferred_value_info:
        if v.type.tensor_type.elem_type == FLOAT:
            v.type.tensor_type.elem_type = FLOAT16
        g.value_info.append(v)

    appended = []
    rename = {}
    # keep_io_types: graph inputs.
    for i, inp in enumerate(g.input):
        if inp.type.tensor_type.elem_type != FLOAT or inp.name in {t.name for t in g.initializer}:
            continue
        cast_name = f"graph_input_cast_{i}"
        rename[inp.name] = cast_name
        appended.append(helper.make_node("Cast", [inp.name], [cast_name], to=FLOAT16,
                                         name=f"graph_input_cast{i}"))
    for n in g.node:
        for k, name in enumerate(n.input):
            if name in rename:
                n.input[k] = rename[name]
    # keep_io_types: graph outputs.
    for i, out in enumerate(g.output):
        if out.type.tensor_type.elem_type != FLOAT:
            continue
        body_name = f"graph_output_cast_{i}"
        floats.add(body_name)
        for n in g.node:
            for k, name in enumerate(n.output):
                if name == out.name:
                    n.output[k] = body_name
            for k, name in enumerate(n.input):
                if name == out.name:  # an output the body also reads
                    n.input[k] = body_name
        appended.append(helper.make_node("Cast", [body_name], [out.name], to=FLOAT,
                                         name=f"graph_output_cast{i}"))

    # Blocked nodes compute in float32 between casts; the renamed graph inputs and outputs are
    # float16 values of the body like any other.
    floats |= set(rename.values())
    for n in blocked:
        for k, name in enumerate(n.input):
            if not name or name in kept_fp32 or name not in floats:
                continue
            cast_out = f"{n.name}_input_cast_{k}"
            appended.append(helper.make_node("Cast", [name], [cast_out], to=FLOAT,
                                             name=f"{n.name}_input_cast{k}"))
            n.input[k] = cast_out
        for k, name in enumerate(n.output):
            if name not in floats:
                continue
            cast_in = f"{n.name}_output_cast_{k}"
            appended.append(helper.make_node("Cast", [cast_in], [name], to=FLOAT16,
                                             name=f"{n.name}_output_cast{k}"))
            n.output[k] = cast_in
    g.node.extend(appended)
    return model


def main():
    p = argparse.ArgumentParser()
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--block-list", default=",".join(DEFAULT_OP_BLOCK_LIST))
    args = p.parse_args()
    model = onnx.load(args.input)
    onnx.save(convert(model, [b for b in args.block_list.split(",") if b]), args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
