"""docs/python.md carries the exporter's coverage table exactly as the mapping table prints it."""

import os
import unittest

from wnn.torch import MAPPING
from wnn.torch.coverage import BEGIN, END, coverage_markdown

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")


class CoverageDocTest(unittest.TestCase):
    def test_doc_table_is_current(self):
        text = open(DOC, encoding="utf-8").read()
        self.assertIn(BEGIN, text)
        section = text[text.index(BEGIN): text.index(END) + len(END)] + "\n"
        self.assertEqual(section, coverage_markdown(),
                         "docs/python.md is stale: regenerate with python -m wnn.torch.coverage")

    def test_every_table_entry_is_listed(self):
        table = coverage_markdown()
        self.assertGreater(len(MAPPING), 100)
        for op in MAPPING:
            self.assertIn(str(op.name()).replace("aten::", "aten."), table)


if __name__ == "__main__":
    unittest.main()
