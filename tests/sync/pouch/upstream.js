'use strict';
// A head-office CouchDB stand-in for tests/sync/test_upstream.py: pouchdb-server 4.2's
// express-pouchdb (PouchDB 7, in memory) behind Node's HTTPS server and HTTP basic auth.
//
//   UPSTREAM_USER=NAME UPSTREAM_PASSWORD=SECRET node upstream.js PORT CERT.pem KEY.pem
//
// Listens on 127.0.0.1:PORT and prints one line, {"ready": true, "port": PORT}, when it does.
// A request without the right credentials is answered 401 with CouchDB's JSON error.

const fs = require('fs');
const https = require('https');
const path = require('path');
const crypto = require('crypto');
const express = require('express');

// pouchdb-server's own PouchDB (7.x, nested under it), as `pouchdb-server --in-memory` runs it.
const server = path.dirname(require.resolve('pouchdb-server/package.json'));
const fromServer = (name) => require(require.resolve(name, { paths: [server] }));
const PouchDB = fromServer('pouchdb-core')
  .plugin(fromServer('pouchdb-adapter-memory'))
  .plugin(fromServer('pouchdb-adapter-http'))
  .plugin(fromServer('pouchdb-replication'))
  .plugin(fromServer('pouchdb-mapreduce'));
const expressPouchDB = fromServer('express-pouchdb');

const [port, certFile, keyFile] = process.argv.slice(2);
const user = process.env.UPSTREAM_USER;
const password = process.env.UPSTREAM_PASSWORD;
if (!port || !certFile || !keyFile || !user || !password) {
  process.stderr.write('usage: UPSTREAM_USER=.. UPSTREAM_PASSWORD=.. node upstream.js PORT CERT KEY\n');
  process.exit(2);
}

const expected = Buffer.from(`Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`);

function authorised(header) {
  const given = Buffer.from(header || '');
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

// What the client asked, for the test to read: "METHOD /path" -> count (_local ids collapsed).
const requests = {};

const app = express();
app.use((req, res, next) => {
  const key = `${req.method} ${req.path.replace(/\/_local\/.*/, '/_local/ID')}`;
  requests[key] = (requests[key] || 0) + 1;
  if (!authorised(req.headers.authorization)) {
    res.status(401);
    res.set('WWW-Authenticate', 'Basic realm="head office"');
    res.json({ error: 'unauthorized', reason: 'Name or password is incorrect.' });
    return;
  }
  next();
});
app.get('/_test/requests', (req, res) => res.json(requests));
app.use(expressPouchDB(PouchDB.defaults({ adapter: 'memory' }), {
  mode: 'minimumForPouchDB',
}));

const httpsServer = https.createServer(
  { cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) },
  app,
);
httpsServer.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ ready: true, port: httpsServer.address().port })}\n`);
});
process.on('SIGTERM', () => httpsServer.close(() => process.exit(0)));
