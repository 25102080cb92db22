"""Dynamic quantization's ops (DynamicQuantizeLinear, ConvInteger, MatMulInteger, QLinearConv,
QLinearMatMul) and linear Resize through wnn convert + wnn run, compared bit for bit with
ONNX Runtime: wnn reproduces ORT's arithmetic (docs/onnx-import.md, "Exact integer products").

Where ORT 1.30 refuses what ONNX allows (a per-channel ConvInteger weight zero point, a per-row
MatMulInteger A zero point) the reference is the exact int64 product in numpy.

Run: WNN=build/wnn /usr/bin/python3 -m unittest discover -s tests/onnx -p 'test_*.py'
"""

import unittest

import numpy as np
from onnx import helper

from contrib_harness import ContribCase, ContribTestBase

U8, I8, I32 = np.uint8, np.int8, np.int32
# The quantization step of the tie cases: 255 steps of 1/16 span [-0.5, 15.4375] exactly.
STEP = np.float32(0.0625)


def dql_case(x):
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "scale", "zp"])
    return ContribCase([node], {"x": np.asarray(x, np.float32)}, {}, ["y", "scale", "zp"],
                       out_dtype={"y": U8, "scale": np.float32, "zp": U8}, exact=True)


def integer_case(op, x, w, x_zero=None, w_zero=None, w_known=True, **attrs):
    """An integer product `op` of x (fed) and w (an initializer unless w_known is False), with
    optional zero points (initializers of their operand's dtype)."""
    inputs, inits = {"x": x}, {}
    (inits if w_known else inputs)["w"] = w
    names = ["x", "w"]
    if x_zero is not None:
        inits["xz"] = np.asarray(x_zero, x.dtype)
        names.append("xz")
    if w_zero is not None:
        if x_zero is None:
            names.append("")
        inits["wz"] = np.asarray(w_zero, w.dtype)
        names.append("wz")
    node = helper.make_node(op, names, ["y"], **attrs)
    return ContribCase([node], inputs, inits, ["y"], out_dtype=I32, exact=True)


def float32_sum_is_inexact(x, w):
    """Whether summing x * w (int64 rows) in float32, in order, misses the exact integer: the
    accumulation the old float32 decomposition relied on."""
    exact = (x * w).sum(axis=-1)
    acc = np.zeros(exact.shape, np.float32)
    for k in range(x.shape[-1]):
        acc = acc + (x[..., k] * w[..., k]).astype(np.float32)
    return (acc.astype(np.int64) != exact).any()


def conv_reference(x, w, pads, strides=(1, 1), dilations=(1, 1)):
    """The exact int64 NCHW conv of centered x (padding contributes 0) and w."""
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    xp = np.zeros((n, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]), np.int64)
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    oh = (xp.shape[2] - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (xp.shape[3] - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    y = np.zeros((n, m, oh, ow), np.int64)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i * dilations[0]:i * dilations[0] + strides[0] * (oh - 1) + 1:strides[0],
                       j * dilations[1]:j * dilations[1] + strides[1] * (ow - 1) + 1:strides[1]]
            y += np.einsum("nchw,mc->nmhw", patch, w[:, :, i, j])
    return y


class DynamicQuantizeLinearTest(ContribTestBase):
    def test_ties_round_half_to_even_both_ways(self):
        # min -0.5 and max 15.4375: scale exactly 1/16, zero point 8. x / scale = +-k.5 ties:
        # 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -2.5 -> -2, -3.5 -> -4 before the zero point.
        ties = np.array([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5, -8, 247], np.float32) * STEP
        self.check(dql_case(ties))

    def test_zero_point_tie_rounds_to_even(self):
        # -min / scale = 2.5: ORT's zero point is 2, not 3.
        self.check(dql_case(np.array([-2.5, 252.5, 1.5, -0.5], np.float32) * STEP))

    def test_all_zero_input_has_scale_one(self):
        # max == min: ORT's scale is 1 (not 0 / 255, which would divide 0 by 0).
        self.check(dql_case(np.zeros((2, 3), np.float32)))

    def test_all_negative_input_has_zero_point_255(self):
        self.check(dql_case(-np.abs(self.rand(3, 5, 7)) - 0.25))

    def test_all_positive_input_has_zero_point_0(self):
        self.check(dql_case(np.abs(self.rand(4, 9)) + 0.5))

    def test_single_element(self):
        self.check(dql_case(np.array([-0.7], np.float32)))

    def test_saturates_at_0_and_255_and_large_range(self):
        x = self.rand(5, 11) * np.float32(3e30)
        x[0, 0], x[1, 1] = -5e30, 1e31
        self.check(dql_case(x))

    def test_odd_sized_normal_input(self):
        self.check(dql_case(self.rand(3, 7, 11)))


class ConvIntegerTest(ContribTestBase):
    def conv_case(self, x, w, x_zero=None, w_zero=None, **attrs):
        return integer_case("ConvInteger", x, w, x_zero, w_zero, **attrs)

    def test_uint8_zero_points_pads_strides_odd_sizes(self):
        x = self.rng.integers(0, 256, (2, 3, 9, 7), dtype=U8)
        w = self.rng.integers(0, 256, (5, 3, 3, 2), dtype=U8)
        self.check(self.conv_case(x, w, 131, 77, pads=[1, 0, 2, 1], strides=[2, 1],
                                  dilations=[1, 2]))

    def test_int8_weight_and_group(self):
        x = self.rng.integers(0, 256, (1, 6, 8, 8), dtype=U8)
        w = self.rng.integers(-128, 128, (4, 3, 3, 3), dtype=I8)
        self.check(self.conv_case(x, w, 9, -3, pads=[1, 1, 1, 1], group=2))

    def test_int8_input_without_zero_points(self):
        x = self.rng.integers(-128, 128, (1, 4, 6, 5), dtype=I8)
        w = self.rng.integers(-128, 128, (3, 4, 1, 3), dtype=I8)
        self.check(self.conv_case(x, w))

    def test_large_k_is_exact_where_float32_accumulation_is_not(self):
        # K = 512 * 9 = 4608 same-signed products near 50000: sums near 2^28, which float32
        # accumulation rounds. The input channels are cut into chunks (conv groups).
        x = self.rng.integers(200, 256, (1, 512, 5, 5), dtype=U8)
        w = self.rng.integers(200, 256, (16, 512, 3, 3), dtype=U8)
        xc, wc = x.astype(np.int64) - 3, w.astype(np.int64) - 1
        self.assertTrue(float32_sum_is_inexact(xc[0, :, 1:4, 1:4].reshape(1, -1),
                                               wc.reshape(16, -1)))
        self.check(self.conv_case(x, w, 3, 1, pads=[1, 1, 1, 1]))

    def test_large_kernel_is_split_into_digits(self):
        # One input channel of a 17x17 kernel already sums past 2^24 (289 * 250 * 255), and a
        # channel cannot be cut: the weight becomes base-16 digits.
        x = self.rng.integers(200, 256, (1, 2, 20, 19), dtype=U8)
        w = self.rng.integers(240, 256, (3, 2, 17, 17), dtype=U8)
        xc, wc = x.astype(np.int64), w.astype(np.int64)
        self.assertTrue(float32_sum_is_inexact(xc[0, :, 0:17, 0:17].reshape(1, -1),
                                               wc.reshape(3, -1)))
        self.check(self.conv_case(x, w, 0, 0, pads=[2, 1, 0, 3]))

    def test_very_large_kernel_is_split_into_three_digits(self):
        # 65 x 65 taps of 255: base-16's high digit (16) still sums past 2^24, base 8's (4) not.
        x = self.rng.integers(0, 256, (1, 1, 67, 66), dtype=U8)
        w = np.full((2, 1, 65, 65), 255, U8)
        w[1, 0, ::2] = 250
        self.check(self.conv_case(x, w, 0, 0, pads=[1, 1, 1, 1]))

    def test_3x3_in_16_channel_blocks_matches_bit_for_bit(self):
        # The shape oneDNN would run as Winograd, whose transforms round integer products.
        x = self.rng.integers(0, 256, (1, 32, 12, 12), dtype=U8)
        w = self.rng.integers(0, 256, (32, 32, 3, 3), dtype=U8)
        self.check(self.conv_case(x, w, 100, 140, pads=[1, 1, 1, 1]))

    def test_per_channel_weight_zero_point_against_numpy(self):
        # ORT 1.30 refuses a per-channel ConvInteger weight zero point; ONNX allows it.
        x = self.rng.integers(0, 256, (1, 3, 5, 6), dtype=U8)
        w = self.rng.integers(0, 256, (4, 3, 2, 2), dtype=U8)
        wz = self.rng.integers(0, 256, (4,), dtype=U8)
        case = self.conv_case(x, w, 200, wz, pads=[0, 1, 1, 0])
        want = conv_reference(x.astype(np.int64) - 200,
                              w.astype(np.int64) - wz.astype(np.int64)[:, None, None, None],
                              [0, 1, 1, 0])
        got, _ = self.run_wnn(case)
        self.compare(case, got, {"y": want.astype(I32)})


class MatMulIntegerTest(ContribTestBase):
    def mm_case(self, a, b, a_zero=None, b_zero=None, b_known=True):
        return integer_case("MatMulInteger", a, b, a_zero, b_zero, b_known)

    def test_batched_uint8_with_per_column_int8_zero_points(self):
        a = self.rng.integers(0, 256, (2, 5, 37), dtype=U8)
        b = self.rng.integers(-128, 128, (37, 11), dtype=I8)
        self.check(self.mm_case(a, b, 17, self.rng.integers(-128, 128, (11,), dtype=I8)))

    def test_large_odd_k_is_exact_where_float32_accumulation_is_not(self):
        k = 1031  # prime: no equal chunks but 1 or K, so the weight is split into digits
        a = self.rng.integers(200, 256, (3, k), dtype=U8)
        b = self.rng.integers(200, 256, (k, 7), dtype=U8)
        ac, bc = a.astype(np.int64) - 3, b.astype(np.int64) - 1
        self.assertTrue(float32_sum_is_inexact(ac[:, None, :], bc.T[None, :, :]))
        self.check(self.mm_case(a, b, 3, 1))

    def test_run_time_b_large_k_is_chunked(self):
        # Both operands at run time (attention's scores): the dtypes' worst case bounds the
        # split, 250 * 252 per product, so K = 1200 runs as 5 chunks of 240.
        k = 1200
        a = self.rng.integers(0, 256, (2, 3, k), dtype=U8)
        b = self.rng.integers(0, 256, (2, k, 4), dtype=U8)
        self.check(self.mm_case(a, b, 5, 3, b_known=False))

    def test_int8_a_and_run_time_int8_b(self):
        a = self.rng.integers(-128, 128, (3, 70), dtype=I8)
        b = self.rng.integers(-128, 128, (70, 4), dtype=I8)
        self.check(self.mm_case(a, b, -5, 3, b_known=False))

    def test_per_row_a_zero_point_against_numpy(self):
        # ORT 1.30 refuses a per-row A zero point; ONNX allows it for a 2-D A.
        a = self.rng.integers(0, 256, (4, 9), dtype=U8)
        b = self.rng.integers(0, 256, (9, 5), dtype=U8)
        az = self.rng.integers(0, 256, (4,), dtype=U8)
        case = self.mm_case(a, b, az, 90)
        want = (a.astype(np.int64) - az.astype(np.int64)[:, None]) @ (b.astype(np.int64) - 90)
        got, _ = self.run_wnn(case)
        self.compare(case, got, {"y": want.astype(I32)})


class QLinearTest(ContribTestBase):
    def test_qlinear_conv_with_bias_large_k(self):
        x = self.rng.integers(0, 256, (1, 256, 5, 5), dtype=U8)
        w = self.rng.integers(-128, 128, (8, 256, 3, 3), dtype=I8)
        bias = self.rng.integers(-20000, 20000, (8,), dtype=I32)
        inits = {"xs": np.float32(0.02), "xz": U8(120), "w": w, "ws": np.float32(0.003),
                 "wz": I8(0), "ys": np.float32(0.9), "yz": U8(110), "b": bias}
        node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
                                ["y"], pads=[1, 1, 1, 1])
        self.check(ContribCase([node], {"x": x}, inits, ["y"], out_dtype=U8, exact=True))

    def test_qlinear_matmul(self):
        a = self.rng.integers(0, 256, (3, 300), dtype=U8)
        b = self.rng.integers(0, 256, (300, 6), dtype=U8)
        inits = {"as": np.float32(0.01), "az": U8(131), "b": b, "bs": np.float32(0.02),
                 "bz": U8(127), "ys": np.float32(3.0), "yz": U8(128)}
        node = helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"],
                                ["y"])
        self.check(ContribCase([node], {"a": a}, inits, ["y"], out_dtype=U8, exact=True))


class FloatOpsBeforeQuantizationTest(ContribTestBase):
    # One ulp before a DynamicQuantizeLinear can flip its roundings: these float ops must give
    # ORT's bits.
    def test_division_by_a_constant_is_a_true_division(self):
        # sqrt(32), as attention scales its scores: x * (1 / c) is one ulp off in ~40%.
        node = helper.make_node("Div", ["x", "c"], ["y"])
        self.check(ContribCase([node], {"x": self.rand(6, 50, 32)},
                               {"c": np.array(5.656854, np.float32)}, ["y"], exact=True))


class ResizeLinearTest(ContribTestBase):
    # A Resize before a DynamicQuantizeLinear must match ORT's bits: the tensor's max sets the
    # next scale.
    def resize_case(self, shape, sizes=None, scales=None, mode="half_pixel"):
        names = ["x", "", "scales" if scales is not None else "", "sizes" if sizes is not None else ""]
        inits = {}
        if scales is not None:
            inits["scales"] = np.array(scales, np.float32)
        if sizes is not None:
            inits["sizes"] = np.array(sizes, np.int64)
        node = helper.make_node("Resize", [n for n in names], ["y"], mode="linear",
                                coordinate_transformation_mode=mode)
        return ContribCase([node], {"x": self.rand(*shape)}, inits, ["y"], exact=True)

    def test_upsample_by_sizes_bit_exact(self):
        self.check(self.resize_case((1, 3, 7, 9), sizes=[1, 3, 16, 21]))

    def test_scale_two_bit_exact(self):
        self.check(self.resize_case((2, 4, 5, 6), scales=[1, 1, 2, 2]))

    def test_downsample_bit_exact(self):
        self.check(self.resize_case((1, 2, 11, 13), sizes=[1, 2, 6, 5]))


if __name__ == "__main__":
    unittest.main()
