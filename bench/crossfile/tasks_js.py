"""The JavaScript cross-file tasks (Node: CommonJS, or ESM where the project's package.json says
"type": "module"); the same fields as tasks_python.py, the test a Node script."""

from __future__ import annotations

from bench.crossfile.authoring import ESM_PACKAGE

TASKS: list[dict] = []



def task(**fields) -> None:
    fields.setdefault("lang", "javascript")
    TASKS.append(fields)


# ---------------------------------------------------------------- a helper's output format

task(
    id="js-cart-line-money",
    files={
        "src/format.js": """'use strict';

// Every amount the shop shows goes through formatMoney, so prices look the same everywhere.
function formatMoney(cents, currency = 'USD') {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100).toString().replace(/\\B(?=(\\d{3})+(?!\\d))/g, ' ');
  const frac = String(abs % 100).padStart(2, '0');
  return `${sign}${whole}.${frac} ${currency}`;
}

function pluralize(n, word) {
  return n === 1 ? word : word + 's';
}

module.exports = { formatMoney, pluralize };
""",
        "src/cart.js": """'use strict';

// One line of the cart page per item.
function cartLine(item) {
  return `${item.name} x${item.qty}`;
}

function cartLines(items) {
  return items.map(cartLine);
}

module.exports = { cartLine, cartLines };
""",
    },
    target="src/cart.js",
    instruction="cartLine should end with ' = ' and the line total (qty times unit price in cents), "
                "formatted with our money formatter",
    edit=[("'use strict';\n", "'use strict';\n\nconst { formatMoney } = require('./format');\n"),
          ("  return `${item.name} x${item.qty}`;\n",
           "  return `${item.name} x${item.qty} = ${formatMoney(item.qty * item.priceCents)}`;\n")],
    test="""const assert = require('assert');
const { cartLine } = require('./src/cart');

assert.strictEqual(cartLine({ name: 'Tea', qty: 3, priceCents: 45000 }), 'Tea x3 = 1 350.00 USD');
assert.strictEqual(cartLine({ name: 'Pen', qty: 1, priceCents: 5 }), 'Pen x1 = 0.05 USD');
""",
)

# ---------------------------------------------------------------- the project's error class

task(
    id="js-user-validation-error",
    files={
        "src/errors.js": """'use strict';

// Errors the API layer turns into 4xx responses.
class AppError extends Error {
  constructor(message, status = 500) {
    super(message);
    this.name = this.constructor.name;
    this.status = status;
  }
}

// A bad field in a request: new ValidationError(field, message).
class ValidationError extends AppError {
  constructor(field, message) {
    super(message, 422);
    this.field = field;
  }
}

module.exports = { AppError, ValidationError };
""",
        "src/users.js": """'use strict';

let nextId = 1;

function createUser({ email, age }) {
  if (!email || !email.includes('@')) {
    throw new Error('invalid email');
  }
  return { id: nextId++, email: email.toLowerCase(), age };
}

module.exports = { createUser };
""",
    },
    target="src/users.js",
    instruction="createUser should throw our validation error for a bad email and also when age is "
                "negative or not an integer (field names 'email' and 'age')",
    edit=[("'use strict';\n", "'use strict';\n\nconst { ValidationError } = require('./errors');\n"),
          ("    throw new Error('invalid email');\n  }\n",
           "    throw new ValidationError('email', 'invalid email');\n  }\n"
           "  if (!Number.isInteger(age) || age < 0) {\n    throw new ValidationError('age', 'invalid age');\n  }\n")],
    test="""const assert = require('assert');
const { ValidationError } = require('./src/errors');
const { createUser } = require('./src/users');

assert.strictEqual(createUser({ email: 'A@b.io', age: 30 }).email, 'a@b.io');
for (const [input, field] of [[{ email: 'nope', age: 3 }, 'email'], [{ email: 'a@b.io', age: -1 }, 'age'],
                              [{ email: 'a@b.io', age: 2.5 }, 'age']]) {
  assert.throws(() => createUser(input), (e) => e instanceof ValidationError && e.field === field && e.status === 422);
}
""",
)

# ---------------------------------------------------------------- config values

task(
    id="js-request-options-config",
    files={
        "src/config.js": """'use strict';

// Runtime configuration; environment variables override the defaults.
const config = {
  apiBase: process.env.API_BASE || 'https://api.example.com',
  requestTimeoutMs: Number(process.env.REQUEST_TIMEOUT_MS || 2500),
  maxRetries: Number(process.env.MAX_RETRIES || 4),
  userAgent: 'shop-client/2.3',
};

module.exports = config;
""",
        "src/http.js": """'use strict';

// Options every outgoing request uses.
function requestOptions(extraHeaders = {}) {
  return {
    timeout: 1000,
    retries: 2,
    headers: { 'User-Agent': 'node', ...extraHeaders },
  };
}

module.exports = { requestOptions };
""",
    },
    target="src/http.js",
    instruction="requestOptions hard-codes the timeout, retries and user agent; take all three from the "
                "config module",
    edit=[("'use strict';\n", "'use strict';\n\nconst config = require('./config');\n"),
          ("    timeout: 1000,\n    retries: 2,\n    headers: { 'User-Agent': 'node', ...extraHeaders },\n",
           "    timeout: config.requestTimeoutMs,\n    retries: config.maxRetries,\n"
           "    headers: { 'User-Agent': config.userAgent, ...extraHeaders },\n")],
    test="""const assert = require('assert');
delete process.env.REQUEST_TIMEOUT_MS;
delete process.env.MAX_RETRIES;
const { requestOptions } = require('./src/http');

assert.deepStrictEqual(requestOptions({ 'X-Id': '1' }),
  { timeout: 2500, retries: 4, headers: { 'User-Agent': 'shop-client/2.3', 'X-Id': '1' } });
""",
)

# ---------------------------------------------------------------- an enum member

task(
    id="js-account-status-enum",
    files={
        "src/api.js": """'use strict';

// The account statuses the API reports. Compare by identity: Status.ACTIVE, never a string.
const Status = Object.freeze({
  ACTIVE: Symbol('active'),
  SUSPENDED: Symbol('suspended'),
  CLOSED: Symbol('closed'),
});

function statusLabel(status) {
  return status.description;
}

module.exports = { Status, statusLabel };
""",
        "src/accounts.js": """'use strict';

function accountStatus(account) {
  if (account.closedAt) return 'closed';
  if (account.strikes >= 3) return 'suspended';
  return 'active';
}

module.exports = { accountStatus };
""",
    },
    target="src/accounts.js",
    instruction="accountStatus should return the status enum the API module defines, not strings",
    edit=[("'use strict';\n", "'use strict';\n\nconst { Status } = require('./api');\n"),
          ("return 'closed';", "return Status.CLOSED;"), ("return 'suspended';", "return Status.SUSPENDED;"),
          ("return 'active';", "return Status.ACTIVE;")],
    test="""const assert = require('assert');
const { Status } = require('./src/api');
const { accountStatus } = require('./src/accounts');

assert.strictEqual(accountStatus({ strikes: 0 }), Status.ACTIVE);
assert.strictEqual(accountStatus({ strikes: 3 }), Status.SUSPENDED);
assert.strictEqual(accountStatus({ strikes: 0, closedAt: '2024-01-01' }), Status.CLOSED);
""",
)

# ---------------------------------------------------------------- a model's method

task(
    id="js-invoice-order-total",
    files={
        "src/models/order.js": """'use strict';

class Order {
  constructor(id, items, { discountPct = 0, shippingCents = 0 } = {}) {
    this.id = id;
    this.items = items; // [{ sku, qty, unitCents }]
    this.discountPct = discountPct;
    this.shippingCents = shippingCents;
  }

  subtotal() {
    return this.items.reduce((sum, i) => sum + i.qty * i.unitCents, 0);
  }

  // What the customer pays: subtotal less the discount (rounded to the cent), plus shipping.
  total() {
    const discount = Math.round((this.subtotal() * this.discountPct) / 100);
    return this.subtotal() - discount + this.shippingCents;
  }
}

module.exports = { Order };
""",
        "src/invoice.js": """'use strict';

function invoiceText(order) {
  let cents = 0;
  for (const item of order.items) {
    cents += item.qty * item.unitCents;
  }
  return `Invoice ${order.id}: ${(cents / 100).toFixed(2)}`;
}

module.exports = { invoiceText };
""",
    },
    target="src/invoice.js",
    instruction="invoiceText adds the items up itself and misses discount and shipping; print what the "
                "order model says the customer pays",
    edit=[("  let cents = 0;\n  for (const item of order.items) {\n    cents += item.qty * item.unitCents;\n  }\n",
           "  const cents = order.total();\n")],
    test="""const assert = require('assert');
const { Order } = require('./src/models/order');
const { invoiceText } = require('./src/invoice');

const o = new Order('A7', [{ sku: 'x', qty: 3, unitCents: 999 }], { discountPct: 10, shippingCents: 450 });
assert.strictEqual(invoiceText(o), 'Invoice A7: 31.47');
assert.strictEqual(invoiceText(new Order('B1', [{ sku: 'y', qty: 1, unitCents: 100 }])), 'Invoice B1: 1.00');
""",
)

# ---------------------------------------------------------------- an options object (keyword arguments)

task(
    id="js-find-by-email-params",
    files={
        "src/db.js": """'use strict';

// The one way the app talks to the database. Values never go into the SQL text: use `?`
// placeholders and pass them as options.params.
const executed = [];

function query(sql, { params = [], timeoutMs = 5000 } = {}) {
  const placeholders = (sql.match(/\\?/g) || []).length;
  if (placeholders !== params.length) {
    throw new Error(`expected ${placeholders} params, got ${params.length}`);
  }
  executed.push({ sql, params, timeoutMs });
  return [];
}

module.exports = { query, executed };
""",
        "src/users.js": """'use strict';

const db = require('./db');

function findByEmail(email) {
  return db.query("SELECT * FROM users WHERE email = '" + email + "'");
}

function findById(id) {
  return db.query('SELECT * FROM users WHERE id = ' + Number(id));
}

module.exports = { findByEmail, findById };
""",
    },
    target="src/users.js",
    instruction="findByEmail is open to SQL injection. Pass the email as a parameter the way our db "
                "helper expects",
    edit=[("""  return db.query("SELECT * FROM users WHERE email = '" + email + "'");\n""",
           "  return db.query('SELECT * FROM users WHERE email = ?', { params: [email] });\n")],
    test="""const assert = require('assert');
const db = require('./src/db');
const { findByEmail } = require('./src/users');

const evil = "x' OR '1'='1";
findByEmail(evil);
const last = db.executed[db.executed.length - 1];
assert.ok(!last.sql.includes(evil), last.sql);
assert.ok(last.sql.includes('?'), last.sql);
assert.deepStrictEqual(last.params, [evil]);
""",
)

# ---------------------------------------------------------------- the project's logger

task(
    id="js-job-logger",
    files={
        "src/logger.js": """'use strict';

// Structured logs: createLogger(scope) gives info/warn/error(message, fields).
const entries = [];

function createLogger(scope) {
  const at = (level) => (message, fields = {}) => entries.push({ level, scope, message, ...fields });
  return { info: at('info'), warn: at('warn'), error: at('error') };
}

module.exports = { createLogger, entries };
""",
        "src/jobs.js": """'use strict';

async function runJob(job) {
  try {
    await job.run();
    return true;
  } catch (err) {
    console.log('job failed', job.name, err.message);
    return false;
  }
}

module.exports = { runJob };
""",
    },
    target="src/jobs.js",
    instruction="log job failures through the project logger (scope 'jobs', error level, with the job "
                "name as a field) instead of console.log",
    edit=[("'use strict';\n", "'use strict';\n\nconst { createLogger } = require('./logger');\n\n"
           "const log = createLogger('jobs');\n"),
          ("    console.log('job failed', job.name, err.message);\n",
           "    log.error(`job failed: ${err.message}`, { job: job.name });\n")],
    test="""const assert = require('assert');
const { entries } = require('./src/logger');
const { runJob } = require('./src/jobs');

const printed = [];
console.log = (...a) => printed.push(a);
(async () => {
  assert.strictEqual(await runJob({ name: 'ok', run: async () => {} }), true);
  assert.strictEqual(await runJob({ name: 'nightly', run: async () => { throw new Error('disk full'); } }), false);
  assert.deepStrictEqual(printed, []);
  assert.strictEqual(entries.length, 1, JSON.stringify(entries));
  const e = entries[0];
  assert.strictEqual(e.level, 'error');
  assert.strictEqual(e.scope, 'jobs');
  assert.ok(Object.values(e).includes('nightly'), JSON.stringify(e));
})().catch((e) => { console.error(e); process.exit(1); });
""",
)

# ---------------------------------------------------------------- match a format function

task(
    id="js-feed-short-date",
    files={
        "src/dates.js": """'use strict';

// Dates as people read them in the app: day.month.year, two digits each ('05.03.24'), UTC.
function shortDate(d) {
  const dd = String(d.getUTCDate()).padStart(2, '0');
  const mm = String(d.getUTCMonth() + 1).padStart(2, '0');
  const yy = String(d.getUTCFullYear() % 100).padStart(2, '0');
  return `${dd}.${mm}.${yy}`;
}

function isWeekend(d) {
  return d.getUTCDay() === 0 || d.getUTCDay() === 6;
}

module.exports = { shortDate, isWeekend };
""",
        "src/feed.js": """'use strict';

function postTitle(post) {
  return `${post.title} (${post.date.toISOString()})`;
}

module.exports = { postTitle };
""",
    },
    target="src/feed.js",
    instruction="postTitle shows a raw ISO timestamp; show the date the way the app shows short dates",
    edit=[("'use strict';\n", "'use strict';\n\nconst { shortDate } = require('./dates');\n"),
          ("(${post.date.toISOString()})", "(${shortDate(post.date)})")],
    test="""const assert = require('assert');
const { postTitle } = require('./src/feed');

assert.strictEqual(postTitle({ title: 'Hello', date: new Date(Date.UTC(2024, 2, 5, 23, 30)) }), 'Hello (05.03.24)');
assert.strictEqual(postTitle({ title: 'Old', date: new Date(Date.UTC(2009, 10, 21)) }), 'Old (21.11.09)');
""",
)

# ---------------------------------------------------------------- argument order (ESM)

task(
    id="js-completion-percent",
    files={
        "package.json": ESM_PACKAGE % "todo-stats",
        "src/math.js": """// Small numeric helpers shared by the dashboards.

/** `part` as a percentage of `whole`, e.g. percentOf(1, 8) -> '12.5%'. */
export function percentOf(part, whole, digits = 1) {
  if (whole === 0) return '0%';
  const value = (part / whole) * 100;
  return `${Number(value.toFixed(digits))}%`;
}

export function clamp(value, lo, hi) {
  return Math.min(hi, Math.max(lo, value));
}
""",
        "src/stats.js": """export function completionLabel(done, total) {
  return `${done}/${total}`;
}
""",
    },
    target="src/stats.js",
    instruction="add the percentage after the count, like '3/8 (37.5%)', using the percent helper we have",
    edit=[("export function completionLabel", "import { percentOf } from './math.js';\n\nexport function "
           "completionLabel"),
          ("  return `${done}/${total}`;\n", "  return `${done}/${total} (${percentOf(done, total)})`;\n")],
    test_file="_check.mjs",
    test="""import assert from 'node:assert';
import { completionLabel } from './src/stats.js';

assert.strictEqual(completionLabel(3, 8), '3/8 (37.5%)');
assert.strictEqual(completionLabel(1, 3), '1/3 (33.3%)');
assert.strictEqual(completionLabel(0, 0), '0/0 (0%)');
""",
)

# ---------------------------------------------------------------- a constant (ESM)

task(
    id="js-session-ttl",
    files={
        "package.json": ESM_PACKAGE % "auth",
        "src/constants.js": """// Values the whole app agrees on.
export const SESSION_TTL_SECONDS = 45 * 60;
export const REFRESH_WINDOW_SECONDS = 5 * 60;
export const COOKIE_NAME = 'sid';
""",
        "src/session.js": """export function createSession(userId, nowSeconds) {
  return { userId, createdAt: nowSeconds };
}

export function isExpired(session, nowSeconds) {
  return nowSeconds - session.createdAt > 3600;
}
""",
    },
    target="src/session.js",
    instruction="isExpired should use the session lifetime we define in the constants module",
    edit=[("export function createSession", "import { SESSION_TTL_SECONDS } from './constants.js';\n\n"
           "export function createSession"),
          ("  return nowSeconds - session.createdAt > 3600;\n",
           "  return nowSeconds - session.createdAt > SESSION_TTL_SECONDS;\n")],
    test_file="_check.mjs",
    test="""import assert from 'node:assert';
import { createSession, isExpired } from './src/session.js';

const s = createSession(1, 1000);
assert.strictEqual(isExpired(s, 1000 + 2700), false);
assert.strictEqual(isExpired(s, 1000 + 2701), true);
assert.strictEqual(isExpired(s, 1000 + 3000), true);
""",
)

# ---------------------------------------------------------------- an error class with arguments (ESM)

task(
    id="js-get-item-not-found",
    files={
        "package.json": ESM_PACKAGE % "items-api",
        "src/errors.js": """// HTTP errors the router knows how to send.
export class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// new NotFoundError(resource, id): the thing asked for does not exist.
export class NotFoundError extends HttpError {
  constructor(resource, id) {
    super(404, `${resource} ${id} not found`);
    this.resource = resource;
    this.id = id;
  }
}
""",
        "src/routes/items.js": """export function getItem(store, id) {
  return store.get(id);
}

export function listItems(store) {
  return [...store.values()];
}
""",
    },
    target="src/routes/items.js",
    instruction="getItem should throw the not-found error from our errors module (resource 'item') when "
                "the id isn't in the store",
    edit=[("export function getItem(store, id) {\n  return store.get(id);\n",
           "import { NotFoundError } from '../errors.js';\n\nexport function getItem(store, id) {\n"
           "  if (!store.has(id)) throw new NotFoundError('item', id);\n  return store.get(id);\n")],
    test_file="_check.mjs",
    test="""import assert from 'node:assert';
import { NotFoundError } from './src/errors.js';
import { getItem } from './src/routes/items.js';

const store = new Map([[1, { id: 1 }]]);
assert.deepStrictEqual(getItem(store, 1), { id: 1 });
assert.throws(() => getItem(store, 9),
  (e) => e instanceof NotFoundError && e.status === 404 && e.resource === 'item' && e.id === 9);
""",
)

# ---------------------------------------------------------------- a model's getter

task(
    id="js-comment-display-name",
    files={
        "src/models/user.js": """'use strict';

class User {
  constructor({ id, givenName, familyName, email }) {
    this.id = id;
    this.givenName = givenName;
    this.familyName = familyName;
    this.email = email;
  }

  // How we show a person to other users: given name and family initial ('Ada L.'), never the email.
  get displayName() {
    return `${this.givenName} ${this.familyName.charAt(0)}.`;
  }
}

module.exports = { User };
""",
        "src/comments.js": """'use strict';

function renderComment(comment) {
  return `<p class="comment"><b>${comment.author.email}</b>: ${comment.text}</p>`;
}

module.exports = { renderComment };
""",
    },
    target="src/comments.js",
    instruction="don't show the author's email on comments, show their display name",
    edit=[("${comment.author.email}", "${comment.author.displayName}")],
    test="""const assert = require('assert');
const { User } = require('./src/models/user');
const { renderComment } = require('./src/comments');

const author = new User({ id: 1, givenName: 'Ada', familyName: 'Lovelace', email: 'ada@x.org' });
assert.strictEqual(renderComment({ author, text: 'Hi' }), '<p class="comment"><b>Ada L.</b>: Hi</p>');
""",
)

# ---------------------------------------------------------------- enum values

task(
    id="js-sort-tickets-priority",
    files={
        "src/priority.js": """'use strict';

// Ticket priorities; a higher weight is more urgent. A ticket stores the key ('URGENT').
const Priority = Object.freeze({ LOW: 10, NORMAL: 20, HIGH: 35, URGENT: 50 });

module.exports = { Priority };
""",
        "src/tickets.js": """'use strict';

// The support queue, in the order agents should pick tickets up.
function sortTickets(tickets) {
  return [...tickets].sort((a, b) => a.createdAt - b.createdAt);
}

module.exports = { sortTickets };
""",
    },
    target="src/tickets.js",
    instruction="sortTickets should put the most urgent tickets first by their priority weight, oldest first "
                "within the same priority",
    edit=[("'use strict';\n", "'use strict';\n\nconst { Priority } = require('./priority');\n"),
          ("  return [...tickets].sort((a, b) => a.createdAt - b.createdAt);\n",
           "  return [...tickets].sort((a, b) => Priority[b.priority] - Priority[a.priority] || "
           "a.createdAt - b.createdAt);\n")],
    test="""const assert = require('assert');
const { sortTickets } = require('./src/tickets');

const t = [
  { id: 1, priority: 'LOW', createdAt: 1 }, { id: 2, priority: 'URGENT', createdAt: 5 },
  { id: 3, priority: 'HIGH', createdAt: 2 }, { id: 4, priority: 'NORMAL', createdAt: 3 },
  { id: 5, priority: 'URGENT', createdAt: 4 }, { id: 6, priority: 'HIGH', createdAt: 1 },
];
assert.deepStrictEqual(sortTickets(t).map((x) => x.id), [5, 2, 6, 3, 4, 1]);
""",
)

# ---------------------------------------------------------------- a wrapper with a required option

task(
    id="js-rates-memoize",
    files={
        "src/cache.js": """'use strict';

// memoize(fn, { ttlMs }): caches fn's result per argument list for ttlMs milliseconds. ttlMs is
// required: nothing in this app may be cached forever.
function memoize(fn, { ttlMs, now = Date.now } = {}) {
  if (!(ttlMs > 0)) throw new TypeError('memoize: ttlMs is required');
  const seen = new Map();
  return (...args) => {
    const key = JSON.stringify(args);
    const hit = seen.get(key);
    if (hit && now() - hit.at < ttlMs) return hit.value;
    const value = fn(...args);
    seen.set(key, { value, at: now() });
    return value;
  };
}

module.exports = { memoize };
""",
        "src/rates.js": """'use strict';

const stats = { fetches: 0 };

function fetchRate(code) {
  stats.fetches += 1;
  return { EUR: 0.92, GBP: 0.79, JPY: 151.2 }[code];
}

function getRate(code) {
  return fetchRate(code);
}

module.exports = { getRate, stats };
""",
    },
    target="src/rates.js",
    instruction="getRate hits the rates service every call; cache it for a minute with the memoize "
                "wrapper from our cache module",
    edit=[("'use strict';\n", "'use strict';\n\nconst { memoize } = require('./cache');\n"),
          ("function getRate(code) {\n  return fetchRate(code);\n}\n",
           "const getRate = memoize(fetchRate, { ttlMs: 60 * 1000 });\n")],
    test="""const assert = require('assert');
const realNow = Date.now;
let clock = 1000000;
Date.now = () => clock;
const { getRate, stats } = require('./src/rates');

assert.strictEqual(getRate('EUR'), 0.92);
assert.strictEqual(getRate('EUR'), 0.92);
assert.strictEqual(getRate('GBP'), 0.79);
assert.strictEqual(stats.fetches, 2);
clock += 59000;
getRate('EUR');
assert.strictEqual(stats.fetches, 2);
clock += 2000;
getRate('EUR');
assert.strictEqual(stats.fetches, 3);
Date.now = realNow;
""",
)

# ---------------------------------------------------------------- a validator

task(
    id="js-add-product-sku",
    files={
        "src/validate.js": """'use strict';

// SKUs look like 'ABC-1234': three capitals, a dash, four digits.
const SKU = /^[A-Z]{3}-\\d{4}$/;

function isValidSku(sku) {
  return typeof sku === 'string' && SKU.test(sku);
}

function isPositiveCents(v) {
  return Number.isInteger(v) && v > 0;
}

module.exports = { isValidSku, isPositiveCents };
""",
        "src/catalog.js": """'use strict';

function addProduct(catalog, product) {
  if (catalog.has(product.sku)) {
    throw new Error(`duplicate SKU ${product.sku}`);
  }
  catalog.set(product.sku, product);
  return product;
}

module.exports = { addProduct };
""",
    },
    target="src/catalog.js",
    instruction="addProduct should throw a TypeError for a malformed SKU or a price that isn't a positive "
                "number of cents (product.priceCents); use the validators we have",
    edit=[("'use strict';\n", "'use strict';\n\nconst { isValidSku, isPositiveCents } = require('./validate');\n"),
          ("function addProduct(catalog, product) {\n",
           "function addProduct(catalog, product) {\n  if (!isValidSku(product.sku)) {\n"
           "    throw new TypeError(`bad SKU ${product.sku}`);\n  }\n  if (!isPositiveCents(product.priceCents)) {\n"
           "    throw new TypeError(`bad price ${product.priceCents}`);\n  }\n")],
    test="""const assert = require('assert');
const { addProduct } = require('./src/catalog');

const c = new Map();
addProduct(c, { sku: 'ABC-1234', priceCents: 500 });
assert.strictEqual(c.size, 1);
for (const p of [{ sku: 'abc-1234', priceCents: 5 }, { sku: 'ABCD-123', priceCents: 5 }, { sku: 'AB-12345', priceCents: 5 },
                 { sku: 'XYZ-0001', priceCents: 0 }, { sku: 'XYZ-0002', priceCents: 2.5 }]) {
  assert.throws(() => addProduct(c, p), TypeError, JSON.stringify(p));
}
assert.strictEqual(c.size, 1);
assert.throws(() => addProduct(c, { sku: 'ABC-1234', priceCents: 9 }), /duplicate/);
""",
)

# ---------------------------------------------------------------- event names (ESM)

task(
    id="js-checkout-event",
    files={
        "package.json": ESM_PACKAGE % "checkout",
        "src/events.js": """// Event names on the app's bus; listeners subscribe by these, so never spell them inline.
export const EVENTS = Object.freeze({
  ORDER_PLACED: 'order/placed',
  ORDER_CANCELLED: 'order/cancelled',
  PAYMENT_FAILED: 'payment/failed',
});
""",
        "src/checkout.js": """export function placeOrder(bus, cart, orders) {
  const order = { id: orders.length + 1, lines: cart.lines, total: cart.total };
  orders.push(order);
  return order;
}
""",
    },
    target="src/checkout.js",
    instruction="after the order is stored, emit our order-placed event on the bus with the order as the "
                "payload",
    edit=[("export function placeOrder", "import { EVENTS } from './events.js';\n\nexport function placeOrder"),
          ("  orders.push(order);\n", "  orders.push(order);\n  bus.emit(EVENTS.ORDER_PLACED, order);\n")],
    test_file="_check.mjs",
    test="""import assert from 'node:assert';
import { EventEmitter } from 'node:events';
import { placeOrder } from './src/checkout.js';

const bus = new EventEmitter();
const seen = [];
bus.on('order/placed', (o) => seen.push(o));
const orders = [];
const o = placeOrder(bus, { lines: [1], total: 5 }, orders);
assert.strictEqual(orders.length, 1);
assert.deepStrictEqual(seen, [o]);
""",
)

# ---------------------------------------------------------------- a path helper's options

task(
    id="js-profile-link-path",
    files={
        "src/routes.js": """'use strict';

// Every URL in the app is built here so the router and the links agree.
function userPath(id, { tab } = {}) {
  const base = `/people/${encodeURIComponent(id)}`;
  return tab ? `${base}/${tab}` : base;
}

function postPath(slug) {
  return `/p/${slug}`;
}

module.exports = { userPath, postPath };
""",
        "src/components/link.js": """'use strict';

function profileLink(user) {
  return `<a href="/users/${user.id}">${user.name}</a>`;
}

module.exports = { profileLink };
""",
    },
    target="src/components/link.js",
    instruction="profileLink's URL is out of date: build it with the route helper, and link to the user's "
                "posts tab",
    edit=[("'use strict';\n", "'use strict';\n\nconst { userPath } = require('../routes');\n"),
          ('href="/users/${user.id}"', "href=\"${userPath(user.id, { tab: 'posts' })}\"")],
    test="""const assert = require('assert');
const { profileLink } = require('./src/components/link');

assert.strictEqual(profileLink({ id: 'ann b', name: 'Ann' }), '<a href="/people/ann%20b/posts">Ann</a>');
assert.strictEqual(profileLink({ id: 7, name: 'Bo' }), '<a href="/people/7/posts">Bo</a>');
""",
)
