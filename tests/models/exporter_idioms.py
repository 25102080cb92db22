#!/usr/bin/python3
"""Small ONNX models written in the idioms of exporters other than torch.onnx, and the checks
CTest runs on each (models.idioms.<case>): `wnn convert`, `wnn check` of the result and
`wnn validate` against ONNX Runtime, plus the errors a case must give.

  paddle      paddle2onnx: `p2o.`-prefixed node and value names, rank-0 constants, free dims
              named `p2o.DynamicDimension.N`, the shape arithmetic p2o emits for a flatten.
  spox        spox: free dims without a name (no dim_param, no dim_value), an If on a scalar
              sample-rate input (sr == 16000) whose branches read outer values, an If inside a
              branch deciding on a run-time score >= threshold, and a nested If inside that.
              Validated on both values of each condition, and with sr pinned.
  if_rejected If nodes with a run-time condition wnn must refuse (outputs of different dtypes;
              a Loop in a branch), each with the message naming why.
  tf2onnx     tf2onnx: an NHWC input transposed to NCHW and back around the convolutions, and
              `name:0` tensor names everywhere, the graph's inputs and outputs included.

usage: /usr/bin/python3 exporter_idioms.py OUTDIR            write every case
       /usr/bin/python3 exporter_idioms.py --list            the case names
       /usr/bin/python3 exporter_idioms.py --test CASE WNN OUTDIR   write CASE and check it
"""
import os
import subprocess
import sys

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def rng(seed):
    return np.random.default_rng(seed)


def const(name, value):
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(np.asarray(value), name))


def value_info(name, elem, dims):
    """dims: an int is fixed, a str a named free dim, None a free dim with no name (spox)."""
    t = helper.make_tensor_type_proto(elem, [])  # a shape of rank 0, dims added below
    shape = t.tensor_type.shape
    for d in dims:
        dim = shape.dim.add()
        if isinstance(d, int):
            dim.dim_value = d
        elif isinstance(d, str):
            dim.dim_param = d
        # None: neither set
    return helper.make_value_info(name, t)


def save_model(path, graph, opset=16):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="wnn-exporter-idioms")
    model.ir_version = 8
    checker.check_model(model, full_check=True)
    save(model, path)


def save_npy(d, name, array):
    p = os.path.join(d, name + ".npy")
    np.save(p, array)
    return p


# --- paddle2onnx ------------------------------------------------------------------------------

def paddle(d):
    r = rng(21)
    c_in, c_out = 3, 5
    w = (r.standard_normal((c_out, c_in, 3, 3)) * 0.4).astype(np.float32)
    bias = r.standard_normal(c_out).astype(np.float32)
    fc = (r.standard_normal((c_out, 4)) * 0.5).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "p2o.conv2d_0.w_0"], ["p2o.Conv.0"], name="p2o.Conv.0",
                         pads=[1, 0, 1, 2], strides=[1, 2], dilations=[1, 1]),
        helper.make_node("Add", ["p2o.Conv.0", "p2o.conv2d_0.b_0"], ["p2o.Add.1"],
                         name="p2o.Add.1"),
        # Rank-0 constants: p2o writes scalars as Constant nodes with an empty shape.
        const("p2o.helper.constant.0", np.array(0.75, np.float32)),
        const("p2o.helper.constant.1", np.array(-0.125, np.float32)),
        helper.make_node("Mul", ["p2o.Add.1", "p2o.helper.constant.0"], ["p2o.Mul.2"],
                         name="p2o.Mul.2"),
        helper.make_node("Add", ["p2o.Mul.2", "p2o.helper.constant.1"], ["p2o.Add.3"],
                         name="p2o.Add.3"),
        helper.make_node("Relu", ["p2o.Add.3"], ["p2o.Relu.4"], name="p2o.Relu.4"),
        helper.make_node("GlobalAveragePool", ["p2o.Relu.4"], ["p2o.Pool.5"], name="p2o.Pool.5"),
        # flatten as p2o writes it: Shape -> Gather(rank-0 index) -> Unsqueeze -> Concat -> Reshape
        helper.make_node("Shape", ["p2o.Pool.5"], ["p2o.Shape.6"], name="p2o.Shape.6"),
        const("p2o.helper.constant.2", np.array(0, np.int64)),
        helper.make_node("Gather", ["p2o.Shape.6", "p2o.helper.constant.2"], ["p2o.Gather.7"],
                         name="p2o.Gather.7", axis=0),
        const("p2o.helper.constant.3", np.array([0], np.int64)),
        helper.make_node("Unsqueeze", ["p2o.Gather.7", "p2o.helper.constant.3"],
                         ["p2o.Unsqueeze.8"], name="p2o.Unsqueeze.8"),
        const("p2o.helper.constant.4", np.array([-1], np.int64)),
        helper.make_node("Concat", ["p2o.Unsqueeze.8", "p2o.helper.constant.4"],
                         ["p2o.Concat.9"], name="p2o.Concat.9", axis=0),
        helper.make_node("Reshape", ["p2o.Pool.5", "p2o.Concat.9"], ["p2o.Reshape.10"],
                         name="p2o.Reshape.10"),
        helper.make_node("MatMul", ["p2o.Reshape.10", "p2o.fc_0.w_0"], ["p2o.MatMul.11"],
                         name="p2o.MatMul.11"),
        helper.make_node("Softmax", ["p2o.MatMul.11"], ["softmax_0.tmp_0"], name="p2o.Softmax.12",
                         axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "paddle",
        [value_info("x", F, ["p2o.DynamicDimension.0", c_in, "p2o.DynamicDimension.1",
                             "p2o.DynamicDimension.2"])],
        [value_info("softmax_0.tmp_0", F, ["p2o.DynamicDimension.0", 4])],
        [numpy_helper.from_array(w, "p2o.conv2d_0.w_0"),
         numpy_helper.from_array(bias.reshape(1, c_out, 1, 1), "p2o.conv2d_0.b_0"),
         numpy_helper.from_array(fc, "p2o.fc_0.w_0")])
    model = os.path.join(d, "paddle.onnx")
    save_model(model, graph, opset=13)
    x = r.standard_normal((2, c_in, 9, 13)).astype(np.float32)
    x[0, 1, 2, :] = 0.0
    return model, {"x": save_npy(d, "paddle_x", x)}


def check_paddle(t, d):
    model, inputs = paddle(d)
    dims = ["--override-dim", "p2o.DynamicDimension.0=3", "--override-dim",
            "p2o.DynamicDimension.1=7", "--override-dim", "p2o.DynamicDimension.2=10"]
    t.convert_and_check(model, dims, os.path.join(d, "paddle_out"))
    # The free dims come from the given input's shape alone.
    t.validate(model, t.inputs(inputs))
    t.validate(model, dims)
    # Unresolved, each named dim is listed with the flag that gives it.
    out = t.fails(["convert", model, "-o", os.path.join(d, "paddle_fail")])
    for k in range(3):
        t.expect(f"--override-dim p2o.DynamicDimension.{k}=V" in out, out)


# --- spox -------------------------------------------------------------------------------------

def spox(d):
    """out = If(sr == 16000, then: A, else: B), state_out likewise; A holds an If on
    score >= threshold (score = mean(x)) whose else branch holds another If on score < 0."""
    r = rng(5)
    hidden = 8
    w16 = (r.standard_normal((hidden, hidden)) * 0.3).astype(np.float32)
    w8 = (r.standard_normal((hidden, hidden)) * 0.3).astype(np.float32)
    proj = r.standard_normal((1, hidden)).astype(np.float32)

    def out(name, elem=F, dims=None):
        return value_info(name, elem, dims if dims is not None else [None, None])

    # The innermost If (in the else branch of the score If): score < 0 (a second run-time value).
    inner_then = helper.make_graph(
        [helper.make_node("Neg", ["x_scaled"], ["inner_t"])], "inner_then", [], [out("inner_t")])
    inner_else = helper.make_graph(
        [helper.make_node("Mul", ["x_scaled", "x_scaled"], ["inner_e"])], "inner_else", [],
        [out("inner_e")])
    score_then = helper.make_graph(
        [const("gain", np.array(1.5, np.float32)),
         helper.make_node("Mul", ["x_scaled", "gain"], ["score_t"])],
        "score_then", [], [out("score_t")])
    score_else = helper.make_graph(
        [const("zero", np.array(0.0, np.float32)),
         helper.make_node("Less", ["score", "zero"], ["negative"]),
         helper.make_node("If", ["negative"], ["score_e"], name="If_sign",
                          then_branch=inner_then, else_branch=inner_else)],
        "score_else", [], [out("score_e")])

    def rate_branch(tag, w, scale):
        # Reads the outer x, state, threshold and the outer initializer proj; its own weight w.
        return helper.make_graph(
            [const(f"scale_{tag}", np.array(scale, np.float32)),
             helper.make_node("Mul", ["x", f"scale_{tag}"], ["x_scaled"]),
             helper.make_node("ReduceMean", ["x_scaled"], ["score"], keepdims=0),
             helper.make_node("GreaterOrEqual", ["score", "threshold"], ["loud"]),
             helper.make_node("If", ["loud"], ["gated"], name=f"If_score_{tag}",
                              then_branch=score_then, else_branch=score_else),
             helper.make_node("Squeeze", ["state", "axis0"], ["s2"]),
             helper.make_node("MatMul", ["s2", f"w_{tag}"], ["s3"]),
             helper.make_node("Tanh", ["s3"], ["s4"]),
             helper.make_node("Unsqueeze", ["s4", "axis0"], [f"state_{tag}"]),
             helper.make_node("MatMul", ["s4", "proj_t"], ["p"]),
             helper.make_node("Add", ["gated", "p"], [f"y_{tag}"])],
            f"rate_{tag}", [], [out(f"y_{tag}"), value_info(f"state_{tag}", F, [1, None, hidden])],
            [numpy_helper.from_array(w, f"w_{tag}")])

    nodes = [
        const("Constant_0", np.array(16000, np.int64)),
        helper.make_node("Equal", ["sr", "Constant_0"], ["Equal_0_C"], name="Equal_0"),
        helper.make_node("If", ["Equal_0_C"], ["If_0_out", "If_0_state"], name="If_0",
                         then_branch=rate_branch("16k", w16, 0.5),
                         else_branch=rate_branch("8k", w8, -2.0)),
        # A second If after the first, on the same condition: selects the sample rate's offset.
        helper.make_node("If", ["Equal_0_C"], ["offset"], name="If_1",
                         then_branch=helper.make_graph(
                             [const("o16", np.array([0.25], np.float32))], "o_then", [],
                             [value_info("o16", F, [1])]),
                         else_branch=helper.make_graph(
                             [const("o8", np.array([-0.5], np.float32))], "o_else", [],
                             [value_info("o8", F, [1])])),
        helper.make_node("Add", ["If_0_out", "offset"], ["output"], name="Introduce_0_id0"),
        helper.make_node("Identity", ["If_0_state"], ["stateN"], name="Introduce_0_id1"),
    ]
    graph = helper.make_graph(
        nodes, "spox",
        [value_info("x", F, [None, None]), value_info("state", F, [1, None, hidden]),
         value_info("sr", I64, []), value_info("threshold", F, [])],
        [value_info("output", F, [None, None]), value_info("stateN", F, [1, None, hidden])],
        [numpy_helper.from_array(np.array([0], np.int64), "axis0"),
         numpy_helper.from_array(proj.T.copy(), "proj_t")])
    model = os.path.join(d, "spox.onnx")
    save_model(model, graph)
    x = (r.standard_normal((3, 7)) + 0.2).astype(np.float32)
    x[1, 3] = 0.0
    state = r.standard_normal((1, 3, hidden)).astype(np.float32)
    score = {"16k": float(np.mean(x * 0.5)), "8k": float(np.mean(x * -2.0))}
    files = {"x": save_npy(d, "spox_x", x), "state": save_npy(d, "spox_state", state)}
    for rate, value in (("16k", 16000), ("8k", 8000)):
        files[f"sr_{rate}"] = save_npy(d, f"spox_sr_{rate}", np.array(value, np.int64))
        # One threshold under the branch's score, one over: the score If takes both branches.
        files[f"low_{rate}"] = save_npy(d, f"spox_low_{rate}",
                                        np.array(score[rate] - 0.05, np.float32))
        files[f"high_{rate}"] = save_npy(d, f"spox_high_{rate}",
                                         np.array(score[rate] + 0.05, np.float32))
    return model, files, score


def check_spox(t, d):
    model, f, score = spox(d)
    assert score["16k"] > 0 > score["8k"], score  # the sign If sees both values too
    # Every axis is unnamed: the error gives the exact flag for each.
    out = t.fails(["convert", model, "-o", os.path.join(d, "spox_fail")])
    for flag in ("--override-dim x:0=V", "--override-dim x:1=V", "--override-dim state:1=V"):
        t.expect(flag in out, out)
    # INPUT:AXIS overrides; the run-time If is reported with its cost.
    err = t.convert_and_check(model, ["--override-dim", "x:0=3", "--override-dim", "x:1=7",
                                      "--override-dim", "state:1=3"],
                              os.path.join(d, "spox_out"))
    # Nested nodes are named by their scope ("If_0/then/If_score_16k").
    for name in ("If 'If_0", "If 'If_1", "/If_score_16k", "/If_score_8k", "/If_sign"):
        t.expect(f"{name}': the condition is only known at run time" in err, err)
    t.expect("ops added" in err and "FLOPs" in err and "bytes written" in err, err)
    # Both values of each condition, the free dims only from the given inputs.
    for rate in ("16k", "8k"):
        for level in ("low", "high"):
            t.validate(model, t.inputs({"x": f["x"], "state": f["state"], "sr": f[f"sr_{rate}"],
                                        "threshold": f[f"{level}_{rate}"]}))
    # sr pinned (as for silero-vad): the outer Ifs inline, the score Ifs stay run-time selects.
    for rate, value in (("16k", 16000), ("8k", 8000)):
        for level in ("low", "high"):
            t.validate(model, t.inputs({"x": f["x"], "state": f["state"],
                                        "threshold": f[f"{level}_{rate}"]})
                       + ["--pin-input", f"sr={value}"])
    # An axis override that disagrees with the given value is refused.
    out = t.fails(["validate", model, "--override-dim", "x:1=8"]
                  + t.inputs({"x": f["x"], "state": f["state"], "sr": f["sr_8k"],
                              "threshold": f["low_8k"]}))
    t.expect("--override-dim gives 8" in out, out)


# --- run-time Ifs wnn refuses -----------------------------------------------------------------

def if_rejected(d):
    x = value_info("x", F, [2, 3])
    dtypes = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], name="If_dtypes",
                          then_branch=helper.make_graph(
                              [helper.make_node("Neg", ["x"], ["t"])], "t", [],
                              [value_info("t", F, [2, 3])]),
                          else_branch=helper.make_graph(
                              [helper.make_node("Cast", ["x"], ["e"], to=TensorProto.INT32)],
                              "e", [], [value_info("e", TensorProto.INT32, [2, 3])]))],
        "if_dtypes", [x, value_info("c", B, [])], [value_info("y", F, [2, 3])])
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Neg", ["v_in"], ["v_out"])],
        "body", [value_info("i", I64, []), value_info("c_in", B, []),
                 value_info("v_in", F, [2, 3])],
        [value_info("c_out", B, []), value_info("v_out", F, [2, 3])])
    loop = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], name="If_loop",
                          then_branch=helper.make_graph(
                              [helper.make_node("Abs", ["x"], ["t"])], "t", [],
                              [value_info("t", F, [2, 3])]),
                          else_branch=helper.make_graph(
                              [const("n", np.array(2, np.int64)),
                               helper.make_node("Loop", ["n", "", "x"], ["e"], name="loopy",
                                                body=body)],
                              "e", [], [value_info("e", F, [2, 3])]))],
        "if_loop", [x, value_info("c", B, [])], [value_info("y", F, [2, 3])])
    paths = {}
    for name, g in (("if_dtypes", dtypes), ("if_loop", loop)):
        paths[name] = os.path.join(d, name + ".onnx")
        model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
        model.ir_version = 8
        save(model, paths[name])  # if_dtypes breaks If's typing on purpose: no checker
    return paths


def check_if_rejected(t, d):
    paths = if_rejected(d)
    out = t.fails(["convert", paths["if_dtypes"], "-o", os.path.join(d, "rej1")])
    t.expect("If_dtypes" in out and "only known at run time" in out, out)
    t.expect("float32 in the then branch but int32 in the else branch" in out, out)
    out = t.fails(["convert", paths["if_loop"], "-o", os.path.join(d, "rej2")])
    t.expect("If_loop" in out and "the else branch holds a Loop ('loopy')" in out, out)
    # A pinned condition still inlines the branch without the Loop.
    t.convert_and_check(paths["if_loop"], ["--pin-input", "c=1"], os.path.join(d, "rej3"))


# --- tf2onnx ----------------------------------------------------------------------------------

def tf2onnx(d):
    r = rng(8)
    w = (r.standard_normal((6, 3, 3, 3)) * 0.3).astype(np.float32)
    b = r.standard_normal(6).astype(np.float32)
    w2 = (r.standard_normal((4, 6, 1, 1)) * 0.3).astype(np.float32)
    nodes = [
        helper.make_node("Transpose", ["input_1:0"], ["model/conv/Conv2D__6:0"],
                         name="model/conv/Conv2D__6", perm=[0, 3, 1, 2]),
        helper.make_node("Conv", ["model/conv/Conv2D__6:0", "model/conv/Conv2D/ReadVariableOp:0",
                                  "model/conv/BiasAdd/ReadVariableOp:0"],
                         ["model/conv/BiasAdd:0"], name="model/conv/BiasAdd",
                         pads=[1, 1, 1, 1], strides=[2, 1]),
        helper.make_node("Relu", ["model/conv/BiasAdd:0"], ["model/conv/Relu:0"],
                         name="model/conv/Relu"),
        helper.make_node("Conv", ["model/conv/Relu:0", "model/conv_1/Conv2D/ReadVariableOp:0"],
                         ["model/conv_1/Conv2D:0"], name="model/conv_1/Conv2D"),
        helper.make_node("Transpose", ["model/conv_1/Conv2D:0"], ["Identity:0"],
                         name="model/conv_1/Conv2D__9", perm=[0, 2, 3, 1]),
    ]
    graph = helper.make_graph(
        nodes, "tf2onnx", [value_info("input_1:0", F, ["unk__12", 9, 11, 3])],
        [value_info("Identity:0", F, ["unk__13", 5, 11, 4])],
        [numpy_helper.from_array(w, "model/conv/Conv2D/ReadVariableOp:0"),
         numpy_helper.from_array(b, "model/conv/BiasAdd/ReadVariableOp:0"),
         numpy_helper.from_array(w2, "model/conv_1/Conv2D/ReadVariableOp:0")])
    model = os.path.join(d, "tf2onnx.onnx")
    save_model(model, graph, opset=13)
    x = r.standard_normal((2, 9, 11, 3)).astype(np.float32)
    return model, {"input_1:0": save_npy(d, "tf2onnx_x", x)}


def check_tf2onnx(t, d):
    model, inputs = tf2onnx(d)
    t.convert_and_check(model, ["--override-dim", "unk__12=2"], os.path.join(d, "tf2onnx_out"))
    t.validate(model, t.inputs(inputs))
    t.validate(model, ["--override-dim", "input_1:0:0=3"])


CASES = {"paddle": check_paddle, "spox": check_spox, "if_rejected": check_if_rejected,
         "tf2onnx": check_tf2onnx}
WRITERS = {"paddle": paddle, "spox": spox, "if_rejected": if_rejected, "tf2onnx": tf2onnx}


class Checks:
    def __init__(self, wnn):
        self.wnn = wnn
        self.failures = 0

    def run(self, args):
        p = subprocess.run([self.wnn] + args, capture_output=True, text=True)
        print("$ wnn " + " ".join(args) + f"  -> exit {p.returncode}", flush=True)
        return p

    def expect(self, cond, what):
        if not cond:
            self.failures += 1
            print("FAILED:\n" + what, flush=True)

    def ok(self, args):
        p = self.run(args)
        self.expect(p.returncode == 0, p.stdout + p.stderr)
        return p

    def fails(self, args):
        p = self.run(args)
        self.expect(p.returncode == 2, f"expected exit 2\n{p.stdout}{p.stderr}")
        return p.stdout + p.stderr

    @staticmethod
    def inputs(files):
        out = []
        for name, path in files.items():
            out += ["--input", f"{name}={path}"]
        return out

    def convert_and_check(self, model, args, out_dir):
        p = self.ok(["convert", model, "-o", out_dir] + args)
        stem = os.path.splitext(os.path.basename(model))[0]
        self.ok(["check", os.path.join(out_dir, stem + ".webnn")])
        return p.stderr

    def validate(self, model, args):
        p = self.ok(["validate", model, "--threads", "1"] + args)
        last = [line for line in p.stdout.splitlines() if line.strip()][-1:] or [""]
        print("  " + last[0], flush=True)
        return p


def main(argv):
    if argv[:1] == ["--list"]:
        print("\n".join(CASES))
        return 0
    if argv[:1] == ["--test"] and len(argv) == 4:
        case, wnn, out = argv[1:]
        d = os.path.join(out, case)
        os.makedirs(d, exist_ok=True)
        t = Checks(wnn)
        CASES[case](t, d)
        print(f"{case}: {'ok' if t.failures == 0 else f'{t.failures} check(s) failed'}")
        return 1 if t.failures else 0
    if len(argv) == 1:
        os.makedirs(argv[0], exist_ok=True)
        for write in WRITERS.values():
            write(argv[0])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
