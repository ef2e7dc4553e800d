'use strict';
// PouchDB, an independent implementation of the CouchDB replication protocol, driven line by line
// on stdin by tests/sync/test_pouchdb.py and bench/sync.py: one JSON command a line, one JSON
// answer a line on stdout.
//
//   {"op": "pull", "url": URL, "db": NAME, "tls": TLS?, "batch_size": N?}  remote -> memory
//     (any command with a remote URL may say "fetch": "pouchdb": PouchDB's own fetch, no TLS)
//   {"op": "push", "url": URL, "db": NAME, "tls": TLS?, "batch_size": N?}  memory -> remote
//   {"op": "docs", "db": NAME, "include_docs": BOOL?}  the in-memory db's ids and _revs (docs)
//   {"op": "get", "url": URL, "tls": TLS?}  one GET (status and JSON body, or the error)
//   {"op": "load", "url": URL, "file": PATH, "batch": N}  NDJSON docs -> remote, new_edits false
//   {"op": "destroy", "db": NAME}          drop an in-memory db
//   {"op": "quit"}
//
// TLS is {"cert": PATH, "key": PATH, "ca": PATH} (each optional): a station's certificate, its
// key and the hall's CA. PouchDB's http adapter is given a `fetch` built on undici's, whose Agent presents
// the certificate (mutual TLS) and checks the server's against the CA.

const fs = require('fs');
const readline = require('readline');
const { Agent, fetch: undiciFetch } = require('undici');
const PouchDB = require('pouchdb-core')
  .plugin(require('pouchdb-adapter-memory'))
  .plugin(require('pouchdb-adapter-http'))
  .plugin(require('pouchdb-replication'));

const agents = new Map();

function agentFor(tls) {
  const key = JSON.stringify(tls || null);
  if (!agents.has(key)) {
    const connect = {};
    for (const name of ['cert', 'key', 'ca']) {
      if (tls && tls[name]) connect[name] = fs.readFileSync(tls[name]);
    }
    agents.set(key, new Agent({ connect, connections: 64 }));
  }
  return agents.get(key);
}

// PouchDB hands fetch node-fetch Headers; undici wants a plain HeadersInit.
function plainHeaders(headers) {
  if (!headers || typeof headers.forEach !== 'function') return headers;
  const out = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

// What the replicator asked of the remote during one command: "METHOD /path" -> count, and the
// new_edits flag of every _bulk_docs body.
let requests = {};
let newEdits = [];

function record(url, options) {
  const path = new URL(url).pathname.replace(/\/_local\/.*/, '/_local/ID');
  const key = `${options.method || 'GET'} ${path}`;
  requests[key] = (requests[key] || 0) + 1;
  if (path.endsWith('/_bulk_docs') && typeof options.body === 'string') {
    newEdits.push(JSON.parse(options.body).new_edits);
  }
}

function tlsFetch(tls) {
  const dispatcher = agentFor(tls);
  return (url, options = {}) => {
    record(url, options);
    return undiciFetch(url, { ...options, headers: plainHeaders(options.headers), dispatcher });
  };
}

function remote(command) {
  // "fetch": "pouchdb" keeps PouchDB's own fetch (node-fetch): plain HTTP only
  if (command.fetch === 'pouchdb') return new PouchDB(command.url);
  return new PouchDB(command.url, { fetch: tlsFetch(command.tls) });
}

function local(command) {
  return new PouchDB(command.db || 'pouch', { adapter: 'memory' });
}

function seconds(started) {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function summary(result, started) {
  return {
    ok: result.ok,
    status: result.status,
    docs_read: result.docs_read,
    docs_written: result.docs_written,
    doc_write_failures: result.doc_write_failures,
    errors: (result.errors || []).map(String),
    last_seq: result.last_seq,
    seconds: seconds(started),
  };
}

async function replicate(source, target, command) {
  const started = process.hrtime.bigint();
  const result = await PouchDB.replicate(source, target, {
    batch_size: command.batch_size || 100,
    batches_limit: command.batches_limit || 10,
  });
  return summary(result, started);
}

const ops = {
  async pull(command) {
    return replicate(remote(command), local(command), command);
  },

  async push(command) {
    return replicate(local(command), remote(command), command);
  },

  async docs(command) {
    const all = await local(command).allDocs({ include_docs: Boolean(command.include_docs) });
    const revs = {};
    for (const row of all.rows) revs[row.id] = row.value.rev;
    const answer = { count: all.rows.length, revs };
    if (command.include_docs) answer.docs = all.rows.map((row) => row.doc);
    return answer;
  },

  async destroy(command) {
    await local(command).destroy();
    return {};
  },

  async get(command) {
    try {
      const response = await tlsFetch(command.tls)(command.url, {
        headers: { Accept: 'application/json' },
      });
      return { status: response.status, body: await response.json() };
    } catch (error) {
      const cause = error.cause || {};
      return { failed: true, error: String(error), cause: String(cause.code || cause.message || cause) };
    }
  },

  async load(command) {
    const db = remote(command);
    const lines = fs.readFileSync(command.file, 'utf8').split('\n').filter(Boolean);
    const started = process.hrtime.bigint();
    let written = 0;
    for (let i = 0; i < lines.length; i += command.batch || 1000) {
      const docs = lines.slice(i, i + (command.batch || 1000)).map((line) => JSON.parse(line));
      const errors = (await db.bulkDocs(docs, { new_edits: false })).filter((r) => r.error);
      if (errors.length) throw new Error(`load refused: ${JSON.stringify(errors[0])}`);
      written += docs.length;
    }
    return { written, info: await db.info(), seconds: seconds(started) };
  },
};

async function main() {
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const command = JSON.parse(line);
    if (command.op === 'quit') break;
    let answer;
    requests = {};
    newEdits = [];
    try {
      if (!ops[command.op]) throw new Error(`unknown op ${command.op}`);
      answer = { op: command.op, ...(await ops[command.op](command)) };
    } catch (error) {
      const cause = (error && error.cause) || {};
      answer = {
        op: command.op,
        failed: true,
        error: String(error && (error.stack || error)),
        cause: String(cause.code || cause.message || ''),
      };
    }
    answer.requests = requests;
    answer.new_edits = newEdits;
    process.stdout.write(JSON.stringify(answer) + '\n');
  }
  await Promise.all([...agents.values()].map((agent) => agent.close()));
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(String(error && error.stack) + '\n');
    process.exit(1);
  },
);
