"""com.microsoft quantized matmuls (MatMulNBits, MatMulIntegerToFloat, DynamicQuantizeMatMul)
through wnn convert + wnn run against ONNX Runtime.

Run: WNN=build/wnn /usr/bin/python3 -m unittest discover -s tests/onnx -p 'test_*.py'
"""

import json
import os
import struct
import unittest

import numpy as np
from onnx import helper

from contrib_harness import F16_TOL, ContribCase, ContribTestBase, pack_rows


class QuantizedMatmulTest(ContribTestBase):
    # --- MatMulNBits ---------------------------------------------------------------------

    def nbits_case(self, a_shape, k, n, bits, block, zero_points=None, bias=False, **attrs):
        blocks = -(-k // block)
        q = self.rng.integers(0, 2**bits, size=(n, blocks * block), dtype=np.uint8)
        b = pack_rows(q, bits).reshape(n, blocks, block * bits // 8)
        scales = (self.rng.uniform(0.01, 0.1, size=(n * blocks,))).astype(np.float32)
        inits = {"B": b, "scales": scales}
        node_inputs = ["A", "B", "scales"]
        if zero_points == "packed":
            zp = self.rng.integers(0, 2**bits, size=(n, blocks), dtype=np.uint8)
            inits["zp"] = pack_rows(zp, bits).reshape(-1)
            node_inputs.append("zp")
        elif zero_points == "float":
            inits["zp"] = self.rng.uniform(0, 2**bits - 1, size=(n * blocks,)).astype(np.float32)
            node_inputs.append("zp")
        if bias:
            node_inputs += ["", "", "bias"] if zero_points is None else ["", "bias"]
            inits["bias"] = self.rand(n)
        node = helper.make_node("MatMulNBits", node_inputs, ["Y"], domain="com.microsoft", K=k,
                                N=n, bits=bits, block_size=block, **attrs)
        tol = (1e-3, 1e-3) if bits == 4 else (2e-3, 2e-3)
        return ContribCase([node], {"A": self.rand(*a_shape)}, inits, ["Y"], tol)

    def test_matmul_nbits_4bit_default_zero_point_and_bias(self):
        self.check(self.nbits_case((2, 3, 64), 64, 24, 4, 32, bias=True))

    def test_matmul_nbits_4bit_packed_zero_points_odd_k(self):
        # K = 80 is not a multiple of 32: the last block is padded in B.
        self.check(self.nbits_case((5, 80), 80, 7, 4, 32, zero_points="packed"))

    def test_matmul_nbits_4bit_float_zero_points(self):
        self.check(self.nbits_case((3, 48), 48, 10, 4, 16, zero_points="float"))

    def test_matmul_nbits_8bit_packed_zero_points_and_bias(self):
        self.check(self.nbits_case((1, 4, 48), 48, 9, 8, 16, zero_points="packed", bias=True))

    def test_matmul_nbits_8bit_default_zero_point_odd_k(self):
        self.check(self.nbits_case((3, 40), 40, 6, 8, 32))

    def test_matmul_nbits_float16(self):
        case = self.nbits_case((2, 64), 64, 8, 4, 32, zero_points="packed", bias=True)
        case.inputs["A"] = case.inputs["A"].astype(np.float16)
        for name in ("scales", "bias"):
            case.inits[name] = case.inits[name].astype(np.float16)
        case.out_dtype, case.tol = np.dtype(np.float16), F16_TOL
        self.check(case)

    def stored_tensors(self, out):
        """name -> (dtype, raw bytes) of the converted weights file."""
        with open(os.path.join(out, "model.safetensors"), "rb") as f:
            length = struct.unpack("<Q", f.read(8))[0]
            header = json.loads(f.read(length))
            body = f.read()
        return {name: (e["dtype"], body[e["data_offsets"][0]:e["data_offsets"][1]])
                for name, e in header.items() if name != "__metadata__"}

    def test_matmul_nbits_weights_stay_packed_in_safetensors(self):
        for bits in (4, 8):
            k, n, block = 256, 96, 32
            case = self.nbits_case((2, k), k, n, bits, block)
            stored = self.stored_tensors(self.check(case))
            # The weight is stored as B's own bytes (K * N * bits / 8), never widened to one
            # byte per 4-bit value or to floats; the rest is the scales and small constants.
            packed = case.inits["B"].tobytes()
            self.assertIn(("U8", packed), stored.values(), bits)
            total = sum(len(data) for _, data in stored.values())
            self.assertLess(total, len(packed) + 4 * n * (k // block) + 1024, bits)

    def with_g_idx(self, case, g_idx):
        node = case.nodes[0]
        while len(node.input) < 4:
            node.input.append("")
        node.input[4:] = ["g_idx"]
        case.inits["g_idx"] = g_idx.astype(np.int32)
        return case

    def test_matmul_nbits_identity_g_idx(self):
        case = self.nbits_case((2, 64), 64, 5, 4, 16)
        self.check(self.with_g_idx(case, np.arange(64) // 16))

    def test_matmul_nbits_identity_g_idx_float_zero_points(self):
        case = self.nbits_case((2, 64), 64, 5, 4, 16, zero_points="float")
        self.check(self.with_g_idx(case, np.arange(64) // 16))

    def test_matmul_nbits_g_idx_with_packed_zero_points_is_unsupported(self):
        # ORT 1.30's CPU kernel ignores packed zero points when g_idx is given.
        case = self.nbits_case((2, 64), 64, 5, 4, 16, zero_points="packed")
        self.expect_unsupported(self.with_g_idx(case, np.arange(64) // 16), "g_idx", "zero_points")

    def test_matmul_nbits_act_order_g_idx_is_unsupported(self):
        case = self.nbits_case((2, 64), 64, 5, 4, 16)
        self.expect_unsupported(self.with_g_idx(case, (np.arange(64) // 16)[::-1]), "act-order")

    def level4_case(self, *args, **kwargs):
        # ORT quantizes A to int8 per block and multiplies exactly: wnn reproduces that, so
        # the float32 tolerance holds, far below what the int8 rounding of A changes (~1e-3).
        case = self.nbits_case(*args, accuracy_level=4, **kwargs)
        case.tol = (2e-5, 2e-5)
        return case

    def test_matmul_nbits_accuracy_level_4_default_zero_point_and_bias(self):
        self.check(self.level4_case((2, 3, 64), 64, 24, 4, 32, bias=True))

    def test_matmul_nbits_accuracy_level_4_packed_zero_points_odd_k(self):
        # K = 80 pads the last block of A as well as of B.
        self.check(self.level4_case((5, 80), 80, 21, 4, 32, zero_points="packed"))

    def test_matmul_nbits_accuracy_level_4_8bit_block_16(self):
        self.check(self.level4_case((3, 40), 40, 17, 8, 16, zero_points="packed"))

    def test_matmul_nbits_accuracy_level_4_block_128(self):
        self.check(self.level4_case((1, 200), 200, 33, 4, 128))

    def test_matmul_nbits_accuracy_level_2_is_unsupported(self):
        case = self.nbits_case((2, 32), 32, 4, 4, 32, accuracy_level=2)
        self.expect_unsupported(case, "MatMulNBits", "accuracy_level=2")

    # --- GatherBlockQuantized ---------------------------------------------------------------

    def test_gather_block_quantized_packed_uint8_rows(self):
        # A tied embedding's form: lm_head's packed 4-bit bytes as uint8 [rows, hidden / 2],
        # bits=4, default zero point 8; indices of rank 2 with repeats.
        rows, hidden, block = 11, 64, 16
        q = self.rng.integers(0, 16, size=(rows, hidden), dtype=np.uint8)
        inits = {"data": pack_rows(q, 4).reshape(rows, hidden // 2),
                 "scales": self.rng.uniform(-0.05, 0.1, size=(rows, hidden // block))
                 .astype(np.float32)}
        ids = np.array([[3, 0, 10, 3, 7]], np.int64)
        node = helper.make_node("GatherBlockQuantized", ["data", "ids", "scales"], ["Y"],
                                domain="com.microsoft", bits=4, block_size=block, gather_axis=0,
                                quantize_axis=1)
        self.check(ContribCase([node], {"ids": ids}, inits, ["Y"]))

    # --- integer matmuls -----------------------------------------------------------------

    def test_matmul_integer_to_float_with_zero_points_and_bias(self):
        a = self.rng.integers(0, 256, size=(2, 3, 6), dtype=np.uint8)
        inits = {"B": self.rng.integers(-128, 128, size=(6, 4), dtype=np.int8),
                 "a_scale": np.array(0.02, np.float32),
                 "b_scale": self.rng.uniform(0.01, 0.05, size=(4,)).astype(np.float32),
                 "a_zp": np.array(131, np.uint8),
                 "b_zp": np.array([-3, 0, 5, 1], np.int8),
                 "bias": self.rand(4)}
        node = helper.make_node("MatMulIntegerToFloat",
                                ["A", "B", "a_scale", "b_scale", "a_zp", "b_zp", "bias"], ["Y"],
                                domain="com.microsoft")
        self.check(ContribCase([node], {"A": a}, inits, ["Y"]))

    def test_matmul_integer_to_float_without_zero_points(self):
        a = self.rng.integers(-128, 128, size=(5, 7), dtype=np.int8)
        inits = {"B": self.rng.integers(-128, 128, size=(7, 3), dtype=np.int8),
                 "a_scale": np.array(0.03, np.float32), "b_scale": np.array(0.011, np.float32)}
        node = helper.make_node("MatMulIntegerToFloat", ["A", "B", "a_scale", "b_scale"], ["Y"],
                                domain="com.microsoft")
        self.check(ContribCase([node], {"A": a}, inits, ["Y"]))

    def test_dynamic_quantize_matmul_uint8_weights_with_zero_point_and_bias(self):
        inits = {"B": self.rng.integers(0, 256, size=(9, 5), dtype=np.uint8),
                 "b_scale": self.rng.uniform(0.01, 0.05, size=(5,)).astype(np.float32),
                 "b_zp": self.rng.integers(100, 150, size=(5,), dtype=np.uint8),
                 "bias": self.rand(5)}
        node = helper.make_node("DynamicQuantizeMatMul", ["A", "B", "b_scale", "b_zp", "bias"],
                                ["Y"], domain="com.microsoft")
        self.check(ContribCase([node], {"A": self.rand(2, 4, 9)}, inits, ["Y"]))

    def test_dynamic_quantize_matmul_int8_weights_positive_input(self):
        inits = {"B": self.rng.integers(-128, 128, size=(6, 4), dtype=np.int8),
                 "b_scale": np.array(0.02, np.float32)}
        node = helper.make_node("DynamicQuantizeMatMul", ["A", "B", "b_scale"], ["Y"],
                                domain="com.microsoft")
        a = np.abs(self.rand(3, 6)) + 0.25  # min(A, 0) = 0: the zero point is 0
        self.check(ContribCase([node], {"A": a}, inits, ["Y"]))



if __name__ == "__main__":
    unittest.main()
