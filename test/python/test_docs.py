"""Every `python` block of docs/python.md runs, in order, in one namespace,
in a temporary folder (with `models` pointed at the real models); and the
README's Python quickstart line prints a relative L2 error within 1e-4."""
import os
import re
import subprocess

import pytest

from conftest import MODELS, ROOT

DOC = os.path.join(ROOT, "docs", "python.md")


def blocks():
    text = open(DOC).read()
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_docs_have_examples():
    assert len(blocks()) >= 10


def test_every_example_runs(tmp_path, monkeypatch, models):
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for k, code in enumerate(blocks()):
        code = code.replace('models = "../shared/models"',
                            "models = %r" % models)
        try:
            exec(compile(code, "%s block %d" % (DOC, k), "exec"), namespace)
        except Exception as e:
            pytest.fail("docs/python.md block %d fails: %r\n%s" % (k, e, code))


def test_readme_quickstart_line(models):
    readme = open(os.path.join(ROOT, "README.md")).read()
    lines = [l for l in readme.splitlines()
             if l.startswith("PYTHONPATH=build/python /usr/bin/python3 -c")]
    assert len(lines) == 1, "the README has one Python quickstart line"
    line = lines[0]
    build = os.environ["PYTHONPATH"].split(os.pathsep)[0]
    env = dict(os.environ, PYTHONPATH=build)
    # The line runs from the checkout, with ../shared beside it.
    cmd = line.split(" ", 1)[1].replace("../shared/models", models)
    out = subprocess.run(cmd, shell=True, cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    match = re.search(r"relative L2 error ([0-9.e+-]+)", out.stdout)
    assert match, out.stdout
    assert float(match.group(1)) <= 1e-4
