"""bench/ort_compare.py's own logic, without running either runtime: which profile kernels are
oneDNN reference implementations, which models a selection names, and the acceptance lines."""
import argparse
import contextlib
import io
import os
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import ort_compare  # noqa: E402


def row(model, kind, ratio, ref_kernels=0, composite=0):
    return {"model": model, "set": kind, "ratio": ratio, "ref_kernels": ref_kernels,
            "ref_composite": composite}


def acceptance(rows, dev_names):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ort_compare.print_acceptance(rows, dev_names)
    return out.getvalue().splitlines()[1:]


class ReferenceKernelNames(unittest.TestCase):
    def test_same_rule_as_the_onednn_region_builder(self):
        # The cases of OnednnReferenceKernels.ReferenceImplementationNames.
        for name in ("ref:any", "gemm:ref", "ref_fused:any", "ref:any (one reorder per input)"):
            self.assertTrue(ort_compare.reference_impl(name), name)
        for name in ("jit:avx512_core", "brgconv:avx512_core", "jit_uni_binary:avx2", "",
                     "jit_fp32_wino_2x3:avx512_core", "brgemm:avx512_core_amx"):
            self.assertFalse(ort_compare.reference_impl(name), name)


class Acceptance(unittest.TestCase):
    ZOO = list(ort_compare.SUITE)
    DEV = ["dev-a", "dev-b"]

    def full(self, dev_ratios, zoo_ratio=0.5, ref_kernels=0, composite=0):
        rows = [row(n, "zoo", zoo_ratio) for n in self.ZOO]
        rows += [row(n, "dev", r) for n, r in zip(self.DEV, dev_ratios)]
        rows[0].update(ref_kernels=ref_kernels, ref_composite=composite)
        return rows

    def test_all_criteria_pass(self):
        lines = acceptance(self.full([0.9, 1.0]), self.DEV)
        self.assertEqual([l.split()[0] for l in lines], ["PASS", "PASS", "PASS"])
        self.assertIn("largest dev-b 1.00", lines[0])
        self.assertNotIn("partial", "".join(lines))

    def test_a_dev_model_above_ort_fails_the_first(self):
        lines = acceptance(self.full([1.01, 0.7]), self.DEV)
        self.assertTrue(lines[0].startswith("  FAIL"), lines[0])
        self.assertIn("above: dev-a", lines[0])

    def test_the_geometric_mean_is_over_zoo_and_dev_set_together(self):
        # 14 zoo models at 0.8 and two dev models at 0.9: over all 16 it is above 0.8.
        lines = acceptance(self.full([0.9, 0.9], zoo_ratio=0.8), self.DEV)
        self.assertTrue(lines[1].startswith("  FAIL"), lines[1])
        self.assertIn("over 16 models", lines[1])
        want = (0.8 ** 14 * 0.9 ** 2) ** (1 / 16)
        self.assertIn(f"{want:.3f}", lines[1])

    def test_any_ref_kernel_fails_and_the_kept_composites_are_named(self):
        lines = acceptance(self.full([0.5, 0.5], ref_kernels=3, composite=2), self.DEV)
        self.assertTrue(lines[2].startswith("  FAIL"), lines[2])
        self.assertIn("3 over 16 profiles; 2 of them concat/sum", lines[2])

    def test_a_subset_says_partial(self):
        rows = [row("resnet18", "zoo", 0.5), row("dev-a", "dev", 0.5)]
        lines = acceptance(rows, self.DEV)
        for line in lines:
            self.assertIn(f"(partial: 1 of {len(self.ZOO)} zoo and 1 of 2 dev-set models)", line)

    def test_no_dev_model_is_no_pass(self):
        lines = acceptance([row("resnet18", "zoo", 0.5)], self.DEV)
        self.assertTrue(lines[0].startswith("  FAIL"), lines[0])
        self.assertIn("no dev-set model measured", lines[0])


class Selection(unittest.TestCase):
    SPECS = {n: None for n in ort_compare.SUITE + ["transformer_encoder"]}

    def select(self, only=None, zoo_only=False, dev_set_only=False):
        args = argparse.Namespace(only=only, zoo_only=zoo_only, dev_set_only=dev_set_only)
        return ort_compare.select_models(args, self.SPECS)

    def setUp(self):
        # A dev set of its own, so the test does not depend on ../shared/models.
        self.tmp = pathlib.Path(self.id().replace(".", "_"))
        self.tmp = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / self.tmp
        self.tmp.mkdir(parents=True, exist_ok=True)
        (self.tmp / "dev-models.json").write_text(
            '{"models": [{"name": "dev-b"}, {"name": "dev-a"}]}')
        self.saved = os.environ.get("WNN_SHARED_MODELS")
        os.environ["WNN_SHARED_MODELS"] = str(self.tmp)

    def tearDown(self):
        if self.saved is None:
            del os.environ["WNN_SHARED_MODELS"]
        else:
            os.environ["WNN_SHARED_MODELS"] = self.saved
        (self.tmp / "dev-models.json").unlink()
        self.tmp.rmdir()

    def test_default_is_the_zoo_suite_and_the_whole_dev_set(self):
        zoo, dev, names, error = self.select()
        self.assertEqual(zoo, ort_compare.SUITE)
        self.assertEqual([m["name"] for m in dev], ["dev-b", "dev-a"])  # manifest order
        self.assertEqual(names, ["dev-a", "dev-b"])
        self.assertIsNone(error)

    def test_only_mixes_both_sets_and_adds_zoo_models_outside_the_suite(self):
        zoo, dev, _, _ = self.select(only="dev-a,transformer_encoder,lstm")
        self.assertEqual(zoo, ["lstm", "transformer_encoder"])
        self.assertEqual([m["name"] for m in dev], ["dev-a"])

    def test_zoo_only_and_dev_set_only(self):
        zoo, dev, names, _ = self.select(zoo_only=True)
        self.assertEqual((zoo, dev, names), (ort_compare.SUITE, [], ["dev-a", "dev-b"]))
        zoo, dev, _, _ = self.select(dev_set_only=True, only="lstm,dev-b")
        self.assertEqual((zoo, [m["name"] for m in dev]), ([], ["dev-b"]))

    def test_an_unknown_name_is_refused(self):
        with self.assertRaisesRegex(SystemExit, "unknown model\\(s\\) nope"):
            self.select(only="lstm,nope")

    def test_a_missing_dev_set_is_an_error_unless_only_the_zoo_is_asked_for(self):
        os.environ["WNN_SHARED_MODELS"] = str(self.tmp / "absent")
        self.assertIn("the dev set was not found", self.select()[3])
        self.assertIsNone(self.select(zoo_only=True)[3])
        self.assertIsNone(self.select(only="lstm")[3])


class Steal(unittest.TestCase):
    def test_share_of_the_interval(self):
        self.assertAlmostEqual(ort_compare.steal_percent((10, 1000), (40, 1200)), 15.0)
        self.assertEqual(ort_compare.steal_percent((5, 100), (5, 300)), 0.0)

    def test_unknown_or_empty_interval(self):
        self.assertIsNone(ort_compare.steal_percent(None, (1, 2)))
        self.assertIsNone(ort_compare.steal_percent((1, 2), (1, 2)))

    def test_reads_this_machine(self):
        t = ort_compare.cpu_times()
        if t is not None:
            self.assertGreaterEqual(t[1], t[0])
            self.assertGreater(t[1], 0)


if __name__ == "__main__":
    unittest.main()
