"""posenc-core as a library: the wheel, a bare environment with numpy alone, the type checker, the API reference.

The wheel is built from a copy of the package (the working tree gets no build folder), installed into a fresh
virtual environment that sees numpy and nothing else of this one, and the README's notebook examples run there
against it: the numpy block as it is, the torch block first without torch (it must name the extra), then with
this environment's torch added behind the bare one's packages.
"""

from __future__ import annotations

import inspect
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import numpy as np
import pytest

import posenc_core as pc
from posenc_core.inference import first_token_shares, shipped_streaming

ROOT = Path(__file__).resolve().parents[1]


def _notebook_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## The core from a notebook", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "posenc_core", source / "posenc_core", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    # no build isolation: the setuptools of requirements-dev.txt builds it, with no download
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                    str(source)], check=True, cwd=source)
    return next(out.glob("posenc_core-*.whl"))


def _site_packages(python: Path) -> Path:
    found = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           check=True, capture_output=True, text=True).stdout.strip()
    return Path(found)


@pytest.fixture(scope="module")
def bare(wheel, tmp_path_factory) -> Path:
    """The python of a new virtual environment holding the wheel, and numpy through a path file: nothing else."""
    env = tmp_path_factory.mktemp("env")
    venv.create(env, with_pip=False)
    python = env / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = _site_packages(python)
    numpy_only = tmp_path_factory.mktemp("numpy_only")
    packages = Path(np.__file__).resolve().parents[1]
    for item in packages.iterdir():
        if item.name == "numpy" or item.name.startswith(("numpy.libs", "numpy-")):
            (numpy_only / item.name).symlink_to(item)
    (site / "numpy_only.pth").write_text(f"{numpy_only}\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", str(site),
                    str(wheel)], check=True)
    return python


def _run(python: Path, code: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=cwd, env=env)


def test_the_wheel_declares_numpy_as_its_one_requirement(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    required = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert required == ["Requires-Dist: numpy<3,>=2.0"]
    assert {"torch", "transformers", "diffusers", "all"} <= set(re.findall(r"^Provides-Extra: (\S+)", metadata, re.M))
    assert "posenc_core/py.typed" in names
    assert "posenc_core/inference/data/smollm2_streaming.npz" in names  # the shipped streaming run
    assert "posenc_core/todays_models/data/drope_seed0.json" in names  # the shipped DroPE run
    for shipped in ("real_models/data/smollm2_attention_stats.npz", "real_models/data/smollm2_long_context.json",
                    "real_models/data/devils_dictionary.txt", "real_models/data/devils_dictionary.smollm2_tokens.npy",
                    "real_models/data/devils_dictionary.md", "lab/data/lab_full_seed0.json",
                    "lab/data/lab_full_seed0_attention.npz"):  # what the real models' and the lab's functions read
        assert f"posenc_core/{shipped}" in names, shipped
    assert {"accelerate", "sentence-transformers"} <= set(re.findall(r"^Provides-Extra: (\S+)", metadata, re.M))
    assert all(n.startswith(("posenc_core/", "posenc_core-")) for n in names)  # the app stays out


def test_the_wheel_runs_the_readme_examples_with_numpy_alone(bare, tmp_path):
    numpy_block, torch_block, transformers_block = _notebook_blocks()
    where = _run(bare, "import importlib.util, posenc_core as pc\n"
                       "assert importlib.util.find_spec('torch') is None\nprint(pc.__file__, pc.__version__)", tmp_path)
    assert where.returncode == 0, where.stderr
    assert where.stdout.startswith(str(_site_packages(bare))) and pc.__version__ in where.stdout
    ran = _run(bare, numpy_block, tmp_path)
    assert ran.returncode == 0, ran.stderr
    refused = _run(bare, torch_block, tmp_path)
    assert "MissingExtraError" in refused.stderr and 'pip install "posenc-core[torch]"' in refused.stderr
    refused = _run(bare, transformers_block, tmp_path)
    assert "MissingExtraError" in refused.stderr and "posenc-core[transformers]" in refused.stderr
    lazy = _run(bare, "import posenc_core as pc\nassert 'diffusion' not in dir(pc) and not hasattr(pc, 'diffusion')\n"
                      "import posenc_core.diffusion", tmp_path)
    assert "MissingExtraError" in lazy.stderr and "posenc-core[torch]" in lazy.stderr


SECTIONS = ("why_position", "absolute", "rope", "attention_bias", "long_context", "todays_models", "encoders", "images",
            "multimodal", "inference", "lab", "real_models", "configs", "measures")


def test_the_wheel_imports_every_section_with_numpy_alone_and_help_works(bare, tmp_path):
    """Every section imports in numpy alone (the ones that need torch raise MissingExtraError naming the extra), and
    help(), hasattr and inspect see the top level as it is."""
    code = ("import inspect, importlib, pydoc, posenc_core as pc\n"
            f"for s in {SECTIONS!r}:\n    importlib.import_module('posenc_core.' + s)\n"
            "assert not hasattr(pc, 'no_such_name')\n"
            "names = [n for n, _ in inspect.getmembers(pc)]\n"
            "text = pydoc.render_doc(pc, renderer=pydoc.plaintext)\n"
            "print(len(pc.__all__), 'base_inv_freq' in text, len(names) > 0)")
    ran = _run(bare, code, tmp_path)
    assert ran.returncode == 0, ran.stderr
    count, documented, listed = ran.stdout.split()
    assert int(count) <= 60 and documented == "True" and listed == "True"


def test_the_top_level_is_curated_and_no_module_star_imports():
    assert len(pc.__all__) <= 60
    assert set(pc.__all__) <= set(dir(pc))
    assert all(getattr(pc, name, None) is not None for name in pc.__all__ if name != "diffusion")
    starred = [str(path.relative_to(ROOT)) for path in (ROOT / "posenc_core").rglob("*.py")
               if re.search(r"^from \S+ import \*", path.read_text(encoding="utf-8"), re.M)]
    assert starred == []
    for section in SECTIONS:  # every name a section lists is there, and is defined where its module says
        module = getattr(pc, section)
        assert all(hasattr(module, name) for name in module.__all__), section


def test_the_wheel_reads_its_shipped_streaming_run_with_numpy_alone(bare, tmp_path):
    ran = _run(bare, "import posenc_core as pc\nr = pc.inference.shipped_streaming()\n"
                     "print(pc.__file__, r.tokens, repr(pc.inference.first_token_shares(r).mean[0]))", tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith(str(_site_packages(bare)))
    result = shipped_streaming()
    assert ran.stdout.split()[1:] == [str(result.tokens), repr(first_token_shares(result).mean[0])]


def test_the_wheel_reads_the_real_models_and_lab_data_with_numpy_alone(bare, tmp_path):
    code = ("import posenc_core as pc\nr, lab = pc.real_models, pc.lab\n"
            "s = r.shipped_attention_summary()\nlong = r.long_context_summary(r.shipped_long_context())\n"
            "res = lab.shipped_lab_results()\n"
            "print(pc.__file__, s.tokens, repr(float(s.q_share[0, 0, 0])), repr(long.past['none']), "
            "res.train_len, res.attention['rope'].at_T.shape[0], r.text_tokens(0, 3), len(r.shipped_text()))\n"
            "try:\n    r.load_smollm2()\nexcept pc.MissingExtraError as error:\n    print('refused', error.name)\n")
    ran = _run(bare, code, tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith(str(_site_packages(bare)))
    summary = pc.real_models.shipped_attention_summary()
    past = pc.real_models.long_context_summary(pc.real_models.shipped_long_context()).past["none"]
    expected = [str(summary.tokens), repr(float(summary.q_share[0, 0, 0])), repr(past), "64", "64"]
    assert ran.stdout.split()[1:6] == expected
    text = pc.real_models
    assert ran.stdout.split("\n")[0].endswith(f"{text.text_tokens(0, 3)} {len(text.shipped_text())}")
    assert ran.stdout.split("\n")[1] == "refused torch"  # the extra that brings what it needs first


def test_the_wheel_runs_the_torch_examples_with_the_torch_extra(bare, tmp_path):
    torch = pytest.importorskip("torch")
    extras = tmp_path / "with_torch"
    extras.mkdir()
    # this environment's packages come after the bare one's: posenc_core and numpy stay the wheel's and the link's
    path_file = _site_packages(bare) / "with_torch.pth"
    path_file.write_text(f"{Path(torch.__file__).resolve().parents[1]}\n")
    try:
        ran = _run(bare, "import posenc_core as pc\nprint(pc.__file__)\n" + _notebook_blocks()[1], extras)
    finally:
        path_file.unlink()
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith(str(_site_packages(bare)))


def test_mypy_is_clean_on_the_package():
    pytest.importorskip("mypy")
    ran = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)  # pyproject.toml
    assert ran.returncode == 0, ran.stdout[-4000:]


def _sections() -> dict[str, object]:
    return {name: getattr(pc, name) for name in (*SECTIONS, "diffusion")}


def test_the_api_reference_builds_and_lists_every_public_name(tmp_path):
    pytest.importorskip("pdoc")
    ran = subprocess.run([sys.executable, "-m", "pdoc", "-o", str(tmp_path), "posenc_core", "posenc_core.diffusion"],
                         cwd=ROOT, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr[-4000:]
    page = (tmp_path / "posenc_core.html").read_text(encoding="utf-8")
    missing = [name for name in pc.__all__ if f'id="{name}"' not in page and name not in _sections()]
    for section, module in _sections().items():
        section_page = (tmp_path / "posenc_core" / f"{section}.html").read_text(encoding="utf-8")
        missing += [f"{section}.{name}" for name in module.__all__ if f'id="{name}"' not in section_page]
    assert not missing, missing


def _unannotated() -> dict[str, list[str]]:
    found = {}
    for name, obj in [(f"{s}.{n}", getattr(m, n)) for s, m in _sections().items() for n in m.__all__]:
        if not inspect.isfunction(obj):
            continue
        signature = inspect.signature(obj)
        missing = [p for p, v in signature.parameters.items() if v.annotation is inspect.Parameter.empty]
        if signature.return_annotation is inspect.Signature.empty:
            missing.append("return")
        if missing:
            found[name] = missing
    return found


def test_every_public_function_is_annotated():
    assert _unannotated() == {}


def test_no_two_modules_export_the_same_name():
    """``pc.<name>`` is one thing: a name two modules define would leave one lesson calling the other's (a module
    that re-exports another's name exports the same object, which is fine)."""
    import importlib
    import pkgutil
    from collections import defaultdict

    owners = defaultdict(list)
    for info in pkgutil.walk_packages(pc.__path__, "posenc_core."):
        if info.ispkg or info.name.rsplit(".", 1)[-1].startswith("_") or info.name.endswith("__main__"):
            continue
        if info.name.startswith("posenc_core.diffusion"):  # torch-backed, listed from source (pc._LAZY_MODULE)
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            owners[name].append((info.name, id(getattr(module, name))))
    assert {name: [m for m, _ in found] for name, found in owners.items() if len({i for _, i in found}) > 1} == {}
