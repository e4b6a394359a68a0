"""Document: a text file read with its encoding, BOM, newline style, final newline and mode,
written back atomically with all of them preserved (and never over a change made on disk)."""

from __future__ import annotations

import os
import re
import stat as stat_mod
from difflib import SequenceMatcher
from pathlib import Path

__all__ = ["Document", "DocumentError", "BinaryFileError", "EncodingError", "FileChangedError"]

_BOM = b"\xef\xbb\xbf"
_NEWLINE = re.compile(r"\r\n|\r|\n")


class DocumentError(Exception):
    """A file steer cannot read or write as asked."""


class BinaryFileError(DocumentError):
    pass


class EncodingError(DocumentError):
    pass


class FileChangedError(DocumentError):
    pass


def _digest(data: bytes) -> str:
    import hashlib  # lazily: keeps `steer apply` start-up short

    return hashlib.sha256(data).hexdigest()


def _decode(path: Path, raw: bytes) -> tuple[str, bool]:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise EncodingError(f"{path}: UTF-16 text is not supported; steer edits UTF-8 files only")
    if b"\0" in raw:
        raise BinaryFileError(f"{path}: looks like a binary file (it contains NUL bytes); not editing it")
    bom = raw.startswith(_BOM)
    body = raw[3:] if bom else raw
    try:
        return body.decode("utf-8"), bom
    except UnicodeDecodeError as e:
        pos = e.start + (3 if bom else 0)
        raise EncodingError(
            f"{path}: not valid UTF-8 (byte 0x{raw[pos]:02x} at offset {pos}); steer edits UTF-8 files only"
        ) from None


class Document:
    """A file's text with "\n" newlines and no BOM, plus what it takes to write it back
    byte-identical outside the edited lines.

    path, text, encoding ("utf-8" | "utf-8-sig" with BOM), bom, newline (the dominant style:
    "\n", "\r\n" or "\r"), mixed_newlines, final_newline, mode (permission bits),
    digest (SHA-256 of the bytes read, computed on first use).
    """

    __slots__ = ("path", "text", "encoding", "bom", "newline", "mixed_newlines", "final_newline", "mode",
                 "_digest", "_raw", "_decoded", "is_new")

    def __init__(self, path: str | os.PathLike[str], text: str = "", mode: int = 0o644):
        self.path = Path(path)
        self.text = text
        self.encoding = "utf-8"
        self.bom = False
        self.newline = "\n"
        self.mixed_newlines = False
        self.final_newline = text.endswith("\n") or not text
        self.mode = mode
        self._digest: str | None = None
        self._raw = text.encode("utf-8")
        self._decoded = text
        self.is_new = False  # not on disk yet: the first write creates the file

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = _digest(self._raw)
        return self._digest

    def __repr__(self) -> str:
        return f"Document({str(self.path)!r}, newline={self.newline!r}, bom={self.bom}, mode={oct(self.mode)})"

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> "Document":
        p = Path(path)
        try:
            st = os.stat(p)
        except FileNotFoundError:
            raise DocumentError(f"{p}: no such file") from None
        except OSError as e:
            raise DocumentError(f"{p}: {e.strerror}") from None
        if stat_mod.S_ISDIR(st.st_mode):
            raise DocumentError(f"{p}: is a directory")
        try:
            raw = p.read_bytes()
        except OSError as e:
            raise DocumentError(f"{p}: {e.strerror}") from None
        doc = cls(path=p, text="", mode=stat_mod.S_IMODE(st.st_mode))
        doc.load(raw)
        return doc

    @classmethod
    def new(cls, path: str | os.PathLike[str]) -> "Document":
        """An empty Document for a file that does not exist yet; its first write creates it.

        The folder must exist (steer creates files, never folders). The mode shown is what the
        umask gives a new file; the file itself gets it from the kernel when it is created.
        """
        p = Path(path)
        if os.path.lexists(p):
            if os.path.islink(p) and not os.path.exists(p):
                raise DocumentError(f"{p}: a symbolic link to a file that does not exist; not creating through it")
            raise DocumentError(f"{p}: already exists")
        parent = p.parent if str(p.parent) else Path(".")
        if not parent.is_dir():
            what = "is not a folder" if parent.exists() else "does not exist"
            raise DocumentError(f"{p}: cannot create it: the folder {parent} {what}")
        doc = cls(path=p, text="", mode=0o666 & ~_umask())
        doc.is_new = True
        return doc

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> "Document":
        """`read` for a file that exists, `new` (an empty buffer) for one that does not."""
        if not os.path.lexists(path):
            return cls.new(path)
        return cls.read(path)

    def load(self, raw: bytes) -> None:
        decoded, bom = _decode(self.path, raw)
        crlf = decoded.count("\r\n")
        cr = decoded.count("\r") - crlf
        lf = decoded.count("\n") - crlf
        counts = {"\n": lf, "\r\n": crlf, "\r": cr}
        self.newline = max(counts, key=lambda k: (counts[k], k == "\n")) if crlf or cr else "\n"
        self.mixed_newlines = sum(1 for v in counts.values() if v) > 1
        self.text = decoded.replace("\r\n", "\n").replace("\r", "\n") if (crlf or cr) else decoded
        self.final_newline = self.text.endswith("\n") or not self.text
        self.bom = bom
        self.encoding = "utf-8-sig" if bom else "utf-8"
        self._raw = raw
        self._decoded = decoded
        self._digest = None

    # ------------------------------------------------------------------ encode

    def encode(self, text: str) -> bytes:
        """The bytes to write for `text` ("\\n" newlines): the file's newline style, BOM and
        encoding; lines left unchanged in a mixed-newline file keep their own endings."""
        if self.mixed_newlines:
            body = self._encode_mixed(text)
        elif self.newline != "\n":
            body = text.replace("\n", self.newline)
        else:
            body = text
        data = body.encode("utf-8")
        return _BOM + data if self.bom else data

    def _encode_mixed(self, text: str) -> str:
        parts = _NEWLINE.split(self._decoded)
        ends = _NEWLINE.findall(self._decoded)
        old = self.text.split("\n")
        new = text.split("\n")
        assert len(parts) == len(old)
        pairs: list[tuple[str, str]] = []  # (line, the newline after it)
        # Lines equal at both ends keep their endings by position; only the middle is diffed
        # (a diff of repeated lines, blank ones say, could pair them up the wrong way).
        pre = 0
        while pre < len(old) and pre < len(new) and old[pre] == new[pre]:
            pre += 1
        suf = 0
        while suf < len(old) - pre and suf < len(new) - pre and old[-1 - suf] == new[-1 - suf]:
            suf += 1
        ops = [("equal", 0, pre, 0, pre)]
        for tag, i1, i2, j1, j2 in SequenceMatcher(
            None, old[pre : len(old) - suf], new[pre : len(new) - suf], autojunk=False
        ).get_opcodes():
            ops.append((tag, i1 + pre, i2 + pre, j1 + pre, j2 + pre))
        ops.append(("equal", len(old) - suf, len(old), len(new) - suf, len(new)))
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal":
                pairs.extend((parts[i], ends[i] if i < len(ends) else self.newline) for i in range(i1, i2))
            elif tag == "replace":
                # Rewritten lines take the endings of the lines they replace, in order.
                for j in range(j1, j2):
                    i = min(i1 + (j - j1), i2 - 1)
                    pairs.append((new[j], ends[i] if i < len(ends) else self.newline))
            else:
                pairs.extend((new[j], self.newline) for j in range(j1, j2))
        if not pairs:
            return ""
        # Every line but the last ends with a newline (the last piece is what follows the final one).
        return "".join(line + end for line, end in pairs[:-1]) + pairs[-1][0]

    # ------------------------------------------------------------------ disk state

    def changed_on_disk(self) -> bool:
        """True if the file's bytes differ from what was read (or it is gone; a new file: it appeared)."""
        if self.is_new:
            return os.path.lexists(self.path)
        try:
            return Path(self.path).read_bytes() != self._raw
        except OSError:
            return True

    def write(self, new_text: str) -> None:
        """Atomically replaces the file with new_text (temp file in the same folder, fsync,
        rename), keeping encoding, BOM, newlines and mode. Raises FileChangedError if the
        file changed on disk since it was read; then nothing is written. A new Document
        creates the file (mode from the umask), and never over one that appeared meanwhile."""
        if self.is_new:
            self._create(new_text)
            return
        target = Path(os.path.realpath(self.path))  # through a symlink: keep the link
        try:
            current = target.read_bytes()
        except FileNotFoundError:
            raise FileChangedError(f"{self.path}: the file was deleted since it was read; not writing") from None
        if current != self._raw:
            raise FileChangedError(f"{self.path}: the file changed on disk since it was read; not overwriting it")
        data = self.encode(new_text)
        atomic_write(target, data, self.mode)
        self.load(data)

    def _create(self, new_text: str) -> None:
        target = self.path
        if os.path.lexists(target):
            raise FileChangedError(f"{self.path}: a file was created there meanwhile; not overwriting it")
        data = self.encode(new_text)
        atomic_write(target, data, None, create=True)
        try:
            self.mode = stat_mod.S_IMODE(os.stat(target).st_mode)
        except OSError:
            pass
        self.is_new = False
        self.load(data)

    def reload(self) -> None:
        """Re-reads the file from disk (after an external change)."""
        fresh = Document.read(self.path)
        for name in self.__slots__:
            setattr(self, name, getattr(fresh, name))


def _umask() -> int:
    """The process umask (read without changing it where /proc tells it)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def atomic_write(target: Path, data: bytes, mode: int | None, *, create: bool = False) -> None:
    """Writes data to a temp file beside target, fsyncs it and renames it over target, so a
    crash at any moment leaves either the old file or the new one, whole.

    mode None: the kernel gives the file 0o666 less the umask (a new file). create: target
    must not exist; it is linked into place, which fails rather than replace a file that
    appeared meanwhile (a plain rename where the filesystem has no hard links)."""
    folder = target.parent if str(target.parent) else Path(".")
    tmp = folder / f".{target.name}.steer-{os.getpid()}-{os.urandom(4).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            if mode is not None:
                os.fchmod(fd, mode)
            if not create:  # a new file has no owner to keep
                try:
                    st = os.stat(target)
                    if hasattr(os, "fchown") and (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
                        os.fchown(fd, st.st_uid, st.st_gid)
                except OSError:
                    pass  # not allowed to keep the owner (not root): the file becomes ours
            os.fsync(fd)
        finally:
            os.close(fd)
        if create:
            _link_into_place(tmp, target)
        else:
            os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass  # some filesystems cannot fsync a directory; the rename itself is done


def _link_into_place(tmp: Path, target: Path) -> None:
    import errno

    try:
        os.link(tmp, target)  # atomic, and EEXIST if a file appeared at target
    except OSError as e:
        if e.errno == errno.EEXIST:
            raise FileChangedError(f"{target}: a file was created there meanwhile; not overwriting it") from None
        if e.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
            raise
        if os.path.lexists(target):
            raise FileChangedError(f"{target}: a file was created there meanwhile; not overwriting it") from None
        os.replace(tmp, target)
        return
    os.unlink(tmp)
