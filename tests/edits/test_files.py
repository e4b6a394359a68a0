"""Document: encodings, newline styles, final newline, mode bits, atomic and safe writes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from steer_tui.files import BinaryFileError, Document, DocumentError, EncodingError, FileChangedError


def roundtrip(tmp_path, raw: bytes, old: str, new: str) -> bytes:
    p = tmp_path / "f.txt"
    p.write_bytes(raw)
    doc = Document.read(p)
    doc.write(doc.text.replace(old, new))
    return p.read_bytes()


def test_lf_text_normalised(tmp_path):
    p = tmp_path / "a.py"
    p.write_bytes(b"a\nb\n")
    d = Document.read(p)
    assert (d.text, d.newline, d.final_newline, d.bom) == ("a\nb\n", "\n", True, False)


def test_crlf_preserved(tmp_path):
    assert roundtrip(tmp_path, b"one\r\ntwo\r\nthree\r\n", "two", "2\nTWO") == b"one\r\n2\r\nTWO\r\nthree\r\n"


def test_cr_only_preserved(tmp_path):
    assert roundtrip(tmp_path, b"one\rtwo\r", "two", "2") == b"one\r2\r"


def test_mixed_newlines_keep_each_lines_own_ending(tmp_path):
    raw = b"a\r\nb\nc\r\nd\n"
    assert roundtrip(tmp_path, raw, "c", "C") == b"a\r\nb\nC\r\nd\n"
    assert roundtrip(tmp_path, raw, "b\n", "b\nnew\n") == b"a\r\nb\nnew\nc\r\nd\n"


def test_lone_cr_inside_lf_file_untouched(tmp_path):
    raw = b"x = 'a\rb'\ny = 1\nz = 2\n"
    assert roundtrip(tmp_path, raw, "z = 2", "z = 3") == b"x = 'a\rb'\ny = 1\nz = 3\n"


def test_no_final_newline_preserved(tmp_path):
    assert roundtrip(tmp_path, b"a\nb", "a", "A") == b"A\nb"


def test_bom_preserved(tmp_path):
    out = roundtrip(tmp_path, b"\xef\xbb\xbfa\r\nb\r\n", "b", "\u00e9")
    assert out == b"\xef\xbb\xbfa\r\n\xc3\xa9\r\n"
    d = Document.read(tmp_path / "f.txt")
    assert d.bom and d.encoding == "utf-8-sig" and not d.text.startswith("\ufeff")


def test_mode_bits_preserved(tmp_path):
    p = tmp_path / "run.sh"
    p.write_bytes(b"echo hi\n")
    os.chmod(p, 0o751)
    d = Document.read(p)
    d.write("echo bye\n")
    assert os.stat(p).st_mode & 0o7777 == 0o751 and p.read_bytes() == b"echo bye\n"
    assert [x.name for x in tmp_path.iterdir()] == ["run.sh"]  # no temp file left


def test_symlink_target_is_written_link_kept(tmp_path):
    real = tmp_path / "real.txt"
    real.write_bytes(b"a\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    d = Document.read(link)
    d.write("b\n")
    assert link.is_symlink() and real.read_bytes() == b"b\n"


def test_binary_refused(tmp_path):
    p = tmp_path / "x.bin"
    p.write_bytes(b"abc\x00def")
    with pytest.raises(BinaryFileError):
        Document.read(p)


@pytest.mark.parametrize("raw", [b"caf\xe9\n", b"\xff\xfea\x00"])
def test_non_utf8_refused_clearly(tmp_path, raw):
    p = tmp_path / "x.txt"
    p.write_bytes(raw)
    with pytest.raises(EncodingError) as e:
        Document.read(p)
    assert "UTF-8" in str(e.value)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(DocumentError):
        Document.read(tmp_path / "nope")
    with pytest.raises(DocumentError):
        Document.read(tmp_path)


def test_changed_on_disk_is_not_overwritten(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"one\n")
    d = Document.read(p)
    p.write_bytes(b"someone else\n")
    assert d.changed_on_disk()
    with pytest.raises(FileChangedError):
        d.write("two\n")
    assert p.read_bytes() == b"someone else\n"


def test_second_write_after_first_works(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"one\r\n")
    d = Document.read(p)
    d.write("two\n")
    d.write("three\n")
    assert p.read_bytes() == b"three\r\n"


def test_killed_mid_write_leaves_old_file_whole(tmp_path):
    """A real process writing a big file is SIGKILLed mid-write: the old file stays intact."""
    p = tmp_path / "big.txt"
    old = b"old line\n" * 1000
    p.write_bytes(old)
    marker = tmp_path / "writing"
    script = textwrap.dedent(
        f"""
        import os, sys
        import steer_tui.files as files
        real_write = os.write
        def slow_write(fd, data):
            # Write in small pieces and announce that writing has begun, so the parent
            # can kill us while the temp file is half full.
            n = real_write(fd, bytes(data[:65536]))
            if not os.path.exists({str(marker)!r}):
                open({str(marker)!r}, "w").close()
            import time; time.sleep(0.01)
            return n
        files.os.write = slow_write
        d = files.Document.read({str(p)!r})
        d.write("new line\\n" * 3_000_000)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=os.getcwd())
    try:
        for _ in range(3000):
            if marker.exists() or proc.poll() is not None:
                break
            import time

            time.sleep(0.005)
        assert marker.exists(), "the writer never started writing"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    assert p.read_bytes() == old
    leftovers = [x.name for x in tmp_path.iterdir() if x.name not in ("big.txt", "writing")]
    # The killed writer may leave its temp file (a dot-file), never a damaged target.
    assert all(name.startswith(".big.txt.steer-") for name in leftovers)


def test_deleted_file_is_not_recreated(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"one\n")
    d = Document.read(p)
    p.unlink()
    with pytest.raises(FileChangedError):
        d.write("two\n")
    assert not p.exists()


# ---------------------------------------------------------------- property: bytes outside edits

from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_line_text = st.text(alphabet=st.characters(blacklist_characters="\r\n\x00", blacklist_categories=("Cs",)), max_size=12)


@settings(max_examples=int(os.environ.get("STEER_HYPOTHESIS_EXAMPLES", "60")), deadline=None)
@given(
    st.lists(st.tuples(_line_text, st.sampled_from(["\n", "\r\n", "\r"])), min_size=1, max_size=12),
    st.booleans(), st.booleans(), st.data(),
)
def test_only_the_edited_line_changes(tmp_path_factory, lines, bom, final, data):
    # a "\r" ending followed by an empty line's "\n" would read as one "\r\n"
    assume(not any(nl == "\r" and i + 1 < len(lines) and lines[i + 1][0] == "" for i, (_t, nl) in enumerate(lines)))
    raw_text = "".join(t + nl for t, nl in lines)
    # text that starts with U+FEFF is, in UTF-8, the very bytes of a BOM: read back as one
    assume(not raw_text.startswith("\ufeff"))
    if not final:
        raw_text = raw_text[: -len(lines[-1][1])]
    raw = (b"\xef\xbb\xbf" if bom else b"") + raw_text.encode("utf-8")
    p = tmp_path_factory.mktemp("doc") / "f.txt"
    p.write_bytes(raw)
    d = Document.read(p)
    assert d.encode(d.text) == raw  # a no-op write is byte-identical
    text_lines = d.text.split("\n")
    k = data.draw(st.integers(0, len(lines) - 1))
    text_lines[k] = "EDITED"
    d.write("\n".join(text_lines))
    out = p.read_bytes()
    body = out[3:] if bom else out
    assert out.startswith(b"\xef\xbb\xbf") == bom
    # every other line keeps its text and its own line ending
    expect = "".join(("EDITED" if i == k else t) + nl for i, (t, nl) in enumerate(lines))
    if not final:
        expect = expect[: -len(lines[-1][1])]
    assert body == expect.encode("utf-8")
