#!/usr/bin/python3
"""Writes ONNX models with If nodes for the If-inlining tests. Each case is OUT/<case>/model.onnx
plus one directory per pinned choice (OUT/<case>/<choice>/input_N.pb for the graph inputs that
stay inputs, output_N.pb expected, computed here with numpy). Re-runnable:
python3 make_if_models.py OUT"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

rng = np.random.default_rng(11)
F = TensorProto.FLOAT


def save_model(out, name, graph):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    save(model, os.path.join(d, "model.onnx"))
    return d


def save_set(d, choice, inputs, outputs):
    s = os.path.join(d, choice)
    os.makedirs(s, exist_ok=True)
    for i, (n, v) in enumerate(inputs):
        with open(os.path.join(s, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v, n).SerializeToString())
    for i, (n, v) in enumerate(outputs):
        with open(os.path.join(s, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v.astype(np.float32), n).SerializeToString())


def const_node(out, value):
    return helper.make_node("Constant", [], [out], value=numpy_helper.from_array(value, out))


def outer_captures(out):
    # mode (int64[1]) decides the branch through Greater, which folds once mode is pinned. The
    # then branch reads the outer x and the outer initializer w and has a Constant node; the
    # else branch has its own initializer and reads the graph input b, which nothing else
    # reads: with the then branch chosen, b is pruned. Both branches define "tmp", and the outer
    # graph already has a value named "choose/then/tmp", so scoping must not reuse it.
    x = rng.standard_normal((2, 3)).astype(np.float32)
    b = np.array([0.5, -2.0, 0.0], np.float32)
    w = rng.standard_normal((2, 3)).astype(np.float32)
    eb = np.array([-1.25, 0.0, 3.5], np.float32)
    then_g = helper.make_graph(
        [helper.make_node("Mul", ["x", "w"], ["tmp"]), const_node("c", np.array(1.5, np.float32)),
         helper.make_node("Add", ["tmp", "c"], ["then_out"])],
        "then", [], [helper.make_tensor_value_info("then_out", F, [2, 3])])
    else_g = helper.make_graph(
        [helper.make_node("Sub", ["x", "eb"], ["tmp"]),
         helper.make_node("Mul", ["tmp", "b"], ["else_out"])],
        "else", [], [helper.make_tensor_value_info("else_out", F, [2, 3])],
        [numpy_helper.from_array(eb, "eb")])
    nodes = [
        helper.make_node("Greater", ["mode", "zero"], ["cond"]),
        helper.make_node("If", ["cond"], ["y"], name="choose", then_branch=then_g,
                         else_branch=else_g),
        helper.make_node("Neg", ["x"], ["choose/then/tmp"]),
    ]
    graph = helper.make_graph(
        nodes, "outer_captures",
        [helper.make_tensor_value_info("x", F, [2, 3]),
         helper.make_tensor_value_info("mode", TensorProto.INT64, [1]),
         helper.make_tensor_value_info("b", F, [3])],
        [helper.make_tensor_value_info("y", F, [2, 3]),
         helper.make_tensor_value_info("choose/then/tmp", F, [2, 3])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array([0], np.int64), "zero")])
    d = save_model(out, "outer_captures", graph)
    save_set(d, "then", [("x", x)], [("y", x * w + 1.5), ("choose/then/tmp", -x)])
    save_set(d, "else", [("x", x), ("b", b)], [("y", (x - eb) * b), ("choose/then/tmp", -x)])


def nested(out):
    # p1 picks the outer branch; inside its then branch a second If (on p2) reads "a", defined
    # by the enclosing branch, and x, defined at the top.
    x = rng.standard_normal((3, 2)).astype(np.float32)
    inner_then = helper.make_graph([helper.make_node("Mul", ["a", "x"], ["r"])], "inner_then", [],
                                   [helper.make_tensor_value_info("r", F, [3, 2])])
    inner_else = helper.make_graph(
        [const_node("k", np.array(-3.0, np.float32)), helper.make_node("Mul", ["x", "k"], ["kx"]),
         helper.make_node("Add", ["a", "kx"], ["r"])],
        "inner_else", [], [helper.make_tensor_value_info("r", F, [3, 2])])
    outer_then = helper.make_graph(
        [const_node("one", np.array(1.0, np.float32)), helper.make_node("Add", ["x", "one"], ["a"]),
         helper.make_node("If", ["p2"], ["inner"], then_branch=inner_then,
                          else_branch=inner_else)],
        "outer_then", [], [helper.make_tensor_value_info("inner", F, [3, 2])])
    outer_else = helper.make_graph([helper.make_node("Neg", ["x"], ["a"])], "outer_else", [],
                                   [helper.make_tensor_value_info("a", F, [3, 2])])
    graph = helper.make_graph(
        [helper.make_node("If", ["p1"], ["y"], then_branch=outer_then, else_branch=outer_else)],
        "nested",
        [helper.make_tensor_value_info("x", F, [3, 2]),
         helper.make_tensor_value_info("p1", TensorProto.BOOL, []),
         helper.make_tensor_value_info("p2", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", F, [3, 2])])
    d = save_model(out, "nested", graph)
    save_set(d, "then_then", [("x", x)], [("y", (x + 1) * x)])
    save_set(d, "then_else", [("x", x)], [("y", (x + 1) - 3 * x)])
    save_set(d, "else_then", [("x", x)], [("y", -x)])
    # p1 pinned to 1, p2 fed at run time: the inner If computes both branches and selects.
    save_set(d, "then_p2_true", [("x", x), ("p2", np.array(True))], [("y", (x + 1) * x)])
    save_set(d, "then_p2_false", [("x", x), ("p2", np.array(False))], [("y", (x + 1) - 3 * x)])


def runtime_condition(out):
    # The condition is a graph input nobody pins and the else branch is impure (it draws random
    # values), so both branches cannot be computed: If (and the Loop beside it) stay unsupported.
    then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", F, [2])])
    else_g = helper.make_graph(
        [helper.make_node("RandomUniformLike", ["x"], ["r"], name="noise"),
         helper.make_node("Add", ["x", "r"], ["e"])], "else", [],
        [helper.make_tensor_value_info("e", F, [2])])
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Identity", ["v_in"], ["v_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("v_in", F, [2])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", F, [2])])
    graph = helper.make_graph(
        [helper.make_node("If", ["flag"], ["y"], name="branchy", then_branch=then_g,
                          else_branch=else_g),
         helper.make_node("Loop", ["", "flag", "x"], ["z"], name="loopy", body=body)],
        "runtime_condition",
        [helper.make_tensor_value_info("x", F, [2]),
         helper.make_tensor_value_info("flag", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", F, [2]), helper.make_tensor_value_info("z", F, [2])])
    save_model(out, "runtime_condition", graph)


def unused_inputs(out):
    # u is never read; v only through Shape, which folds: both are pruned, x stays.
    x = rng.standard_normal((2, 3)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Shape", ["v"], ["v_shape"]),
         helper.make_node("Reshape", ["x", "v_shape"], ["r"]),
         helper.make_node("Relu", ["r"], ["y"])],
        "unused_inputs",
        [helper.make_tensor_value_info("u", F, [4]),
         helper.make_tensor_value_info("x", F, [2, 3]),
         helper.make_tensor_value_info("v", F, [3, 2])],
        [helper.make_tensor_value_info("y", F, [3, 2])])
    d = save_model(out, "unused_inputs", graph)
    save_set(d, "default", [("x", x)], [("y", np.maximum(x.reshape(3, 2), 0))])


def main(out):
    unused_inputs(out)
    outer_captures(out)
    nested(out)
    runtime_condition(out)


if __name__ == "__main__":
    main(sys.argv[1])
