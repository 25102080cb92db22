#!/usr/bin/python3
"""Writes the bad-input corpus: malformed files of every format wnn reads, and cases.tsv, which
says for each file the wnn command to run and a substring the one-line error must contain.
run_bad_inputs.py runs them through the real binary. Re-runnable; deterministic.

    /usr/bin/python3 tests/bad_inputs/make_bad_inputs.py

Adding a case: call case(folder, name, bytes, command, expected) below. A graph case whose
weights sit beside it gets its own stem (weights are found as <stem>.safetensors).
"""

import json
import os
import pathlib
import shutil
import struct
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests/fuzz"))
import file_bytes  # noqa: E402

CASES = []
FOLDERS = ["text", "json", "safetensors", "legacy", "legacy_nomanifest", "npy", "onnx"]


def case(folder, name, data, command=None, expected="", extra=None):
    """Writes folder/name; when `command` is given, lists it in cases.tsv. `extra` is a dict of
    sibling files (name -> bytes) the case needs."""
    path = HERE / folder / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    for other, content in (extra or {}).items():
        (HERE / folder / other).write_bytes(content if isinstance(content, bytes) else
                                            content.encode())
    if command:
        CASES.append((command, f"{folder}/{name}", expected))


def graph(body, header='webnn_graph "bad" v1'):
    return f"{header} {{\n{body}\n}}\n"


GOOD = graph("""  inputs { x: f32[2, 3]; }
  consts { s: f32[3] @scalar(-1.5); }
  nodes { y = add(x, s); z = relu(y); }
  outputs { z; }""")


def f32(*v):
    return np.array(v, np.float32).tobytes()


def text_cases():
    t = "text"
    case(t, "truncated.webnn", GOOD[: GOOD.index("relu") + 3], "check", "")
    case(t, "empty.webnn", "", "check", "")
    for command in ("check", "run --random-inputs"):
        case(t, "no_outputs.webnn", GOOD.replace("outputs { z; }", "outputs { }"), command,
             "the graph has no outputs")
    case(t, "no_header.webnn", GOOD.replace('webnn_graph "bad" v1', "graph"), "check", "")
    case(t, "unknown_op.webnn", GOOD.replace("relu(y)", "relux(y)"), "check",
         "unknown operator 'relux' (did you mean 'relu'?)")
    case(t, "unknown_option.webnn", GOOD.replace("relu(y)", "softmax(y, axes=1)"), "check",
         "unknown option 'axes'")
    case(t, "use_before_def.webnn", GOOD.replace("y = add(x, s); z = relu(y);",
                                                 "z = relu(y); y = add(x, s);"),
         "check", "'y' is not defined before its use")
    case(t, "cycle.webnn", GOOD.replace("y = add(x, s); z = relu(y);",
                                        "y = add(x, z); z = relu(y);"),
         "check", "'z' is not defined before its use")
    case(t, "redefinition.webnn", GOOD.replace("z = relu(y);", "y = relu(y); z = relu(y);"),
         "check", "'y' is already defined")
    case(t, "output_names_nothing.webnn", GOOD.replace("outputs { z; }", "outputs { w; }"),
         "check", "'w'")
    case(t, "output_twice.webnn", GOOD.replace("outputs { z; }", "outputs { z; z; }"),
         "check", "listed twice")
    case(t, "huge_shape.webnn", GOOD.replace("x: f32[2, 3]", "x: f32[1073741824, 1073741824]"),
         "check", "more than 2^48 elements")
    case(t, "rank_9.webnn", GOOD.replace("x: f32[2, 3]", "x: f32[1, 1, 1, 1, 1, 1, 1, 2, 3]"),
         "check", "rank 9")
    case(t, "negative_dim.webnn", GOOD.replace("x: f32[2, 3]", "x: f32[2, -3]"), "check", "")
    case(t, "dim_overflow.webnn", GOOD.replace("x: f32[2, 3]", "x: f32[2, 99999999999999999999]"),
         "check", "")
    case(t, "huge_scalar_fill.webnn",
         GOOD.replace("s: f32[3] @scalar(-1.5);", "s: f32[140737488355328] @scalar(1);")
         .replace("y = add(x, s); z = relu(y);", "z = relu(x);"),
         "check", "above the limit")
    case(t, "unknown_dtype.webnn", GOOD.replace("x: f32[2, 3]", "x: f33[2, 3]"), "check", "f33")
    case(t, "dtype_mismatch.webnn", GOOD.replace("x: f32[2, 3]", "x: i32[2, 3]"), "check",
         "data type")
    case(t, "broadcast_mismatch.webnn", GOOD.replace("x: f32[2, 3]", "x: f32[2, 4]"), "check",
         "add")
    case(t, "too_many_args.webnn", GOOD.replace("relu(y)", "relu(y, y)"), "check",
         "too many positional arguments")
    case(t, "unterminated_string.webnn", GOOD.replace('"bad" v1', '"bad v1'), "check", "")
    case(t, "nul_byte.webnn", GOOD.replace("relu(y)", "relu(\0y)"), "check", "")
    case(t, "duplicate_input.webnn", GOOD.replace("x: f32[2, 3];", "x: f32[2, 3]; x: f32[3];"),
         "check", "'x' is already defined")
    case(t, "nesting_bomb.webnn", GOOD.replace("relu(y)", "transpose(y, permutation=" +
                                               "[" * 100000 + "]" * 100000 + ")"),
         "check", "nest deeper")
    case(t, "long_name.webnn", GOOD.replace("z = relu(y); }\n  outputs { z; }",
                                            "z" * 5000 + " = relu(y); }\n  outputs { " +
                                            "z" * 5000 + "; }"), "check", "4096")
    case(t, "bytes_wrong_length.webnn", GOOD.replace("@scalar(-1.5)", "@bytes([1, 2, 3])"),
         "check", "@bytes of a")
    case(t, "dynamic_dim_zero.webnn", GOOD.replace("x: f32[2, 3]", 'x: f32[dyn("n", 0), 3]'),
         "check", "needs a maximum of at least 1")
    case(t, "binary_garbage.webnn", bytes((i * 37 + 11) % 256 for i in range(512)), "check", "")
    flipped = bytearray(GOOD.encode())
    flipped[GOOD.index("inputs") + 2] ^= 0x01  # "inputs" -> "inqats"-like: an unknown block
    case(t, "bit_flipped_block.webnn", bytes(flipped), "check", "")
    flipped = bytearray(GOOD.encode())
    flipped[GOOD.index("add(") + 3] ^= 0x08  # '(' -> ' ': the call loses its parenthesis
    case(t, "bit_flipped_paren.webnn", bytes(flipped), "check", "")
    case(t, "missing_weights.webnn", GOOD.replace("@scalar(-1.5)", '@weights("w")'), "check",
         "no weights file was found")
    case(t, "int_option_not_number.webnn", GOOD.replace("relu(y)", "softmax(y, axis=\"one\")"),
         "check", "expected an integer")
    case(t, "stray_control_char.webnn", GOOD.replace("relu(y)", "relu(\x01y)"), "check", "")


JSON_GOOD = {
    "format": "webnn-graph-json", "version": 2, "name": "j",
    "inputs": {"x": {"dataType": "float32", "shape": [2, 3]}},
    "consts": {"s": {"dataType": "float32", "shape": [3], "init": {"kind": "scalar", "value": -1.5}}},
    "nodes": [{"id": "y", "op": "add", "inputs": ["x", "s"], "options": {}},
              {"id": "z", "op": "relu", "inputs": ["y"], "options": {}}],
    "outputs": {"z": "z"},
}


def jdump(d):
    return json.dumps(d, indent=1)


def json_variant(mutate):
    d = json.loads(json.dumps(JSON_GOOD))
    mutate(d)
    return jdump(d)


def json_cases():
    j = "json"
    good = jdump(JSON_GOOD)
    case(j, "truncated.json", good[: len(good) // 2], "check", "")
    for command in ("check", "run --random-inputs"):
        case(j, "no_outputs.json", json_variant(lambda d: d.update(outputs={})), command,
             "the graph has no outputs")
    case(j, "wrong_format.json", json_variant(lambda d: d.update(format="onnx")), "check",
         "webnn-graph-json")
    case(j, "nesting_bomb.json", '{"nodes": ' + "[" * 100000 + "]" * 100000 + "}", "check",
         "nests deeper")
    case(j, "unknown_op.json", json_variant(lambda d: d["nodes"][1].update(op="relux")), "check",
         "unknown operator 'relux'")
    case(j, "inputs_not_object.json", json_variant(lambda d: d.update(inputs=[1, 2])), "check", "")
    case(j, "use_before_def.json", json_variant(lambda d: d["nodes"].reverse()), "check",
         "not defined before its use")
    case(j, "scalar_value_string.json", json_variant(
        lambda d: d["consts"]["s"]["init"].update(value="lots")), "check", "")
    case(j, "negative_dim.json", json_variant(
        lambda d: d["inputs"]["x"].update(shape=[2, -3])), "check", "")
    case(j, "huge_shape.json", json_variant(
        lambda d: d["inputs"]["x"].update(shape=[2 ** 30, 2 ** 30])), "check", "2^48")
    case(j, "inline_bytes_out_of_range.json", json_variant(
        lambda d: d["consts"]["s"].update(dataType="uint8", shape=[2],
                                          init={"kind": "inlineBytes", "bytes": [7, 256]})),
         "check", "")
    case(j, "output_names_nothing.json", json_variant(
        lambda d: d.update(outputs={"z": "nope"})), "check", "nope")
    case(j, "control_char_name.json", json_variant(lambda d: d["nodes"][1].update(id="z\x01")),
         "check", "control character")
    dup = jdump(JSON_GOOD).replace('"consts": {', '"consts": {"s": {"dataType": "float32", '
                                   '"shape": [1], "init": {"kind": "scalar", "value": 2}}, ', 1)
    case(j, "duplicate_const.json", dup, "check", "declares 's' twice")
    case(j, "number_overflow.json", good.replace('"version": 2', '"version": 1e999'), "check",
         "number overflow parsing '1e999'")
    case(j, "not_json.json", "{\"format\": webnn}", "check", "")
    case(j, "unknown_option.json", json_variant(
        lambda d: d["nodes"][1].update(op="softmax", options={"axes": 1})), "check",
         "unknown option 'axes'")


def st(tensors, **kw):
    return file_bytes.safetensors(tensors, **kw)


ONE = [("w", "F32", [2], f32(1.5, -2))]


def safetensors_cases():
    s = "safetensors"
    ok = st(ONE)
    case(s, "shorter_than_8.safetensors", b"\x05\x00\x00", "info", "shorter than the 8-byte")
    case(s, "header_length_huge.safetensors", struct.pack("<Q", 2 ** 63) + ok[8:], "info",
         "above the limit")
    case(s, "header_length_past_end.safetensors", struct.pack("<Q", 4096) + ok[8:], "info",
         "runs past the end of the file")
    case(s, "header_not_json.safetensors", st(ONE, header="{not json"), "info", "not valid JSON")
    case(s, "header_is_array.safetensors", st([], header="[1, 2]"), "info", "must be an object")
    case(s, "offsets_past_end.safetensors", st(ONE, header=json.dumps(
        {"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})), "info",
         "run past the end of the data")
    case(s, "overlapping.safetensors", st([("a", "F32", [2], f32(1, 2))], header=json.dumps(
        {"a": {"dtype": "U8", "shape": [6], "data_offsets": [0, 6]},
         "b": {"dtype": "U8", "shape": [4], "data_offsets": [4, 8]}})), "info", "overlap")
    case(s, "length_mismatch.safetensors", st(ONE, header=json.dumps(
        {"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})), "info",
         "does not match")
    case(s, "unsupported_dtype.safetensors", st([("w", "F64", [1], f32(1, 2))]), "info",
         "unsupported dtype \"F64\"")
    case(s, "rank_9.safetensors", st([("w", "U8", [1] * 9, b"\x01")]), "info", "rank 9")
    case(s, "shape_overflow.safetensors", st([("w", "U8", [2 ** 40, 2 ** 40], b"")]), "info",
         "elements")
    case(s, "negative_dim.safetensors", st([("w", "U8", [-1], b"")]), "info",
         "non-negative integer")
    case(s, "nesting_bomb.safetensors", st([], header='{"a": ' + "[" * 5000 + "]" * 5000 + "}"),
         "info", "nests deeper")
    case(s, "duplicate_key.safetensors", st(ONE, header=
        '{"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},'
        ' "w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}'), "info", "twice")
    flipped = bytearray(ok)
    flipped[8] ^= 0x10  # '{' -> 'k'
    case(s, "bit_flipped_header.safetensors", bytes(flipped), "info", "not valid JSON")
    case(s, "truncated_data.safetensors", ok[:-3], "info", "run past the end of the data")
    case(s, "metadata_not_string.safetensors", st(ONE, metadata={"n": 1}), "info",
         "must be a string")
    case(s, "offsets_reversed.safetensors", st(ONE, header=json.dumps(
        {"w": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}})), "info",
         "end before they begin")
    case(s, "missing_field.safetensors", st(ONE, header=json.dumps(
        {"w": {"dtype": "F32", "shape": [2]}})), "info", "has no \"data_offsets\"")
    case(s, "empty_file.safetensors", b"", "info", "shorter than the 8-byte")
    # Graph + weights: the graph declares what the file does not hold.
    w_graph = graph("""  inputs { x: f32[2]; }
  consts { w: %s @weights("w"); }
  nodes { y = add(x, w); }
  outputs { y; }""")
    case(s, "dtype_mismatch.webnn", w_graph % "f32[2]", "check", "stored as I32",
         extra={"dtype_mismatch.safetensors": st([("w", "I32", [2], bytes(8))])})
    case(s, "shape_mismatch.webnn", w_graph % "f32[2]", "check", "stored shape [1, 2]",
         extra={"shape_mismatch.safetensors": st([("w", "F32", [1, 2], f32(1, 2))])})
    case(s, "missing_key.webnn", w_graph % "f32[2]", "check", "no tensor 'w'",
         extra={"missing_key.safetensors": st([("v", "F32", [2], f32(1, 2))])})
    q_graph = graph("""  inputs { x: f32[3]; }
  consts { q: int4[3] @weights("q"); s: f32[] @scalar(0.5); z: int4[] @bytes([0]); }
  nodes { d = dequantizeLinear(q, s, z); y = add(x, d); }
  outputs { y; }""", header='webnn_graph "bad" v1 @quantized')
    case(s, "packed4_no_marker.webnn", q_graph, "check", "rustnn.webnn.packed4",
         extra={"packed4_no_marker.safetensors": st([("q", "U8", [2], b"\x9f\x07")])})
    case(s, "packed4_wrong_version.webnn", q_graph, "check", "unknown packed 4-bit marker",
         extra={"packed4_wrong_version.safetensors": st([("q", "U8", [2], b"\x9f\x07")],
                                                        metadata={"rustnn.webnn.packed4": "9"})})


def legacy_cases():
    g = "legacy"
    good, manifest = file_bytes.legacy_weights([("w", "float32", [2], f32(1, -2))])
    m = json.loads(manifest)

    def pair(name, weights, manifest_obj, expected):
        text = manifest_obj if isinstance(manifest_obj, str) else json.dumps(manifest_obj)
        case(g, name + ".weights", weights, "info", expected,
             extra={name + ".manifest.json": text})

    def mutated(fn):
        d = json.loads(json.dumps(m))
        fn(d)
        return d

    pair("bad_magic", b"WGWX" + good[4:], m, "no WGWT magic")
    pair("version_2", good[:4] + struct.pack("<I", 2) + good[8:], m, "WGWT version 2")
    pair("range_past_end", good, mutated(lambda d: d["tensors"]["w"].update(byteOffset=64)),
         "outside the tensor data")
    pair("length_mismatch", good, mutated(
        lambda d: d["tensors"]["w"].update(shape=[3])), "does not match")
    pair("unknown_dtype", good, mutated(
        lambda d: d["tensors"]["w"].update(dataType="complex64")), "unknown dataType")
    pair("manifest_not_json", good, manifest[:30], "not valid JSON")
    pair("manifest_wrong_format", good, mutated(lambda d: d.update(format="zip")),
         "\"format\" is \"zip\"")
    pair("rank_9", good, mutated(lambda d: d["tensors"]["w"].update(shape=[1] * 9)),
         "at most 8 dims")
    pair("offset_in_magic", good, mutated(lambda d: d["tensors"]["w"].update(byteOffset=0)),
         "outside the tensor data")
    pair("big_endian", good, mutated(lambda d: d.update(endianness="big")), "endianness")
    case("legacy_nomanifest", "alone.weights", good, "info", "no manifest found")
    case(g, "truncated.weights", b"WGW", "info", "no WGWT magic",
         extra={"truncated.manifest.json": manifest})


def npy_cases():
    n = "npy"
    good = file_bytes.npy(np.arange(6, dtype=np.float32).reshape(2, 3))
    case(n, "no_magic.npy", b"\x93NUMPZ" + good[6:], "info", "no \\x93NUMPY magic")
    case(n, "version_4.npy", good[:6] + b"\x04\x00" + good[8:], "info", "version 4.0")
    case(n, "header_past_end.npy", good[:8] + struct.pack("<H", 60000) + good[10:], "info",
         "runs past the end")
    case(n, "fortran_order.npy", file_bytes.npy(
        header="{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", data=f32(1, 2)),
         "info", "Fortran order")
    case(n, "big_endian.npy", file_bytes.npy(
        header="{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", data=f32(1, 2)),
         "info", "dtype '>f4' is not supported")
    case(n, "truncated_data.npy", good[:-5], "info", "data is 19 bytes")
    case(n, "huge_shape.npy", file_bytes.npy(
        header="{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824, 1073741824), }"),
         "info", "more than")
    case(n, "unquoted_key.npy", file_bytes.npy(header="{'descr: '<f4"), "info", "expected ':'")
    case(n, "unterminated_string.npy", file_bytes.npy(header="{'descr': '<f4"), "info",
         "unterminated string")
    case(n, "rank_9.npy", file_bytes.npy(
        header="{'descr': '|u1', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }",
        data=b"\x01"), "info", "more than 8 dims")
    case(n, "missing_key.npy", file_bytes.npy(
        header="{'descr': '<f4', 'shape': (2,), }", data=f32(1, 2)), "info",
         "must give 'descr', 'fortran_order' and 'shape'")
    case(n, "v2_header_huge.npy", good[:6] + b"\x02\x00" + struct.pack("<I", 2 ** 31) + good[10:],
         "info", "above the limit")
    case(n, "empty.npy", b"", "info", "not a .npy file")


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(number, wire, payload):
    key = varint(number << 3 | wire)
    if wire == 2:
        return key + varint(len(payload)) + payload
    return key + payload


def onnx_cases():
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    o = "onnx"
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    node = helper.make_node("Add", ["x", "w"], ["y"])

    def model(initializers, nodes=(node,)):
        return file_bytes.onnx_model(nodes, [x], [y], initializers)

    w = numpy_helper.from_array(np.array([1, -2], np.float32), "w")
    good = model([w])
    case(o, "truncated.onnx", good[: len(good) - 7], "onnx-info", "")
    # What a model must hold before it converts; the output directory is never reached.
    convert = "convert -o /dev/null/wnn-bad-inputs"
    case(o, "empty.onnx", b"", convert, "the model has no graph (an empty or non-ONNX file?)")
    case(o, "empty.onnx", b"", "validate", "the model has no graph")
    no_graph = helper.make_model(helper.make_graph([], "g", [], []),
                                 opset_imports=[helper.make_opsetid("", 13)])
    no_graph.ClearField("graph")
    case(o, "no_graph.onnx", no_graph.SerializeToString(), convert, "the model has no graph")
    no_opset = onnx.ModelProto.FromString(good)
    no_opset.ClearField("opset_import")
    case(o, "no_opset.onnx", no_opset.SerializeToString(), convert,
         "the model has no opset_import")
    no_outputs = onnx.ModelProto.FromString(good)
    no_outputs.graph.ClearField("output")
    case(o, "no_outputs.onnx", no_outputs.SerializeToString(), convert,
         "the graph has no outputs")
    case(o, "garbage.onnx", bytes((i * 73 + 5) % 256 for i in range(300)), "onnx-info", "")
    case(o, "bad_wire_type.onnx", field(7, 7, b"") + good, "onnx-info", "wire type")
    case(o, "length_past_end.onnx", varint(7 << 3 | 2) + varint(10 ** 6) + b"\x00", "onnx-info",
         "")
    case(o, "overlong_varint.onnx", varint(1 << 3) + b"\xff" * 11 + b"\x01", "onnx-info",
         "varint")
    # If nodes nested 40 deep: the decoder's subgraph depth bound is 32.
    inner = helper.make_graph([helper.make_node("Neg", ["x"], ["t"])], "g0", [],
                              [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    for depth in range(40):
        leaf = helper.make_graph([], "leaf", [], [])
        n = helper.make_node("If", ["c"], ["t"], then_branch=inner, else_branch=leaf)
        inner = helper.make_graph([n], f"g{depth + 1}", [],
                                  [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    bomb = helper.make_model(inner)
    case(o, "subgraph_nesting_bomb.onnx", bomb.SerializeToString(), "onnx-info", "deeper")

    def external(name, location, offset=0, length=8):
        t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=[2])
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
            e = t.external_data.add()
            e.key, e.value = k, v
        return t

    (HERE / o / "data.bin").write_bytes(f32(1, 2, 3, 4))
    case(o, "external_traversal.onnx", model([external("w", "../../../etc/passwd")]),
         "onnx-info --check-data", "contains '..'")
    case(o, "external_absolute.onnx", model([external("w", "/etc/passwd")]),
         "onnx-info --check-data", "absolute path")
    link = HERE / o / "escape.bin"
    if link.is_symlink() or link.exists():
        link.unlink()
    os.symlink("/etc/hostname", link)
    case(o, "external_symlink_escape.onnx", model([external("w", "escape.bin")]),
         "onnx-info --check-data", "outside the model's directory")
    case(o, "external_offset_past_end.onnx", model([external("w", "data.bin", offset=12)]),
         "onnx-info --check-data", "is outside 'data.bin'")
    case(o, "external_missing_file.onnx", model([external("w", "nope.bin")]),
         "onnx-info --check-data", "nope.bin")
    case(o, "external_length_mismatch.onnx", model([external("w", "data.bin", length=12)]),
         "onnx-info --check-data", "does not match")
    raw = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[3], raw_data=f32(1, 2))
    case(o, "raw_size_mismatch.onnx", model([raw]), "onnx-info --check-data", "'w'")
    neg = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[-2], raw_data=f32(1, 2))
    case(o, "negative_dims.onnx", model([neg]), "onnx-info --check-data", "")
    many = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1] * 70, raw_data=f32(1))
    case(o, "too_many_dims.onnx", model([many]), "onnx-info", "")
    huge = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2 ** 31, 2 ** 31, 2 ** 31],
                       raw_data=f32(1))
    case(o, "huge_dims.onnx", model([huge]), "onnx-info --check-data", "")
    strs = TensorProto(name="w", data_type=TensorProto.STRING, dims=[1], string_data=[b"a"])
    case(o, "string_tensor.onnx", model([strs]), "onnx-info --check-data", "")
    case(o, "safetensors_as_onnx.onnx", file_bytes.safetensors([("w", "F32", [2], f32(1, 2))]),
         "onnx-info", "")


def main():
    for folder in FOLDERS:
        shutil.rmtree(HERE / folder, ignore_errors=True)
        (HERE / folder).mkdir()
    text_cases()
    json_cases()
    safetensors_cases()
    legacy_cases()
    npy_cases()
    onnx_cases()
    with open(HERE / "cases.tsv", "w") as out:
        out.write("# command\tfile (relative to tests/bad_inputs)\texpected message substring\n")
        for command, path, expected in CASES:
            out.write(f"{command}\t{path}\t{expected}\n")
    print(f"{len(CASES)} cases")


if __name__ == "__main__":
    main()
