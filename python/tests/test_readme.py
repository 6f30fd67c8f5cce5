"""The Python example of README.md runs and prints what its comments say."""

import contextlib
import importlib.util
import io
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

import ptx_opt

ROOT = pathlib.Path(__file__).resolve().parents[2]


def readme_example() -> str:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Python") :]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    return blocks[0]


def readme_install_commands() -> list[str]:
    """The shell block that opens the Python section, comments dropped."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Python") :]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL).group(1)
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


def example_kernel() -> str:
    spec = importlib.util.spec_from_file_location("example", ROOT / "examples" / "python" / "optimize_and_ptxas.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.EXAMPLE


def test_readme_example(tmp_path, monkeypatch):
    code = readme_example()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kernel.ptx").write_text(example_kernel())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("True {'combine-cvt-pack': {'combined': 1, 'insts-removed': 12}, 'fold-dot-shuffles': {}")
    assert lines[1].startswith("kernel.ptx:31:2: remark: [combine-cvt-pack] pack_u8x4: 4 saturations packed")
    assert "cvt.pack.sat" in (tmp_path / "kernel.opt.ptx").read_text()


def test_readme_example_on_invalid_ptx(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kernel.ptx").write_text(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1, , %r2;\n}\n"
    )
    with pytest.raises(SystemExit) as info:
        exec(compile(readme_example(), "README.md", "exec"), {})
    assert str(info.value).splitlines()[0] == "kernel.ptx:7:15: error: expected an operand, found ','"


def test_readme_install_check_runs_in_the_test_venv(tmp_path):
    """The README's `python -c "import ptx_opt; print(ptx_opt.passes())"`, run
    by this venv's interpreter (which scripts/test-python.sh made, and where it
    installed the wheel) outside the checkout, so the installed package is
    what is imported."""
    assert sys.prefix != sys.base_prefix, "run by scripts/test-python.sh, in its venv"
    commands = readme_install_commands()
    assert commands[0] == "pip install ./python"
    [check] = [c for c in commands if c.startswith("python -c ")]
    argv = shlex.split(check)
    run = subprocess.run([sys.executable, *argv[1:]], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert run.stdout.startswith("[PassInfo(name='combine-cvt-pack', description=")
    assert all(f"name='{p.name}'" in run.stdout for p in ptx_opt.passes())
