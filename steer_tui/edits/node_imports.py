"""The Node built-in module a JavaScript or TypeScript edit reads that its file does not require.

The counterpart of stdlib_imports for Node: a rewrite of one function cannot reach the file's
requires, so `fs.readFileSync(...)` or `createHash('sha1')` written in it arrives without its
module and fails with a ReferenceError. A module counts when the edited text reads `name.attr` with
`name` one of the built-ins below, bound nowhere in the text (no declaration, parameter, import,
catch or loop binding: any identifier in such a place counts, so a doubt leaves it alone), every
attribute read exists in the module, and the text before the edit did not already read it so (a
file that relies on a global keeps doing so). A bare call of a camelCase name exactly one module
exports (`readFileSync`, `createHash`, `randomBytes`, `execSync`) brings that name from it; a
short or common word (`join`, `exec`, `parse`) never does. Nothing is added to a text that does not
parse. The statement follows the file: `const fs = require('fs');` in CommonJS, `import * as fs from
'fs';` in an ES module or TypeScript, with the file's own keyword, quotes and semicolons (js_style).
"""

from __future__ import annotations

import re

from steer_tui import lang
from steer_tui.edits.js_style import js_style
from steer_tui.lang.parsing import parse

__all__ = ["called_free", "missing", "EXPORTS"]

# Object.keys(require(m)) under Node 20, identifiers only. Modules whose name is a common variable
# name (events, stream, net, dns, buffer) are left out: `events.on` is far more often a variable
# the model forgot than the module.
EXPORTS: dict[str, frozenset[str]] = {
    "assert": frozenset("""
AssertionError CallTracker deepEqual deepStrictEqual doesNotMatch doesNotReject doesNotThrow
equal fail ifError match notDeepEqual notDeepStrictEqual notEqual notStrictEqual ok rejects
strict strictEqual throws""".split()),
    "child_process": frozenset("""
ChildProcess _forkChild exec execFile execFileSync execSync fork spawn spawnSync""".split()),
    "crypto": frozenset("""
Certificate Cipher Cipheriv Decipher Decipheriv DiffieHellman DiffieHellmanGroup ECDH Hash Hmac
KeyObject Sign Verify X509Certificate checkPrime checkPrimeSync constants createCipheriv
createDecipheriv createDiffieHellman createDiffieHellmanGroup createECDH createHash createHmac
createPrivateKey createPublicKey createSecretKey createSign createVerify diffieHellman
generateKey generateKeyPair generateKeyPairSync generateKeySync generatePrime generatePrimeSync
getCipherInfo getCiphers getCurves getDiffieHellman getFips getHashes getRandomValues hash hkdf
hkdfSync pbkdf2 pbkdf2Sync privateDecrypt privateEncrypt publicDecrypt publicEncrypt randomBytes
randomFill randomFillSync randomInt randomUUID scrypt scryptSync secureHeapUsed setEngine
setFips sign subtle timingSafeEqual verify webcrypto""".split()),
    "fs": frozenset("""
Dir Dirent F_OK FileReadStream FileWriteStream R_OK ReadStream Stats W_OK WriteStream X_OK
_toUnixTimestamp access accessSync appendFile appendFileSync chmod chmodSync chown chownSync
close closeSync constants copyFile copyFileSync cp cpSync createReadStream createWriteStream
exists existsSync fchmod fchmodSync fchown fchownSync fdatasync fdatasyncSync fstat fstatSync
fsync fsyncSync ftruncate ftruncateSync futimes futimesSync lchmod lchmodSync lchown lchownSync
link linkSync lstat lstatSync lutimes lutimesSync mkdir mkdirSync mkdtemp mkdtempSync open
openAsBlob openSync opendir opendirSync promises read readFile readFileSync readSync readdir
readdirSync readlink readlinkSync readv readvSync realpath realpathSync rename renameSync rm
rmSync rmdir rmdirSync stat statSync statfs statfsSync symlink symlinkSync truncate truncateSync
unlink unlinkSync unwatchFile utimes utimesSync watch watchFile write writeFile writeFileSync
writeSync writev writevSync""".split()),
    "http": frozenset("""
Agent ClientRequest IncomingMessage METHODS OutgoingMessage STATUS_CODES Server ServerResponse
_connectionListener createServer get globalAgent maxHeaderSize request setMaxIdleHTTPParsers
validateHeaderName validateHeaderValue""".split()),
    "https": frozenset("""
Agent Server createServer get globalAgent request""".split()),
    "os": frozenset("""
EOL arch availableParallelism constants cpus devNull endianness freemem getPriority homedir
hostname loadavg machine networkInterfaces platform release setPriority tmpdir totalmem type
uptime userInfo version""".split()),
    "path": frozenset("""
_makeLong basename delimiter dirname extname format isAbsolute join matchesGlob normalize parse
posix relative resolve sep toNamespacedPath win32""".split()),
    "querystring": frozenset("""
decode encode escape parse stringify unescape unescapeBuffer""".split()),
    "readline": frozenset("""
Interface clearLine clearScreenDown createInterface cursorTo emitKeypressEvents moveCursor
promises""".split()),
    "url": frozenset("""
URL URLSearchParams Url domainToASCII domainToUnicode fileURLToPath format parse pathToFileURL
resolve resolveObject urlToHttpOptions""".split()),
    "util": frozenset("""
MIMEParams MIMEType TextDecoder TextEncoder _errnoException _exceptionWithHostPort _extend
aborted callbackify debug debuglog deprecate format formatWithOptions getSystemErrorMap
getSystemErrorName inherits inspect isArray isBoolean isBuffer isDate isDeepStrictEqual isError
isFunction isNull isNullOrUndefined isNumber isObject isPrimitive isRegExp isString isSymbol
isUndefined log parseArgs parseEnv promisify stripVTControlCharacters styleText toUSVString
transferableAbortController transferableAbortSignal types""".split()),
    "zlib": frozenset("""
BrotliCompress BrotliDecompress Deflate DeflateRaw Gunzip Gzip Inflate InflateRaw Unzip
brotliCompress brotliCompressSync brotliDecompress brotliDecompressSync codes constants crc32
createBrotliCompress createBrotliDecompress createDeflate createDeflateRaw createGunzip
createGzip createInflate createInflateRaw createUnzip deflate deflateRaw deflateRawSync
deflateSync gunzip gunzipSync gzip gzipSync inflate inflateRaw inflateRawSync inflateSync unzip
unzipSync""".split()),
}

_CAMEL = re.compile(r"^[a-z]+[A-Z][A-Za-z0-9]*$")
# Where an identifier is bound: every identifier below one of these (a default value's names too,
# which only errs toward leaving a name alone).
_BINDING_FIELDS = {
    "variable_declarator": "name", "function_declaration": "name", "generator_function_declaration": "name",
    "class_declaration": "name", "function_expression": "name", "function": "name", "class": "name",
    "catch_clause": "parameter", "for_in_statement": "left", "arrow_function": "parameter",
}
_BINDING_NODES = frozenset({"formal_parameters", "import_statement", "import_clause"})


def _identifiers(node, out: set[str]) -> None:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in ("identifier", "shorthand_property_identifier_pattern"):
            out.add(n.text.decode("utf-8", "replace"))
        stack.extend(n.children)


def _reads(spec, text: str):
    """(bound names, {module: attributes read}, {bare camelCase name called}) of `text`; None
    when it does not parse."""
    tree = parse(spec, text)
    if tree.root_node.has_error:
        return None
    bound: set[str] = set()
    modules: dict[str, set[str]] = {}
    called: set[str] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type in _BINDING_NODES:
            _identifiers(node, bound)
            continue
        field = _BINDING_FIELDS.get(node.type)
        if field:
            target = node.child_by_field_name(field)
            if target is not None:
                _identifiers(target, bound)
        if node.type == "member_expression":
            obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
            if obj is not None and prop is not None and obj.type == "identifier":
                name = obj.text.decode("utf-8", "replace")
                if name in EXPORTS:
                    modules.setdefault(name, set()).add(prop.text.decode("utf-8", "replace"))
        elif node.type in ("call_expression", "new_expression"):
            fn = node.child_by_field_name("function" if node.type == "call_expression" else "constructor")
            if fn is not None and fn.type == "identifier":
                called.add(fn.text.decode("utf-8", "replace"))
        elif node.type in ("jsx_opening_element", "jsx_self_closing_element"):
            tag = node.child_by_field_name("name")
            if tag is not None and tag.type == "identifier" and tag.text[:1].isupper():
                called.add(tag.text.decode("utf-8", "replace"))  # <PostItem />: a component, read as a call
    return bound, modules, called


def called_free(path: str, old: str, new: str) -> set[str]:
    """The names `new` (the edited JavaScript/TypeScript text of `path`) calls, constructs or
    renders as a component (`f(...)`, `new F(...)`, `<F />`) that nothing in it binds and that
    `old` did not already use so; empty for another language or a text that does not parse."""
    spec = lang.language(path)
    if spec is None or spec.key not in ("javascript", "typescript", "tsx"):
        return set()
    now = _reads(spec, new)
    if now is None:
        return set()
    bound, _, called = now
    free = called - bound
    before = _reads(spec, old)
    if before is not None:
        free -= before[2] - before[0]
    return free


def _giver(name: str) -> str | None:
    if not _CAMEL.match(name):
        return None
    givers = [m for m, names in EXPORTS.items() if name in names]
    return givers[0] if len(givers) == 1 else None


def missing(path: str, old: str, new: str, esm: bool) -> list[str]:
    """The statements `new`, the edited text of JavaScript/TypeScript file `path`, needs for the
    Node built-ins it reads (`esm`: the file is an ES module), sorted; [] for another language."""
    spec = lang.language(path)
    if spec is None or spec.key not in ("javascript", "typescript", "tsx"):
        return []
    now = _reads(spec, new)
    if now is None:
        return []
    bound, modules, called = now
    before = _reads(spec, old)
    if before is not None:
        was_bound, was_modules, was_called = before
        modules = {m: a for m, a in modules.items() if m not in was_modules or m in was_bound}
        called -= {c for c in was_called if c not in was_bound}
    style = js_style(old)
    out = []
    for module, attrs in modules.items():
        if module not in bound and attrs <= EXPORTS[module]:
            out.append(style.import_(f"* as {module}", module) if esm else style.require(module, module))
    bare: dict[str, list[str]] = {}
    for name in called - bound:
        module = _giver(name)
        if module is not None:
            bare.setdefault(module, []).append(name)
    for module, names in bare.items():
        listed = style.names(sorted(names))
        out.append(style.import_(listed, module) if esm else style.require(listed, module))
    return sorted(out)
