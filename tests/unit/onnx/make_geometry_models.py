#!/usr/bin/python3
"""Writes small ONNX models for the geometric and signal decompositions (3-D conv/pool, Resize,
GridSample, MaxPool indices, MaxUnpool, DFT, STFT, windows) with non-default attributes, in the
backend-test layout. Expected outputs come from PyTorch's own kernels (torch.nn.functional,
torch.fft, torch.stft), independently of wnn. Re-runnable: python3 make_geometry_models.py OUT
"""
import sys

import numpy as np

import backend_case
import torch
import torch.nn.functional as F
from onnx import helper

torch.manual_seed(3)
rng = np.random.default_rng(11)


def rand(*shape):
    return rng.uniform(-2, 2, shape).astype(np.float32)


def write_case(out, name, nodes, inputs, outputs, inits=(), opset=17):
    backend_case.write_case(out, name, nodes, inputs, outputs, inits, opset)


def np_(t):
    return t.detach().numpy().astype(np.float32)


def conv_cases(out):
    # Conv 3-D: groups, per-axis strides and dilations, asymmetric pads, bias.
    x, w, b = rand(1, 4, 5, 6, 7), rand(6, 2, 3, 2, 3), rand(6)
    pads = [1, 0, 2, 2, 1, 0]  # [d0, h0, w0, d1, h1, w1]
    xp = F.pad(torch.from_numpy(x), (pads[2], pads[5], pads[1], pads[4], pads[0], pads[3]))
    y = F.conv3d(xp, torch.from_numpy(w), torch.from_numpy(b), stride=(2, 1, 2),
                 dilation=(2, 1, 1), groups=2)
    write_case(out, "conv3d_groups_strides_pads",
               [helper.make_node("Conv", ["x", "w", "b"], ["y"], group=2, strides=[2, 1, 2],
                                 dilations=[2, 1, 1], pads=pads)],
               [("x", x)], [("y", np_(y))], [("w", w), ("b", b)])
    # ConvTranspose 3-D: groups, strides, dilations, pads, output_padding, bias.
    x, w, b = rand(1, 4, 3, 4, 3), rand(4, 3, 3, 2, 3), rand(6)
    y = F.conv_transpose3d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b),
                           stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 1),
                           groups=2, dilation=(1, 2, 1))
    write_case(out, "convtranspose3d_groups_output_padding",
               [helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], group=2,
                                 strides=[2, 1, 2], pads=[1, 0, 1, 1, 0, 1],
                                 output_padding=[1, 0, 1], dilations=[1, 2, 1])],
               [("x", x)], [("y", np_(y))], [("w", w), ("b", b)])


def pool_cases(out):
    x = rand(1, 2, 7, 6, 5)
    y = F.max_pool3d(torch.from_numpy(x), (3, 2, 2), stride=2, padding=(1, 0, 1),
                     dilation=(2, 1, 1), ceil_mode=True)
    write_case(out, "maxpool3d_ceil_dilation",
               [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 2, 2],
                                 strides=[2, 2, 2], pads=[1, 0, 1, 1, 0, 1],
                                 dilations=[2, 1, 1], ceil_mode=1)],
               [("x", x)], [("y", np_(y))])
    y = F.avg_pool3d(torch.from_numpy(x), (3, 3, 2), stride=(2, 1, 2), padding=(1, 1, 0),
                     count_include_pad=True)
    write_case(out, "averagepool3d_count_include_pad",
               [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3, 2],
                                 strides=[2, 1, 2], pads=[1, 1, 0, 1, 1, 0],
                                 count_include_pad=1)],
               [("x", x)], [("y", np_(y))])
    y = F.avg_pool3d(torch.from_numpy(x), (2, 3, 2), stride=2, padding=(1, 1, 0),
                     ceil_mode=True, count_include_pad=False)
    write_case(out, "averagepool3d_ceil_exclude_pad",
               [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 3, 2],
                                 strides=[2, 2, 2], pads=[1, 1, 0, 1, 1, 0], ceil_mode=1)],
               [("x", x)], [("y", np_(y))])
    # MaxPool's Indices: torch's are per (n, c) plane; ONNX's count n and c too.
    x = rand(2, 3, 5, 6)
    y, i = F.max_pool2d(torch.from_numpy(x), (3, 2), stride=(2, 1), padding=(1, 1),
                        return_indices=True)
    offsets = (np.arange(6).reshape(2, 3, 1, 1) * 30).astype(np.int64)
    write_case(out, "maxpool_indices_pads_strides",
               [helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[3, 2],
                                 strides=[2, 1], pads=[1, 1, 1, 1])],
               [("x", x)], [("y", np_(y)), ("i", i.numpy().astype(np.int64) + offsets)])
    # MaxUnpool from those indices (default output shape).
    x = rand(2, 3, 6, 4)
    p, i = F.max_pool2d(torch.from_numpy(x), 2, stride=2, return_indices=True)
    y = F.max_unpool2d(p, i, 2, stride=2)
    offsets = (np.arange(6).reshape(2, 3, 1, 1) * 24).astype(np.int64)
    write_case(out, "maxunpool_strides",
               [helper.make_node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2, 2],
                                 strides=[2, 2])],
               [("x", np_(p)), ("i", i.numpy().astype(np.int64) + offsets)], [("y", np_(y))])


def resize_case(out, name, x, y, sizes, **attrs):
    write_case(out, name,
               [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], **attrs)],
               [("x", x)], [("y", np_(y))], [("sizes", np.array(sizes, np.int64))], opset=18)


def resize_cases(out):
    x = rand(1, 2, 4, 5)
    t = torch.from_numpy(x)
    resize_case(out, "resize_cubic_half_pixel", x,
                F.interpolate(t, size=(7, 3), mode="bicubic", align_corners=False),
                [1, 2, 7, 3], mode="cubic")
    resize_case(out, "resize_linear_align_corners", x,
                F.interpolate(t, size=(5, 8), mode="bilinear", align_corners=True),
                [1, 2, 5, 8], mode="linear", coordinate_transformation_mode="align_corners")
    resize_case(out, "resize_nearest_asymmetric_floor", x,
                F.interpolate(t, size=(7, 3), mode="nearest"), [1, 2, 7, 3], mode="nearest",
                coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    resize_case(out, "resize_nearest_half_pixel_ceil", x,
                F.interpolate(t, size=(9, 3), mode="nearest-exact"), [1, 2, 9, 3],
                mode="nearest", nearest_mode="round_prefer_ceil")
    # Inputs long enough that the few taps per output become gathers instead of a matmul.
    x = rand(1, 2, 20, 17)
    resize_case(out, "resize_linear_align_corners_long", x,
                F.interpolate(torch.from_numpy(x), size=(9, 40), mode="bilinear",
                              align_corners=True),
                [1, 2, 9, 40], mode="linear", coordinate_transformation_mode="align_corners")
    resize_case(out, "resize_cubic_long", x,
                F.interpolate(torch.from_numpy(x), size=(31, 5), mode="bicubic",
                              align_corners=False),
                [1, 2, 31, 5], mode="cubic")
    x = rand(1, 2, 8, 9)
    resize_case(out, "resize_linear_antialias", x,
                F.interpolate(torch.from_numpy(x), size=(3, 4), mode="bilinear",
                              align_corners=False, antialias=True),
                [1, 2, 3, 4], mode="linear", antialias=1)


def grid_cases(out):
    x, g = rand(2, 3, 4, 5), rng.uniform(-1.3, 1.3, (2, 3, 6, 2)).astype(np.float32)
    for mode, torch_mode, pad, align in (("bilinear", "bilinear", "reflection", 0),
                                         ("bicubic", "bicubic", "zeros", 1),
                                         ("nearest", "nearest", "border", 0)):
        y = F.grid_sample(torch.from_numpy(x), torch.from_numpy(g), mode=torch_mode,
                          padding_mode=pad, align_corners=bool(align))
        write_case(out, f"gridsample_{mode}_{pad}_align{align}",
                   [helper.make_node("GridSample", ["x", "g"], ["y"], mode=mode,
                                     padding_mode=pad, align_corners=align)],
                   [("x", x), ("g", g)], [("y", np_(y))])


def signal_cases(out):
    x = rand(2, 5, 6, 1)
    y = torch.fft.rfft(torch.from_numpy(x[..., 0]).double(), n=8, dim=2)
    write_case(out, "dft_onesided_padded_axis2",
               [helper.make_node("DFT", ["x", "n"], ["y"], axis=2, onesided=1)],
               [("x", x)], [("y", np_(torch.stack([y.real, y.imag], -1)))],
               [("n", np.array(8, np.int64))])
    x = rand(1, 6, 2)
    xc = torch.complex(torch.from_numpy(x[..., 0]).double(), torch.from_numpy(x[..., 1]).double())
    y = torch.fft.ifft(xc, n=4, dim=1)
    write_case(out, "dft_inverse_truncated",
               [helper.make_node("DFT", ["x", "n"], ["y"], axis=1, inverse=1)],
               [("x", x)], [("y", np_(torch.stack([y.real, y.imag], -1)))],
               [("n", np.array(4, np.int64))])
    x, win = rand(2, 20, 1), torch.hann_window(8, periodic=True)
    s = torch.stft(torch.from_numpy(x[..., 0]).double(), n_fft=8, hop_length=3,
                   window=win.double(), center=False, onesided=True, return_complex=True)
    s = s.transpose(1, 2)  # [batch, frames, bins]
    write_case(out, "stft_window_step3",
               [helper.make_node("STFT", ["x", "step", "win", "len"], ["y"])],
               [("x", x)], [("y", np_(torch.stack([s.real, s.imag], -1)))],
               [("step", np.array(3, np.int64)), ("win", win.numpy()),
                ("len", np.array(8, np.int64))])
    write_case(out, "hannwindow_symmetric",
               [helper.make_node("HannWindow", ["n"], ["y"], periodic=0)], [],
               [("y", np_(torch.hann_window(10, periodic=False)))],
               [("n", np.array(10, np.int64))])
    write_case(out, "blackmanwindow_periodic",
               [helper.make_node("BlackmanWindow", ["n"], ["y"])], [],
               [("y", np_(torch.blackman_window(7, periodic=True)))],
               [("n", np.array(7, np.int64))])


def main(out):
    conv_cases(out)
    pool_cases(out)
    resize_cases(out)
    grid_cases(out)
    signal_cases(out)


if __name__ == "__main__":
    main(sys.argv[1])
