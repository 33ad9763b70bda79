# SPDX-License-Identifier: MIT
"""docs/python.md's examples run as written, in page order, from the
repository's root (a statement with `...` stands for the reader's own
arguments and is left out); an expression followed by `# literal` must give
that literal."""
import ast
import os
import re

import pytest

from conftest import SOURCE

PAGE = os.path.join(SOURCE, "docs", "python.md")


def test_the_page_runs(monkeypatch):
    pytest.importorskip("osgeo", reason="the page reads a GeoPackage with GDAL's bindings")
    monkeypatch.chdir(SOURCE)
    ns = {}
    checked = 0
    for block in re.findall(r"```python\n(.*?)```", open(PAGE).read(), flags=re.S):
        lines = block.splitlines()
        for st in ast.parse(block).body:
            if any(isinstance(n, ast.Constant) and n.value is Ellipsis for n in ast.walk(st)):
                continue
            if not isinstance(st, ast.Expr):
                exec(compile(ast.Module([st], []), PAGE, "exec"), ns)
                continue
            got = eval(compile(ast.Expression(st.value), PAGE, "eval"), ns)
            comment = lines[st.end_lineno - 1].partition("  # ")[2].split(":")[0].strip()
            try:
                want = ast.literal_eval(comment)
            except (ValueError, SyntaxError):
                continue
            assert got == want, "%s gives %r, the page says %r" % (
                ast.get_source_segment(block, st), got, want)
            checked += 1
    assert checked >= 4
