#!/usr/bin/python3
"""Writes the fuzz seed corpus, tests/fuzz/corpus/<target>/, from the test fixtures and small
hand-made files. Re-runnable: it replaces the corpus folders it owns. Run it from anywhere:

    /usr/bin/python3 tests/fuzz/make_corpus.py

Adding a target: add a function that returns {file name: bytes} and list it in TARGETS.
"""

import pathlib
import shutil
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import file_bytes  # noqa: E402

ONNX_TESTDATA = pathlib.Path("/usr/share/libonnx-testdata/data/node")

SMALL_TEXT = {
    "scalar_bytes.webnn": """webnn_graph "s" v1 {
  inputs { x: f32[2, 3]; n: i8[dyn("batch", 4), 2]; }
  consts {
    s: f32[3] @scalar(-1.5);
    b: u8[2] @bytes([7, 255]);
    q: int4[3] @bytes([159, 7]);
    w: f32[2, 3] @weights("layer.w");
  }
  nodes {
    a = add(x, s);
    c = clamp(a, minValue=-inf, maxValue=0);
    [p0, p1] = split(c, splits=[1, 2], axis=1);
    h = cast(p1, to="float16");
  }
  outputs { h; p0; }
}
""",
    "quantized.webnn": """webnn_graph "q" v1 @quantized {
  inputs { x: f32[4]; }
  consts { z: u8[] @scalar(3); s: f32[] @scalar(0.25); }
  nodes { y = quantizeLinear(x, s, z); d = dequantizeLinear(y, s, z); }
  outputs { d; }
}
""",
}

def json_sample():
    """The webnn-graph-json sample of the JSON reader's unit test, every form in one file."""
    test = (ROOT / "tests/unit/format/json_graph_test.cc").read_text()
    start = test.index('kSample = R"(') + len('kSample = R"(')
    return test[start:test.index(')";', start)]


JSON_SAMPLE = json_sample()


def graph_text():
    out = {p.name: p.read_bytes() for p in sorted((ROOT / "tests/fixtures/graphs").glob("*.webnn"))}
    out.update({k: v.encode() for k, v in SMALL_TEXT.items()})
    return out


def graph_json():
    tiny = ('{"format": "webnn-graph-json", "version": 2, "inputs": {"x": {"dataType": "int32",'
            ' "shape": [2]}}, "consts": {}, "nodes": [{"id": "y", "op": "relu", "inputs": ["x"],'
            ' "options": {}}], "outputs": {"y": "y"}}')
    return {"sample.json": JSON_SAMPLE.encode(), "tiny.json": tiny.encode()}


def f32(*values):
    return np.array(values, np.float32).tobytes()


def safetensors_files():
    plain = file_bytes.safetensors([
        ("layer.w", "F32", [2, 3], f32(-1, 0, 2.5, 3, -4, 5)),
        ("bias", "F16", [3], np.array([1, -2, 0.5], np.float16).tobytes()),
        ("idx", "I64", [2], np.array([-1, 7], np.int64).tobytes()),
        ("mask", "BOOL", [3], bytes([1, 0, 1])),
        ("bf", "BF16", [2], bytes([0x80, 0x3f, 0x00, 0xc0])),
        ("scalar", "I32", [], np.array([-9], np.int32).tobytes()),
        ("empty", "U8", [0, 4], b""),
    ], metadata={"producer": "seed"})
    packed = file_bytes.safetensors(
        [("q", "U8", [2], bytes([0x9f, 0x07])), ("u", "U8", [3], bytes([0x21, 0x43, 0x05]))],
        metadata={"rustnn.webnn.packed4": "1"})
    odd = file_bytes.safetensors([("a", "I8", [3], bytes([1, 2, 3])),
                                  ("b", "F32", [1], f32(0.5))], pad_to=1)
    return {"plain.safetensors": plain, "packed4.safetensors": packed,
            "unaligned.safetensors": odd, "empty.safetensors": file_bytes.safetensors([])}


def npy_files():
    return {
        "f32_2x3.npy": file_bytes.npy(np.arange(-3, 3, dtype=np.float32).reshape(2, 3)),
        "i64_scalar.npy": file_bytes.npy(np.array(-5, np.int64)),
        "u8_empty.npy": file_bytes.npy(np.zeros((0, 3), np.uint8)),
        "bool_v2.npy": file_bytes.npy(np.array([True, False, True]), version=(2, 0)),
        "f16_v3.npy": file_bytes.npy(np.array([1.5, -2], np.float16), version=(3, 0)),
    }


def onnx_files():
    from onnx import TensorProto, helper, numpy_helper
    out = {}
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])
    w = numpy_helper.from_array(np.array([-1, 0.5, 2], np.float32), "w")
    i = helper.make_tensor("i", TensorProto.INT64, [2], [-1, 3])  # typed int64_data
    d = helper.make_tensor("d", TensorProto.DOUBLE, [2], [0.25, -8])
    h = numpy_helper.from_array(np.array([1, -2], np.float16), "h")
    q = helper.make_tensor("q", TensorProto.UINT8, [2], [0x9f, 0x07])
    q.data_type = 22  # INT4 (newer than Debian's onnx): three nibbles packed in raw bytes
    q.dims[:] = [3]
    q.raw_data = bytes([0x9f, 0x07])
    del q.int32_data[:]
    ext = TensorProto(name="e", data_type=TensorProto.FLOAT, dims=[4])
    ext.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "data.bin"), ("offset", "16"), ("length", "16")):
        entry = ext.external_data.add()
        entry.key, entry.value = k, v
    nodes = [helper.make_node("Add", ["x", "w"], ["a"], name="add"),
             helper.make_node("Relu", ["a"], ["y"], name="relu")]
    out["add_relu.onnx"] = file_bytes.onnx_model(nodes, [x], [y], [w, i, d, h, q, ext])
    then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    if_node = helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)
    const = helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(
        np.array([[1, 2]], np.int32), "kv"))
    out["if_constant.onnx"] = file_bytes.onnx_model([if_node, const], [x, c], [y])
    picked = ["test_add", "test_conv_with_strides_padding", "test_gather_0", "test_cast_FLOAT_to_BFLOAT16",
              "test_reshape_extended_dims", "test_dequantizelinear", "test_lstm_defaults"]
    for name in picked:
        model = ONNX_TESTDATA / name / "model.onnx"
        if model.exists():
            out[name + ".onnx"] = model.read_bytes()
            tensor = ONNX_TESTDATA / name / "test_data_set_0" / "input_0.pb"
            if tensor.exists() and tensor.stat().st_size < 4096:
                out[name + "_input_0.pb"] = tensor.read_bytes()
    return out


def onnx_import_files():
    """Whole models for the importer: the decoder's .onnx seeds plus models that reach the
    shape folding, control flow, recurrent and resize converters."""
    out = {k: v for k, v in onnx_files().items() if k.endswith(".onnx")}
    for name in ["test_resize_upsample_scales_linear", "test_slice_neg_steps", "test_if",
                 "test_gru_defaults", "test_softmax_axis_0", "test_expand_dim_changed",
                 "test_constantofshape_int_zeros", "test_reduce_sum_keepdims_example",
                 "test_averagepool_2d_ceil", "test_quantizelinear_axis"]:
        model = ONNX_TESTDATA / name / "model.onnx"
        if model.exists():
            out[name + ".onnx"] = model.read_bytes()
    return out


def model_files():
    sep_w, sep_m = b"\n--wnn-weights--\n", b"\n--wnn-manifest--\n"
    text = SMALL_TEXT["scalar_bytes.webnn"].encode()
    st = file_bytes.safetensors([("layer.w", "F32", [2, 3], f32(-1, 0, 2.5, 3, -4, 5))])
    bf = file_bytes.safetensors([("layer_w", "BF16", [2, 3], bytes(range(12)))])
    legacy, manifest = file_bytes.legacy_weights([("layer.w", "float32", [2, 3],
                                                   f32(1, 2, 3, -4, -5, -6))])
    q_graph = b"""webnn_graph "p" v1 @quantized {
  inputs { x: f32[3]; }
  consts { q: int4[3] @weights("q"); s: f32[] @scalar(0.5); z: int4[] @bytes([0]); }
  nodes { d = dequantizeLinear(q, s, z); y = add(x, d); }
  outputs { y; }
}
"""
    packed = file_bytes.safetensors([("q", "U8", [2], bytes([0x9f, 0x07]))],
                                    metadata={"rustnn.webnn.packed4": "1"})
    return {
        "text_safetensors.bin": text + sep_w + st,
        "text_bf16_rewritten_key.bin": text + sep_w + bf,
        "text_legacy.bin": text + sep_w + legacy + sep_m + manifest.encode(),
        "json_safetensors.bin": JSON_SAMPLE.encode() + sep_w + file_bytes.safetensors(
            [("layer.w", "F32", [3], f32(1, -1, 0))]),
        "packed4.bin": q_graph + sep_w + packed,
    }


def sweep_manifest_files():
    """validate-models manifests: the docs' example, the entries tests/sweep and the kill test
    use (every source kind and field), and near misses the strict parser must reject."""
    import json
    import re
    docs = (ROOT / "docs" / "validate-models.md").read_text()
    example = re.search(r"```json\n(\{\n  \"version\".*?)```", docs, re.S).group(1)
    h = "0123456789abcdef" * 4
    entries = [
        {"id": "first", "path": "models/mlp.onnx", "override_dims": {"batch": 2}},
        {"id": "custom", "path": "custom.onnx", "expect": "fail:Frobnicate"},
        {"id": "last", "path": "mlp.onnx", "pin_inputs": {"x": 0.5, "mode": [1, 2], "s": "1,2"}},
        {"id": "hub", "hf": {"repo": "org/ext", "revision": "c" * 40, "file": "onnx/external.onnx",
                             "sidecars": ["onnx/external.onnx.data"]}, "heavy": True},
        {"id": "web", "url": "http://127.0.0.1:8000/cdn/" + h, "sha256": h},
        {"id": "inputs", "path": "m.onnx", "inputs": {"x": "x.npy"},
         "tolerance": {"atol": 1e-4, "rtol": 0}},
    ]
    ok = {"version": 1, "models": entries}
    return {
        "docs_example.json": example.encode(),
        "every_field.json": json.dumps(ok, indent=1).encode(),
        "empty_models.json": b'{"version": 1, "models": []}',
        "unknown_field.json": json.dumps({"version": 1, "models": [
            {"id": "a", "path": "m.onnx", "weight": 1}]}).encode(),
        "two_sources.json": json.dumps({"version": 1, "models": [
            {"id": "a", "path": "m.onnx", "url": "https://x.org/m.onnx"}]}).encode(),
        "duplicate_id.json": json.dumps({"version": 1, "models": [
            {"id": "a", "path": "m.onnx"}, {"id": "a", "path": "n.onnx"}]}).encode(),
        "traversal.json": json.dumps({"version": 1, "models": [
            {"id": "a", "hf": {"repo": "org/x", "file": "../../etc/passwd",
                               "sidecars": ["/abs"]}}]}).encode(),
        "version_2.json": b'{"version": 2, "models": []}',
        "bad_values.json": json.dumps({"version": 1, "models": [
            {"id": "", "path": "m.onnx", "override_dims": {"b": -1}, "sha256": "XYZ",
             "expect": "maybe", "tolerance": {"atol": "big"}}]}).encode(),
    }


TARGETS = {
    "graph_text": graph_text,
    "graph_json": graph_json,
    "safetensors": safetensors_files,
    "npy": npy_files,
    "onnx_model": onnx_files,
    "model": model_files,
    "onnx_import": onnx_import_files,
    "sweep_manifest": sweep_manifest_files,
}


def main():
    for target, make in TARGETS.items():
        folder = HERE / "corpus" / target
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for name, data in make().items():
            (folder / name).write_bytes(data)
        (HERE / "regressions" / target).mkdir(parents=True, exist_ok=True)
        keep = HERE / "regressions" / target / ".gitkeep"
        if not any(p.name != ".gitkeep" for p in keep.parent.iterdir()):
            keep.touch()
        print(f"{target}: {len(list(folder.iterdir()))} seeds")


if __name__ == "__main__":
    main()
