"""The README's Python example runs as written, without a warning."""

import os
import re
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def test_readme_python_example_runs(tmp_path, monkeypatch):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), flags=re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(tmp_path)
    scope = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(compile(blocks[0], "README.md", "exec"), scope)
    assert scope["loss"].item() < 2.5  # 10 classes: chance is 2.30
    assert (tmp_path / "model.safetensors").exists()
