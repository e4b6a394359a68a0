'use strict';

const EventEmitter = require('events');

/**
 * A tiny router: routes are matched in the order they were added.
 */
class Router extends EventEmitter {
  constructor(prefix = '') {
    super();
    this.prefix = prefix;
    this.routes = [];
  }

  add(method, path, handler) {
    const keys = [];
    const pattern = path.replace(/:(\w+)/g, (_, key) => {
      keys.push(key);
      return '([^/]+)';
    });
    this.routes.push({ method, regex: new RegExp(`^${this.prefix}${pattern}$`), keys, handler });
    return this;
  }

  async handle(req, res) {
    for (const route of this.routes) {
      if (route.method !== req.method) continue;
      const match = route.regex.exec(req.url);
      if (!match) {
        continue;
      }
      const params = Object.fromEntries(route.keys.map((k, i) => [k, decodeURIComponent(match[i + 1])]));
      try {
        await route.handler({ ...req, params }, res);
      } catch (err) {
        this.emit('error', err);
        res.statusCode = 500;
        res.end(`Internal error: ${err.message}`);
      }
      return true;
    }
    return false;
  }
}

function logger(format = 'short') {
  return (req, res, next) => {
    const started = Date.now();
    res.on('finish', () => {
      const ms = Date.now() - started;
      console.log(format === 'short' ? `${req.method} ${req.url} ${ms}ms` : JSON.stringify({ url: req.url, ms }));
    });
    next();
  };
}

module.exports = { Router, logger };
