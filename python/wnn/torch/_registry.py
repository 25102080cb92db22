"""The mapping table: one entry per ATen overload, filled by the @maps decorators of the
_ops_* modules. Both tracers (torch.export and make_fx) convert through this one table."""

import torch

MAPPING = {}

# Ops whose value changes on every call: never folded, never converted.
RANDOM_OPS = {
    "rand",
    "rand_like",
    "randn",
    "randn_like",
    "randint",
    "randint_like",
    "randperm",
    "bernoulli",
    "bernoulli_",
    "dropout",
    "native_dropout",
    "normal",
    "uniform",
    "uniform_",
    "multinomial",
    "rrelu_with_noise",
    "feature_dropout",
    "alpha_dropout",
}


def overload(spec):
    """torch.ops.aten.<name>.<overload>, or None when this PyTorch lacks it."""
    name, _, ov = spec.partition(".")
    packet = getattr(torch.ops.aten, name, None)
    if packet is None:
        return None
    return getattr(packet, ov or "default", None)


def maps(*specs):
    def register(fn):
        for spec in specs:
            op = overload(spec)
            if op is not None:
                MAPPING[op] = fn
        return fn

    return register


def is_random(target):
    name = getattr(target, "__name__", str(target)).split(".")[0]
    return name in RANDOM_OPS
