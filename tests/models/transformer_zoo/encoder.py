"""BERT encoders as transformers.js ships them (optimum export), fp32 and quantize_dynamic'd.

fp32: inputs input_ids, attention_mask, token_type_ids (int64 [batch_size, sequence_length]),
output last_hidden_state; word + token type + position embeddings (position ids sliced from a
constant arange), post-LN layers, erf GELU, the extended mask (1 - mask) * float32 min added to
the scores, scores divided by sqrt(head_dim).

Quantized (ORT's quantize_dynamic in QOperator/IntegerOps mode with MatMulConstBOnly, as
transformers.js' quantize.py calls it; weights per tensor; activations uint8):
- a MatMul by a weight becomes DynamicQuantizeLinear on its input (`{x}_QuantizeLinear`, outputs
  `{x}_quantized`, `{x}_scale`, `{x}_zero_point`; one per activation, shared by the q/k/v
  projections), MatMulInteger (`{node}_quant`), Cast to float, Mul of the two scales
  (`{node}_quant_scales_mul`) and Mul into the original output (`{node}_quant_output_scale_mul`);
- the bias Add stays a float Add; activation-by-activation MatMuls stay float;
- a Gather from a weight reads the quantized table and is followed by DequantizeLinear
  (`{out}_DequantizeLinear`);
- producer "onnx.quantize" 0.1.0, the com.microsoft opset added.
"""

import numpy as np
from onnx import helper, numpy_helper

from .config import Weights
from .graph import TORCH, Graph
from .quant import dynamic_weight_quantize
from .torch_idiom import TorchOps

I64 = np.int64


def encoder_weights(name, c):
    w = Weights(name)
    h, i = c.hidden, c.intermediate
    out = {
        "word": w.normal((c.vocab, h), 1.0), "position": w.normal((c.positions, h), 0.5),
        "type": w.normal((c.type_vocab, h), 0.5), "ln": (w.norm(h), w.bias(h)), "layers": [],
    }
    for _ in range(c.layers):
        layer = {}
        for part in ("query", "key", "value"):
            layer[part] = (w.linear(h, h), w.bias(h))
        layer["attn_out"] = (w.linear(h, h, 0.5), w.bias(h))
        layer["attn_ln"] = (w.norm(h), w.bias(h))
        layer["inter"] = (w.linear(h, i), w.bias(i))
        layer["out"] = (w.linear(i, h, 0.5), w.bias(h))
        layer["out_ln"] = (w.norm(h), w.bias(h))
        out["layers"].append(layer)
    return out


def build_fp32(name, c):
    g = Graph("main_graph", TORCH)
    t = TorchOps(g, first_anonymous=1000)
    w = encoder_weights(name, c)
    for n in ("input_ids", "attention_mask", "token_type_ids"):
        g.input(n, I64, ["batch_size", "sequence_length"])
    g.output("last_hidden_state", np.float32, ["batch_size", "sequence_length", c.hidden])

    scope = "/embeddings"
    words = g.node("Gather", [g.init("embeddings.word_embeddings.weight", w["word"]), "input_ids"],
                   f"{scope}/word_embeddings/Gather")
    types = g.node("Gather", [g.init("embeddings.token_type_embeddings.weight", w["type"]),
                              "token_type_ids"], f"{scope}/token_type_embeddings/Gather")
    x = g.op("Add", [words, types], scope)
    length = t.dim(scope, "input_ids", 1)
    positions = g.init("embeddings.position_ids", np.arange(c.positions, dtype=I64)[None])
    ids = g.op("Slice", [positions, t.const(scope, [0]), length, t.const(scope, [1]),
                         t.const(scope, [1])], scope)
    pos = g.node("Gather", [g.init("embeddings.position_embeddings.weight", w["position"]), ids],
                 f"{scope}/position_embeddings/Gather")
    x = g.op("Add", [x, pos], scope)
    x = t.layer_norm(f"{scope}/LayerNorm", x, *w["ln"], c.ln_eps, "embeddings.LayerNorm.weight",
                     "embeddings.LayerNorm.bias", c.opset)
    bias = t.padding_bias("", "attention_mask")
    batch = t.dim("", "input_ids", 0)

    for i, lw in enumerate(w["layers"]):
        base, prefix = f"/encoder/layer.{i}", f"encoder.layer.{i}"
        att = f"{base}/attention/self"
        heads = {}
        for part in ("query", "key", "value"):
            y = t.linear(f"{att}/{part}", x, *lw[part], f"{prefix}.attention.self.{part}.bias")
            perm = (0, 2, 3, 1) if part == "key" else (0, 2, 1, 3)
            heads[part] = t.split_heads(att, y, batch, length, c.heads, c.head_dim, perm)
        scores = g.op("MatMul", [heads["query"], heads["key"]], att)
        scores = g.op("Div", [scores, t.const(att, np.sqrt(c.head_dim), np.float32)], att)
        scores = g.op("Add", [scores, bias], att)
        probs = g.op("Softmax", [scores], att, axis=-1)
        ctx = g.op("MatMul", [probs, heads["value"]], att)
        ctx = t.merge_heads(att, ctx, batch, length, c.hidden)
        out = f"{base}/attention/output"
        y = t.linear(f"{out}/dense", ctx, *lw["attn_out"], f"{prefix}.attention.output.dense.bias")
        y = g.op("Add", [y, x], out)
        x = t.layer_norm(f"{out}/LayerNorm", y, *lw["attn_ln"], c.ln_eps,
                         f"{prefix}.attention.output.LayerNorm.weight",
                         f"{prefix}.attention.output.LayerNorm.bias", c.opset)
        inter = f"{base}/intermediate"
        y = t.linear(f"{inter}/dense", x, *lw["inter"], f"{prefix}.intermediate.dense.bias")
        y = t.gelu_erf(f"{inter}/intermediate_act_fn", y)
        out = f"{base}/output"
        y = t.linear(f"{out}/dense", y, *lw["out"], f"{prefix}.output.dense.bias")
        y = g.op("Add", [y, x], out)
        x = t.layer_norm(f"{out}/LayerNorm", y, *lw["out_ln"], c.ln_eps,
                         f"{prefix}.output.LayerNorm.weight", f"{prefix}.output.LayerNorm.bias",
                         c.opset)
    # torch.onnx.export gives the last node's output the graph output's name.
    g.nodes[-1].output[0] = "last_hidden_state"
    return g.model({"": c.opset}, 8, "pytorch", "2.1.0")


def quantize_dynamic(model, weight_dtype):
    """Rewrites an fp32 model the way ORT's quantize_dynamic does (see the module doc)."""
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    quantized, activations, nodes, new_inits, dequantized = {}, {}, [], [], {}

    def quantize_weight(name):
        if name not in quantized:
            q, scale, zero = dynamic_weight_quantize(numpy_helper.to_array(inits[name]),
                                                     weight_dtype)
            for suffix, array in (("_quantized", q), ("_scale", scale), ("_zero_point", zero)):
                new_inits.append(numpy_helper.from_array(array, name + suffix))
            quantized[name] = (name + "_quantized", name + "_scale", name + "_zero_point")
        return quantized[name]

    def float_input(value):
        """A Gather output read by a float node gets its DequantizeLinear first."""
        if value in dequantized and not dequantized[value][1]:
            q_out, scale, zero = dequantized[value][0]
            nodes.append(helper.make_node("DequantizeLinear", [q_out, scale, zero], [value],
                                          name=f"{value}_DequantizeLinear"))
            dequantized[value][1] = True

    for node in graph.node:
        if node.op_type == "MatMul" and node.input[1] in inits:
            a, b = node.input
            float_input(a)
            if a not in activations:
                outs = [f"{a}_quantized", f"{a}_scale", f"{a}_zero_point"]
                nodes.append(helper.make_node("DynamicQuantizeLinear", [a], outs,
                                              name=f"{a}_QuantizeLinear"))
                activations[a] = outs
            aq, ascale, azero = activations[a]
            bq, bscale, bzero = quantize_weight(b)
            out, base = node.output[0], node.name + "_quant"
            nodes += [
                helper.make_node("MatMulInteger", [aq, bq, azero, bzero],
                                 [f"{out}_output_quantized"], name=base),
                helper.make_node("Cast", [f"{out}_output_quantized"],
                                 [f"{out}_output_quantized_cast_output"],
                                 name=f"{out}_output_quantized_cast", to=1),
                helper.make_node("Mul", [ascale, bscale], [f"{base}_scales_mul:0"],
                                 name=f"{base}_scales_mul"),
                helper.make_node("Mul", [f"{out}_output_quantized_cast_output",
                                         f"{base}_scales_mul:0"], [out],
                                 name=f"{base}_output_scale_mul"),
            ]
        elif node.op_type == "Gather" and node.input[0] in inits and \
                inits[node.input[0]].data_type == 1:
            q, scale, zero = quantize_weight(node.input[0])
            out = node.output[0]
            nodes.append(helper.make_node("Gather", [q, node.input[1]], [f"{out}_quantized"],
                                          name=node.name, axis=0))
            dequantized[out] = [(f"{out}_quantized", scale, zero), False]
        else:
            for value in node.input:
                float_input(value)
            nodes.append(node)
    keep = [t for t in graph.initializer if t.name not in quantized]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(keep + new_inits)
    model.producer_name, model.producer_version = "onnx.quantize", "0.1.0"
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model


def build(name, c):
    model = build_fp32(name, c)
    if c.quantized:
        model = quantize_dynamic(model, {"int8": np.int8, "uint8": np.uint8}[c.quantized])
    return model
