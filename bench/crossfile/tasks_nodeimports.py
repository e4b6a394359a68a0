"""Node built-in module tasks: in each small Node.js project one function is to be changed so that
it does something whose natural implementation needs a Node built-in module (fs, path, os, crypto,
zlib, util, child_process, readline, url, http) that the edited file does not require or import yet.
The instruction says what the developer wants in their own words, never which module. The hidden
test checks the behaviour (on temp dirs where it touches the disk), not how the module is brought
in, and that the rest of the file still works. 8 CommonJS projects, 4 ES module projects.
Same fields as tasks_js.py."""

from __future__ import annotations

from bench.crossfile.authoring import ESM_PACKAGE

TASKS: list[dict] = []

CJS_PACKAGE = '{\n  "name": "%s",\n  "version": "1.0.0",\n  "private": true,\n  "main": "%s"\n}\n'


def task(**fields) -> None:
    fields.setdefault("lang", "javascript")
    TASKS.append(fields)


# ---------------------------------------------------------------- fs: read the settings file (CJS)

task(
    id="js-node-settings-read-sync",
    files={
        "src/defaults.js": r"""'use strict';

// Settings every install starts from; the settings file only overrides some of them.
const DEFAULTS = Object.freeze({
  port: 8080,
  host: '127.0.0.1',
  logLevel: 'info',
  cacheSeconds: 300,
});

module.exports = { DEFAULTS };
""",
        "src/settings.js": r"""'use strict';

const { DEFAULTS } = require('./defaults');

const LEVELS = ['debug', 'info', 'warn', 'error'];

function validate(settings) {
  if (!Number.isInteger(settings.port) || settings.port <= 0 || settings.port > 65535) {
    throw new Error(`bad port: ${settings.port}`);
  }
  if (!LEVELS.includes(settings.logLevel)) {
    throw new Error(`bad logLevel: ${settings.logLevel}`);
  }
  return settings;
}

// Settings from JSON text, merged over the defaults.
function parseSettings(text) {
  const raw = text.trim() ? JSON.parse(text) : {};
  return validate({ ...DEFAULTS, ...raw });
}

// The settings of this install; the server calls this once at startup, before it listens.
function loadSettings(file) {
  if (!file) {
    return validate({ ...DEFAULTS });
  }
  throw new Error(`loading ${file} is not supported yet`);
}

module.exports = { LEVELS, validate, parseSettings, loadSettings };
""",
    },
    target="src/settings.js",
    instruction="loadSettings(file) should read the settings file synchronously (UTF-8 JSON) and merge it over "
                "the defaults the same way parseSettings does; if the file doesn't exist, just use the defaults",
    edit=[("const { DEFAULTS } = require('./defaults');\n",
           "const fs = require('fs');\nconst { DEFAULTS } = require('./defaults');\n"),
          ("  throw new Error(`loading ${file} is not supported yet`);\n",
           "  if (!fs.existsSync(file)) {\n    return validate({ ...DEFAULTS });\n  }\n"
           "  return parseSettings(fs.readFileSync(file, 'utf8'));\n")],
    test=r"""const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { parseSettings, loadSettings } = require('./src/settings');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'settings-'));
try {
  const file = path.join(dir, 'settings.json');
  fs.writeFileSync(file, JSON.stringify({ port: 9000, logLevel: 'debug' }));
  const s = loadSettings(file);
  assert.ok(!(s instanceof Promise), 'loadSettings must return the settings, not a promise');
  assert.deepStrictEqual(s, { port: 9000, host: '127.0.0.1', logLevel: 'debug', cacheSeconds: 300 });

  fs.writeFileSync(file, JSON.stringify({ host: '0.0.0.0', cacheSeconds: 5 }));
  assert.deepStrictEqual(loadSettings(file), { port: 8080, host: '0.0.0.0', logLevel: 'info', cacheSeconds: 5 });

  fs.writeFileSync(file, JSON.stringify({ logLevel: 'loud' }));
  assert.throws(() => loadSettings(file), /bad logLevel/);

  assert.deepStrictEqual(loadSettings(path.join(dir, 'missing.json')),
                         { port: 8080, host: '127.0.0.1', logLevel: 'info', cacheSeconds: 300 });
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
assert.strictEqual(loadSettings().port, 8080);
assert.strictEqual(parseSettings('{"port": 81}').port, 81);
assert.throws(() => parseSettings('{"port": 0}'), /bad port/);
""",
)

# ---------------------------------------------------------------- path: static file lookup (CJS)

task(
    id="js-node-static-asset-path",
    files={
        "package.json": CJS_PACKAGE % ("tiny-static", "src/static.js"),
        "src/static.js": r"""'use strict';

const fs = require('fs');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

function contentType(file) {
  const dot = file.lastIndexOf('.');
  const ext = dot === -1 ? '' : file.slice(dot).toLowerCase();
  return TYPES[ext] || 'application/octet-stream';
}

// The file on disk that a request path maps to, inside the site's root folder.
function resolveAsset(root, urlPath) {
  let rel = decodeURIComponent(urlPath.split('?')[0]);
  if (rel.endsWith('/')) rel += 'index.html';
  return root + '/' + rel;
}

// { status, type, body } for one GET request.
function serveAsset(root, urlPath) {
  const file = resolveAsset(root, urlPath);
  if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    return { status: 404, type: 'text/plain', body: Buffer.from('not found') };
  }
  return { status: 200, type: contentType(file), body: fs.readFileSync(file) };
}

module.exports = { contentType, resolveAsset, serveAsset };
""",
    },
    target="src/static.js",
    instruction="resolveAsset should return a clean absolute path built the way the platform joins paths "
                "(with . and .. segments resolved, and a relative root taken from the current folder), and "
                "return null when the request would end up outside the root folder",
    edit=[("const fs = require('fs');\n", "const fs = require('fs');\nconst path = require('path');\n"),
          ("  return root + '/' + rel;\n",
           "  const base = path.resolve(root);\n  const file = path.join(base, rel);\n"
           "  return file === base || file.startsWith(base + path.sep) ? file : null;\n")],
    test=r"""const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { contentType, resolveAsset, serveAsset } = require('./src/static');

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'static-')));
try {
  const root = path.join(dir, 'www');
  fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'www2'));
  fs.writeFileSync(path.join(root, 'site.css'), 'body{}');
  fs.writeFileSync(path.join(root, 'docs', 'index.html'), '<h1>docs</h1>');
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'top secret');
  fs.writeFileSync(path.join(dir, 'www2', 'x.css'), 'nope');

  assert.strictEqual(resolveAsset(root, '/site.css'), path.join(root, 'site.css'));
  assert.strictEqual(resolveAsset(root, '/css/../site.css?v=3'), path.join(root, 'site.css'));
  assert.strictEqual(resolveAsset(root, '/./docs/'), path.join(root, 'docs', 'index.html'));
  assert.strictEqual(resolveAsset(root, '/../secret.txt'), null);
  assert.strictEqual(resolveAsset(root, '/%2e%2e/secret.txt'), null);
  assert.strictEqual(resolveAsset(root, '/../www2/x.css'), null);
  assert.strictEqual(resolveAsset('public', '/a/b.png'), path.resolve('public', 'a', 'b.png'));

  const ok = serveAsset(root, '/css/../site.css');
  assert.strictEqual(ok.status, 200);
  assert.strictEqual(ok.type, 'text/css');
  assert.strictEqual(ok.body.toString(), 'body{}');
  assert.strictEqual(serveAsset(root, '/docs/').type, 'text/html; charset=utf-8');
  assert.strictEqual(serveAsset(root, '/../secret.txt').status, 404);
  assert.strictEqual(serveAsset(root, '/missing.js').status, 404);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
assert.strictEqual(contentType('logo.SVG'), 'image/svg+xml');
assert.strictEqual(contentType('README'), 'application/octet-stream');
""",
)

# ---------------------------------------------------------------- os: ~ means the home folder (CJS)

task(
    id="js-node-expand-home",
    files={
        "package.json": CJS_PACKAGE % ("toolrc-paths", "src/paths.js"),
        "src/paths.js": r"""'use strict';

// Paths typed by the user on the command line or in .toolrc.

function splitList(value) {
  return String(value || '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

// A user-supplied path as the tool will use it: ${VAR} is replaced by the environment variable.
function expandPath(p) {
  if (typeof p !== 'string' || p === '') {
    throw new TypeError('path must be a non-empty string');
  }
  return p.replace(/\$\{(\w+)\}/g, (_, name) => process.env[name] || '');
}

function expandAll(value) {
  return splitList(value).map(expandPath);
}

module.exports = { splitList, expandPath, expandAll };
""",
    },
    target="src/paths.js",
    instruction="expandPath should also turn a leading ~ (on its own, or followed by a slash) into the "
                "current user's home folder; a ~ anywhere else, or ~name, stays as it is",
    edit=[("'use strict';\n", "'use strict';\n\nconst os = require('os');\n"),
          ("  return p.replace(",
           "  if (p === '~') {\n    p = os.homedir();\n  } else if (p.startsWith('~/')) {\n"
           "    p = os.homedir() + p.slice(1);\n  }\n  return p.replace(")],
    test=r"""const assert = require('assert');
const os = require('os');
const path = require('path');
const { splitList, expandPath, expandAll } = require('./src/paths');

const home = os.homedir();
assert.strictEqual(expandPath('~'), home);
assert.strictEqual(expandPath('~/projects/app'), path.join(home, 'projects', 'app'));
assert.strictEqual(expandPath('~bob/notes'), '~bob/notes');
assert.strictEqual(expandPath('/srv/~/cache'), '/srv/~/cache');
assert.strictEqual(expandPath('data/x~'), 'data/x~');
process.env.TOOL_TEST_SUB = 'sub';
assert.strictEqual(expandPath('~/${TOOL_TEST_SUB}/f.txt'), path.join(home, 'sub', 'f.txt'));
assert.deepStrictEqual(expandAll(' ~/a , /b/${TOOL_TEST_SUB} ,, '), [path.join(home, 'a'), '/b/sub']);
assert.deepStrictEqual(splitList('a,,b'), ['a', 'b']);
assert.throws(() => expandPath(''), TypeError);
""",
)

# ---------------------------------------------------------------- crypto: SHA-1 of an upload (CJS)

task(
    id="js-node-upload-sha1",
    files={
        "src/mime.js": r"""'use strict';

const BY_EXT = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  pdf: 'application/pdf',
  txt: 'text/plain',
};

function mimeFor(name) {
  const ext = name.includes('.') ? name.split('.').pop().toLowerCase() : '';
  return BY_EXT[ext] || 'application/octet-stream';
}

module.exports = { mimeFor };
""",
        "src/manifest.js": r"""'use strict';

const { mimeFor } = require('./mime');

const MAX_BYTES = 25 * 1024 * 1024;

// One entry of the manifest the storage service receives before the bytes themselves.
function describeUpload(name, payload) {
  const data = Buffer.isBuffer(payload) ? payload : Buffer.from(String(payload), 'utf8');
  if (data.length > MAX_BYTES) {
    throw new RangeError(`${name} is over the 25 MB limit`);
  }
  return {
    name,
    size: data.length,
    type: mimeFor(name),
  };
}

function buildManifest(files) {
  const entries = files.map(({ name, payload }) => describeUpload(name, payload));
  return {
    count: entries.length,
    totalBytes: entries.reduce((sum, e) => sum + e.size, 0),
    entries,
  };
}

module.exports = { MAX_BYTES, describeUpload, buildManifest };
""",
    },
    target="src/manifest.js",
    instruction="every upload entry should also carry a sha1 field: the SHA-1 digest of the payload's bytes "
                "as lowercase hex, so the storage service can verify what it received",
    edit=[("const { mimeFor } = require('./mime');\n",
           "const crypto = require('crypto');\nconst { mimeFor } = require('./mime');\n"),
          ("    type: mimeFor(name),\n",
           "    type: mimeFor(name),\n    sha1: crypto.createHash('sha1').update(data).digest('hex'),\n")],
    test=r"""const assert = require('assert');
const { MAX_BYTES, describeUpload, buildManifest } = require('./src/manifest');

assert.deepStrictEqual(describeUpload('hello.txt', 'hello'), {
  name: 'hello.txt',
  size: 5,
  type: 'text/plain',
  sha1: 'aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d',
});
assert.strictEqual(describeUpload('empty.bin', Buffer.alloc(0)).sha1, 'da39a3ee5e6b4b0d3255bfef95601890afd80709');
assert.strictEqual(describeUpload('fox.txt', 'The quick brown fox jumps over the lazy dog').sha1,
                   '2fd4e1c67a2d28fced849ee1bb76e7391b93eb12');
const m = buildManifest([{ name: 'a.PNG', payload: Buffer.from([1, 2, 3]) }, { name: 'b', payload: 'abc' }]);
assert.strictEqual(m.count, 2);
assert.strictEqual(m.totalBytes, 6);
assert.strictEqual(m.entries[0].type, 'image/png');
assert.strictEqual(m.entries[1].sha1, 'a9993e364706816aba3e25717850c26c9cd0d89d');
assert.throws(() => describeUpload('big.pdf', Buffer.alloc(MAX_BYTES + 1)), RangeError);
""",
)

# ---------------------------------------------------------------- zlib: gzip big JSON responses (CJS)

task(
    id="js-node-gzip-large-body",
    files={
        "package.json": CJS_PACKAGE % ("api-respond", "src/respond.js"),
        "src/respond.js": r"""'use strict';

// Builds the status, headers and body of an API response before the server writes it out.

const JSON_TYPE = 'application/json; charset=utf-8';

function acceptsGzip(acceptEncoding) {
  return String(acceptEncoding || '')
    .split(',')
    .map((part) => part.trim().split(';')[0].toLowerCase())
    .includes('gzip');
}

function jsonResponse(status, value, acceptEncoding) {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  const headers = { 'Content-Type': JSON_TYPE, Vary: 'Accept-Encoding' };
  headers['Content-Length'] = String(body.length);
  return { status, headers, body };
}

function errorResponse(status, message, acceptEncoding) {
  return jsonResponse(status, { error: message }, acceptEncoding);
}

module.exports = { JSON_TYPE, acceptsGzip, jsonResponse, errorResponse };
""",
    },
    target="src/respond.js",
    instruction="jsonResponse should gzip the body when it's over 1 KB and the client accepts gzip, setting "
                "Content-Encoding accordingly, with Content-Length matching the bytes actually sent; small "
                "bodies and clients without gzip get the plain JSON as now",
    edit=[("'use strict';\n", "'use strict';\n\nconst zlib = require('zlib');\n"),
          ("  const body = Buffer.from(JSON.stringify(value), 'utf8');\n"
           "  const headers = { 'Content-Type': JSON_TYPE, Vary: 'Accept-Encoding' };\n",
           "  let body = Buffer.from(JSON.stringify(value), 'utf8');\n"
           "  const headers = { 'Content-Type': JSON_TYPE, Vary: 'Accept-Encoding' };\n"
           "  if (body.length > 1024 && acceptsGzip(acceptEncoding)) {\n"
           "    body = zlib.gzipSync(body);\n    headers['Content-Encoding'] = 'gzip';\n  }\n")],
    test=r"""const assert = require('assert');
const zlib = require('zlib');
const { JSON_TYPE, acceptsGzip, jsonResponse, errorResponse } = require('./src/respond');

const big = { items: Array.from({ length: 300 }, (_, i) => ({ id: i, name: `item number ${i}` })) };
assert.ok(JSON.stringify(big).length > 5000);

const zipped = jsonResponse(200, big, 'br, gzip;q=0.8');
assert.ok(!(zipped instanceof Promise), 'jsonResponse must stay synchronous');
assert.strictEqual(zipped.status, 200);
assert.strictEqual(zipped.headers['Content-Encoding'], 'gzip');
assert.strictEqual(zipped.headers['Content-Type'], JSON_TYPE);
assert.ok(Buffer.isBuffer(zipped.body));
assert.strictEqual(zipped.headers['Content-Length'], String(zipped.body.length));
assert.ok(zipped.body.length < JSON.stringify(big).length / 2);
assert.deepStrictEqual(JSON.parse(zlib.gunzipSync(zipped.body).toString('utf8')), big);

const plain = jsonResponse(200, big, 'br');
assert.strictEqual(plain.headers['Content-Encoding'], undefined);
assert.deepStrictEqual(JSON.parse(plain.body.toString('utf8')), big);
assert.strictEqual(plain.headers['Content-Length'], String(plain.body.length));

const small = errorResponse(404, 'no such item', 'gzip');
assert.strictEqual(small.headers['Content-Encoding'], undefined);
assert.deepStrictEqual(JSON.parse(small.body.toString('utf8')), { error: 'no such item' });
assert.strictEqual(small.status, 404);
assert.strictEqual(acceptsGzip('deflate, GZIP'), true);
assert.strictEqual(acceptsGzip(undefined), false);
""",
)

# ---------------------------------------------------------------- util: printf-style log lines (CJS)

task(
    id="js-node-logger-printf",
    files={
        "package.json": CJS_PACKAGE % ("worker-log", "src/logger.js"),
        "src/logger.js": r"""'use strict';

const os = require('os');

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 };

// One line per message: "<time> <host> <LEVEL> <message>".
function createLogger({ level = 'info', write = (line) => process.stdout.write(line), clock = () => new Date() } = {}) {
  const threshold = LEVELS[level];
  if (threshold === undefined) {
    throw new Error(`unknown level ${level}`);
  }
  const host = os.hostname();

  function log(name, message, ...args) {
    if (LEVELS[name] < threshold) return;
    const text = [message, ...args].map(String).join(' ');
    write(`${clock().toISOString()} ${host} ${name.toUpperCase()} ${text}${os.EOL}`);
  }

  return {
    debug: (...a) => log('debug', ...a),
    info: (...a) => log('info', ...a),
    warn: (...a) => log('warn', ...a),
    error: (...a) => log('error', ...a),
  };
}

module.exports = { LEVELS, createLogger };
""",
    },
    target="src/logger.js",
    instruction="log messages should support printf-style placeholders (%s, %d, %j, %o and so on) filled from "
                "the extra arguments, with leftover arguments appended, formatted exactly the way console.log "
                "formats its arguments",
    edit=[("const os = require('os');\n", "const os = require('os');\nconst util = require('util');\n"),
          ("    const text = [message, ...args].map(String).join(' ');\n",
           "    const text = util.format(message, ...args);\n")],
    test=r"""const assert = require('assert');
const os = require('os');
const util = require('util');
const { createLogger } = require('./src/logger');

const lines = [];
const clock = () => new Date('2024-05-01T10:00:00.000Z');
const log = createLogger({ level: 'info', write: (line) => lines.push(line), clock });
const prefix = (lvl) => `2024-05-01T10:00:00.000Z ${os.hostname()} ${lvl} `;

const cases = [
  ['user %s has %d items', 'bob', 3],
  ['config %j', { a: 1, b: [2, 3] }],
  ['%s%%', 50],
  ['state', { nested: { deep: true } }, 7],
  ['value %o', [1, { x: 'y' }]],
  ['%d apples and %s', 4],
];
for (const c of cases) log.info(...c);
log.debug('hidden %s', 'x');
log.error('failed: %s', 'disk full', 'extra');

assert.strictEqual(lines.length, cases.length + 1);
cases.forEach((c, i) => assert.strictEqual(lines[i], prefix('INFO') + util.format(...c) + os.EOL));
assert.strictEqual(lines[1], prefix('INFO') + 'config {"a":1,"b":[2,3]}' + os.EOL);
assert.strictEqual(lines[cases.length], prefix('ERROR') + 'failed: disk full extra' + os.EOL);
assert.throws(() => createLogger({ level: 'loud' }), /unknown level/);
""",
)

# ---------------------------------------------------------------- child_process: run a release step (CJS)

task(
    id="js-node-release-step-run",
    files={
        "package.json": CJS_PACKAGE % ("release-steps", "src/runner.js"),
        "src/runner.js": r"""'use strict';

const path = require('path');

// Steps of the release script, as read from release.json: { name, cmd, cwd? }.

function stepDir(step, baseDir) {
  return path.resolve(baseDir, step.cwd || '.');
}

function describeStep(step, baseDir) {
  return `[${step.name}] (${path.relative(baseDir, stepDir(step, baseDir)) || '.'}) $ ${step.cmd}`;
}

// Runs one step and returns what it printed; a dry run only describes it.
function runStep(step, baseDir, { dryRun = false, log = () => {} } = {}) {
  log(describeStep(step, baseDir));
  if (dryRun) {
    return '';
  }
  throw new Error('running steps is not implemented yet');
}

function runAll(steps, baseDir, options) {
  return steps.map((step) => runStep(step, baseDir, options));
}

module.exports = { stepDir, describeStep, runStep, runAll };
""",
    },
    target="src/runner.js",
    instruction="runStep should really run the step's command line through the shell, synchronously, in the "
                "step's folder, and return what it printed on stdout, trimmed; a command that exits with a "
                "non-zero status should make runStep throw",
    edit=[("const path = require('path');\n",
           "const path = require('path');\nconst { execSync } = require('child_process');\n"),
          ("  throw new Error('running steps is not implemented yet');\n",
           "  return execSync(step.cmd, { cwd: stepDir(step, baseDir), encoding: 'utf8' }).trim();\n")],
    test=r"""const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { describeStep, runStep, runAll } = require('./src/runner');

const node = JSON.stringify(process.execPath);
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'release-')));
try {
  fs.mkdirSync(path.join(dir, 'pkg'));
  fs.writeFileSync(path.join(dir, 'pkg', 'VERSION'), '1.4.2\n');
  const where = { name: 'where', cmd: `${node} -e "process.stdout.write(process.cwd())"`, cwd: 'pkg' };
  assert.strictEqual(fs.realpathSync(runStep(where, dir)), path.join(dir, 'pkg'));
  const read = { name: 'version', cmd: `${node} -e "console.log('  ' + require('fs').readFileSync('VERSION', 'utf8'))"`, cwd: 'pkg' };
  assert.strictEqual(runStep(read, dir), '1.4.2');
  assert.strictEqual(runStep({ name: 'pipe', cmd: 'echo one two three | wc -w' }, dir), '3');
  assert.throws(() => runStep({ name: 'fail', cmd: `${node} -e "process.exit(3)"` }, dir));

  const logged = [];
  assert.strictEqual(runStep({ name: 'dry', cmd: 'exit 1', cwd: 'pkg' }, dir, { dryRun: true, log: (l) => logged.push(l) }), '');
  assert.deepStrictEqual(logged, ['[dry] (pkg) $ exit 1']);
  assert.deepStrictEqual(runAll([{ name: 'a', cmd: 'echo a' }, { name: 'b', cmd: 'echo b', cwd: 'pkg' }], dir), ['a', 'b']);
  assert.strictEqual(describeStep({ name: 'x', cmd: 'ls' }, dir), '[x] (.) $ ls');
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
""",
)

# ---------------------------------------------------------------- readline: ask on the terminal (CJS)

task(
    id="js-node-wizard-ask",
    files={
        "package.json": CJS_PACKAGE % ("init-wizard", "src/ask.js"),
        "src/ask.js": r"""'use strict';

// Questions the init wizard asks before it writes a new project's config.

function parseYesNo(answer, fallback) {
  const a = String(answer).trim().toLowerCase();
  if (a === '') return fallback;
  if (a === 'y' || a === 'yes') return true;
  if (a === 'n' || a === 'no') return false;
  return fallback;
}

// Asks one question; resolves with the answer, or with the default when the user just presses Enter.
async function ask(question, { defaultValue = '', input = process.stdin, output = process.stdout } = {}) {
  const label = `${question}${defaultValue ? ` (${defaultValue})` : ''}: `;
  // Not interactive yet: every question takes its default.
  return defaultValue;
}

async function confirm(question, { defaultYes = true, ...streams } = {}) {
  const answer = await ask(`${question} [${defaultYes ? 'Y/n' : 'y/N'}]`, streams);
  return parseYesNo(answer, defaultYes);
}

module.exports = { parseYesNo, ask, confirm };
""",
    },
    target="src/ask.js",
    instruction="ask should really put the question (label) to the user on the given output stream and read one "
                "line of answer from the given input stream, trimmed, falling back to the default when the "
                "answer is empty",
    edit=[("'use strict';\n", "'use strict';\n\nconst readline = require('readline');\n"),
          ("  // Not interactive yet: every question takes its default.\n  return defaultValue;\n",
           "  const rl = readline.createInterface({ input, output });\n  try {\n"
           "    const answer = await new Promise((resolve) => rl.question(label, resolve));\n"
           "    return answer.trim() || defaultValue;\n  } finally {\n    rl.close();\n  }\n")],
    test=r"""const assert = require('assert');
const { PassThrough } = require('stream');
const { parseYesNo, ask, confirm } = require('./src/ask');

function terminal(typed) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk) => { shown += chunk; });
  setTimeout(() => input.write(typed), 20);
  return { input, output, shown: () => shown };
}

(async () => {
  let t = terminal('  alice  \n');
  assert.strictEqual(await ask('Name', { defaultValue: 'bob', input: t.input, output: t.output }), 'alice');
  assert.ok(t.shown().includes('Name (bob): '), `question not shown: ${JSON.stringify(t.shown())}`);

  t = terminal('\n');
  assert.strictEqual(await ask('Name', { defaultValue: 'bob', input: t.input, output: t.output }), 'bob');

  t = terminal('my-app\nignored\n');
  assert.strictEqual(await ask('Project', { input: t.input, output: t.output }), 'my-app');
  assert.ok(t.shown().includes('Project: '));

  t = terminal('n\n');
  assert.strictEqual(await confirm('Use git?', { input: t.input, output: t.output }), false);
  assert.ok(t.shown().includes('Use git? [Y/n]: '));

  t = terminal('yes\n');
  assert.strictEqual(await confirm('Add tests?', { defaultYes: false, input: t.input, output: t.output }), true);

  assert.strictEqual(parseYesNo('maybe', true), true);
  assert.strictEqual(parseYesNo(' NO ', true), false);
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
""",
)

# ---------------------------------------------------------------- fs: rotate log files on disk (ESM)

task(
    id="js-node-log-rotate-esm",
    files={
        "package.json": ESM_PACKAGE % "worker-logs",
        "src/rotate.js": r"""import path from 'node:path';

// Log rotation for the worker's logs: app.log -> app.log.1 -> app.log.2 ... up to app.log.<keep>.

export function rotatedName(file, n) {
  return n === 0 ? file : `${file}.${n}`;
}

// The renames one rotation does, oldest first, so that nothing is overwritten before it has moved.
export function rotationPlan(file, keep) {
  const plan = [];
  for (let n = keep - 1; n >= 0; n -= 1) {
    plan.push([rotatedName(file, n), rotatedName(file, n + 1)]);
  }
  return plan;
}

export function describePlan(file, keep) {
  const dir = path.dirname(file);
  return rotationPlan(file, keep)
    .map(([from, to]) => `${path.relative(dir, from)} -> ${path.relative(dir, to)}`)
    .join('\n');
}

// Rotates `file` once it has grown to `maxBytes` or more; returns whether it rotated.
export function rotateIfNeeded(file, { maxBytes = 1024 * 1024, keep = 5 } = {}) {
  return false;
}
""",
    },
    target="src/rotate.js",
    instruction="rotateIfNeeded should look at the log file on disk and, when it is at least maxBytes big, "
                "carry out the rotation plan (skipping files that don't exist) so that nothing is left at the "
                "original name, and return true; a missing or smaller log returns false and touches nothing",
    edit=[("import path from 'node:path';\n", "import fs from 'node:fs';\nimport path from 'node:path';\n"),
          ("export function rotateIfNeeded(file, { maxBytes = 1024 * 1024, keep = 5 } = {}) {\n  return false;\n",
           "export function rotateIfNeeded(file, { maxBytes = 1024 * 1024, keep = 5 } = {}) {\n"
           "  if (!fs.existsSync(file) || fs.statSync(file).size < maxBytes) {\n    return false;\n  }\n"
           "  for (const [from, to] of rotationPlan(file, keep)) {\n    if (fs.existsSync(from)) {\n"
           "      fs.renameSync(from, to);\n    }\n  }\n  return true;\n")],
    test=r"""import assert from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rotationPlan, describePlan, rotateIfNeeded } from './src/rotate.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rotate-'));
const read = (name) => fs.readFileSync(path.join(dir, name), 'utf8');
const exists = (name) => fs.existsSync(path.join(dir, name));
try {
  const log = path.join(dir, 'app.log');
  assert.strictEqual(await rotateIfNeeded(log, { maxBytes: 10 }), false);
  assert.strictEqual(exists('app.log'), false);

  fs.writeFileSync(log, 'short\n');
  assert.strictEqual(await rotateIfNeeded(log, { maxBytes: 100, keep: 2 }), false);
  assert.strictEqual(read('app.log'), 'short\n');
  assert.strictEqual(exists('app.log.1'), false);

  const current = 'x'.repeat(150);
  fs.writeFileSync(log, current);
  fs.writeFileSync(log + '.1', 'one');
  fs.writeFileSync(log + '.2', 'two');
  assert.strictEqual(await rotateIfNeeded(log, { maxBytes: 100, keep: 2 }), true);
  assert.strictEqual(exists('app.log'), false);
  assert.strictEqual(read('app.log.1'), current);
  assert.strictEqual(read('app.log.2'), 'one');
  assert.strictEqual(exists('app.log.3'), false);

  fs.writeFileSync(log, 'y'.repeat(100));
  fs.rmSync(log + '.1');
  assert.strictEqual(await rotateIfNeeded(log, { maxBytes: 100, keep: 3 }), true);
  assert.strictEqual(read('app.log.1'), 'y'.repeat(100));
  assert.strictEqual(read('app.log.3'), 'one');
  assert.strictEqual(exists('app.log.2'), false);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
assert.deepStrictEqual(rotationPlan('a.log', 2), [['a.log.1', 'a.log.2'], ['a.log', 'a.log.1']]);
assert.strictEqual(describePlan('/var/log/a.log', 1), 'a.log -> a.log.1');
""",
)

# ---------------------------------------------------------------- url: import a plugin by its path (ESM)

task(
    id="js-node-plugin-load-path",
    files={
        "package.json": ESM_PACKAGE % "site-builder",
        "src/plugins.js": r"""import path from 'node:path';

// Plugins are ES modules listed in the project's config by a path relative to the project folder;
// each one's default export is { name, setup(api) }.

export function pluginPaths(config, projectDir) {
  return (config.plugins || []).map((p) => path.resolve(projectDir, p));
}

function checkPlugin(plugin, file) {
  if (!plugin || typeof plugin.name !== 'string' || typeof plugin.setup !== 'function') {
    throw new Error(`${file} does not export a plugin`);
  }
  return plugin;
}

// Imports one plugin module from a file path on disk.
export async function loadPlugin(file) {
  const mod = await import(file);
  return checkPlugin(mod.default, file);
}

export async function loadPlugins(config, projectDir) {
  const plugins = [];
  for (const file of pluginPaths(config, projectDir)) {
    plugins.push(await loadPlugin(file));
  }
  return plugins;
}
""",
    },
    target="src/plugins.js",
    instruction="loadPlugin is given a file system path, not a URL: make it load the module from any path, "
                "absolute or relative to the current folder, including folders whose names contain # or % "
                "(a user's plugins live in 'c# tools' and '100% done')",
    edit=[("import path from 'node:path';\n",
           "import path from 'node:path';\nimport { pathToFileURL } from 'node:url';\n"),
          ("  const mod = await import(file);\n",
           "  const mod = await import(pathToFileURL(path.resolve(file)).href);\n")],
    test=r"""import assert from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pluginPaths, loadPlugin, loadPlugins } from './src/plugins.js';

const plugin = (name) => `export default { name: ${JSON.stringify(name)}, setup(api) { return api + 1; } };\n`;
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'plugins-')));
try {
  fs.mkdirSync(path.join(dir, 'c# tools'));
  fs.mkdirSync(path.join(dir, '100% done'));
  fs.mkdirSync(path.join(dir, 'plain'));
  fs.writeFileSync(path.join(dir, 'c# tools', 'sharp.js'), plugin('sharp'));
  fs.writeFileSync(path.join(dir, '100% done', 'pct.js'), plugin('pct'));
  fs.writeFileSync(path.join(dir, 'plain', 'ok.js'), plugin('ok'));
  fs.writeFileSync(path.join(dir, 'plain', 'bad.js'), 'export default 42;\n');

  const sharp = await loadPlugin(path.join(dir, 'c# tools', 'sharp.js'));
  assert.strictEqual(sharp.name, 'sharp');
  assert.strictEqual(sharp.setup(1), 2);
  assert.strictEqual((await loadPlugin(path.join(dir, '100% done', 'pct.js'))).name, 'pct');
  assert.strictEqual((await loadPlugin(path.relative(process.cwd(), path.join(dir, 'plain', 'ok.js')))).name, 'ok');
  await assert.rejects(loadPlugin(path.join(dir, 'plain', 'bad.js')), /does not export a plugin/);

  const all = await loadPlugins({ plugins: ['c# tools/sharp.js', './plain/ok.js', '100% done/pct.js'] }, dir);
  assert.deepStrictEqual(all.map((p) => p.name), ['sharp', 'ok', 'pct']);
  assert.deepStrictEqual(await loadPlugins({}, dir), []);
  assert.deepStrictEqual(pluginPaths({ plugins: ['x.js'] }, '/srv/site'), ['/srv/site/x.js']);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
""",
)

# ---------------------------------------------------------------- crypto: sign outgoing webhooks (ESM)

task(
    id="js-node-webhook-signature",
    files={
        "package.json": ESM_PACKAGE % "webhooks",
        "src/config.js": r"""// Settings of the outgoing webhooks.
export const WEBHOOK = {
  header: 'X-Signature',
  algorithm: 'sha256',
  timeoutMs: 5000,
};
""",
        "src/webhooks.js": r"""import { WEBHOOK } from './config.js';

// Builds the HTTP request we POST to a customer's webhook URL for one event.

export function eventBody(type, data, now = Date.now()) {
  return JSON.stringify({ type, data, sentAt: new Date(now).toISOString() });
}

// The signature header value; the customer recomputes it with their copy of the secret.
export function signature(body, secret) {
  return '';
}

export function buildRequest(url, type, data, secret, now) {
  const body = eventBody(type, data, now);
  return {
    url,
    method: 'POST',
    timeout: WEBHOOK.timeoutMs,
    headers: {
      'Content-Type': 'application/json',
      [WEBHOOK.header]: signature(body, secret),
    },
    body,
  };
}
""",
    },
    target="src/webhooks.js",
    instruction="signature should return the algorithm name from our webhook config, '=', then the HMAC of the "
                "body keyed with the secret, in lowercase hex (so 'sha256=...' with the current config)",
    edit=[("import { WEBHOOK } from './config.js';\n",
           "import { createHmac } from 'node:crypto';\nimport { WEBHOOK } from './config.js';\n"),
          ("export function signature(body, secret) {\n  return '';\n",
           "export function signature(body, secret) {\n"
           "  return `${WEBHOOK.algorithm}=` + createHmac(WEBHOOK.algorithm, secret).update(body).digest('hex');\n")],
    test=r"""import assert from 'node:assert';
import { WEBHOOK } from './src/config.js';
import { eventBody, signature, buildRequest } from './src/webhooks.js';

assert.strictEqual(signature('The quick brown fox jumps over the lazy dog', 'key'),
                   'sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8');
assert.strictEqual(signature('', ''), 'sha256=b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad');

const now = Date.UTC(2024, 0, 2, 3, 4, 5);
const req = buildRequest('https://example.com/hook', 'order.paid', { id: 7 }, 'key', now);
assert.strictEqual(req.body, '{"type":"order.paid","data":{"id":7},"sentAt":"2024-01-02T03:04:05.000Z"}');
assert.strictEqual(req.body, eventBody('order.paid', { id: 7 }, now));
assert.strictEqual(req.method, 'POST');
assert.strictEqual(req.timeout, 5000);
assert.strictEqual(req.headers['Content-Type'], 'application/json');
assert.strictEqual(req.headers['X-Signature'], signature(req.body, 'key'));
assert.match(req.headers['X-Signature'], /^sha256=[0-9a-f]{64}$/);
assert.notStrictEqual(signature(req.body, 'other'), req.headers['X-Signature']);

WEBHOOK.algorithm = 'sha1';
assert.strictEqual(signature('The quick brown fox jumps over the lazy dog', 'key'),
                   'sha1=de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9');
""",
)

# ---------------------------------------------------------------- http: serve the health endpoint (ESM)

task(
    id="js-node-health-server",
    files={
        "package.json": ESM_PACKAGE % "health",
        "src/health.js": r"""// Liveness/readiness answers for the load balancer.

const startedAt = Date.now();
const checks = new Map();

export function registerCheck(name, fn) {
  checks.set(name, fn);
}

// { status, body }: 200 when every registered check passes, 503 otherwise.
export async function healthReport(now = Date.now()) {
  const results = {};
  let ok = true;
  for (const [name, fn] of checks) {
    try {
      results[name] = (await fn()) !== false;
    } catch {
      results[name] = false;
    }
    ok = ok && results[name];
  }
  return {
    status: ok ? 200 : 503,
    body: { ok, uptimeSeconds: Math.round((now - startedAt) / 1000), checks: results },
  };
}

// Serves the health report to the load balancer; resolves with the server once it listens.
export function startHealthServer(port = 0) {
  throw new Error('the health server is not implemented yet');
}
""",
    },
    target="src/health.js",
    instruction="startHealthServer should start a small web server on the given port (0 means any free port) "
                "that answers GET /health with the health report's status code and its body as JSON, and 404 "
                "to anything else; it resolves with the server once it is listening",
    edit=[("// Liveness/readiness answers for the load balancer.\n",
           "import http from 'node:http';\n\n// Liveness/readiness answers for the load balancer.\n"),
          ("  throw new Error('the health server is not implemented yet');\n",
           "  const server = http.createServer(async (req, res) => {\n"
           "    if (req.method !== 'GET' || req.url.split('?')[0] !== '/health') {\n"
           "      res.writeHead(404, { 'Content-Type': 'text/plain' });\n      res.end('not found');\n"
           "      return;\n    }\n"
           "    const { status, body } = await healthReport();\n"
           "    res.writeHead(status, { 'Content-Type': 'application/json' });\n"
           "    res.end(JSON.stringify(body));\n  });\n"
           "  return new Promise((resolve, reject) => {\n    server.once('error', reject);\n"
           "    server.listen(port, () => resolve(server));\n  });\n")],
    test=r"""import assert from 'node:assert';
import { registerCheck, healthReport, startHealthServer } from './src/health.js';

const timer = setTimeout(() => { console.error('health check test timed out'); process.exit(1); }, 15000);
try {
  registerCheck('db', () => true);
  const server = await startHealthServer(0);
  const { port } = server.address();
  assert.ok(port > 0);
  const base = `http://127.0.0.1:${port}`;

  let res = await fetch(`${base}/health`);
  assert.strictEqual(res.status, 200);
  let body = await res.json();
  assert.strictEqual(body.ok, true);
  assert.deepStrictEqual(body.checks, { db: true });
  assert.strictEqual(typeof body.uptimeSeconds, 'number');

  registerCheck('cache', async () => { throw new Error('down'); });
  res = await fetch(`${base}/health?verbose=1`);
  assert.strictEqual(res.status, 503);
  body = await res.json();
  assert.deepStrictEqual(body.checks, { db: true, cache: false });

  res = await fetch(`${base}/metrics`);
  assert.strictEqual(res.status, 404);
  await res.arrayBuffer();

  if (server.closeAllConnections) server.closeAllConnections();
  server.close();
  assert.strictEqual((await healthReport()).status, 503);
} catch (err) {
  console.error(err);
  process.exit(1);
}
clearTimeout(timer);
process.exit(0);
""",
)
