"""The head office for the tests: tests/sync/pouch/upstream.js (pouchdb-server: express-pouchdb,
PouchDB 7 in memory) behind Node's HTTPS server and HTTP basic auth, with a certificate for
127.0.0.1 issued by a private CA made here. Needs node and `npm ci` in tests/sync/pouch."""

from __future__ import annotations

import base64
import ipaddress
import json
import os
import select
import shutil
import ssl
import subprocess
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.sync.conftest import free_port

POUCH_DIR = Path(__file__).resolve().parent / "pouch"
NODE = shutil.which("node")
USER = "hall-pusher"
PASSWORD = "correct horse battery staple"


# --- a private CA and the head office's certificate for 127.0.0.1 -----------------------------


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def make_tls(directory: Path) -> dict[str, Path]:
    """ca.pem (a private head-office CA), and cert.pem/key.pem it issued for IP 127.0.0.1."""
    directory.mkdir(parents=True)
    now = datetime.now(UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("Head Office Test CA"))
        .issuer_name(_name("Head Office Test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name("couch.head-office.test"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    paths = {name: directory / f"{name}.pem" for name in ("ca", "cert", "key")}
    paths["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths["cert"].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths["key"].write_bytes(_pem_key(key))
    return paths


# --- the head office: upstream.js in Node ------------------------------------------------------


class HeadOffice:
    """tests/sync/pouch/upstream.js on 127.0.0.1, and a client of it with the right password."""

    def __init__(self, tls: dict[str, Path], log: Path) -> None:
        assert NODE is not None
        self.ca = tls["ca"]
        self.base = f"https://127.0.0.1:{free_port()}"
        self._log = log.open("w")
        self.log_path = log
        self.process = subprocess.Popen(
            [NODE, "upstream.js", self.base.rsplit(":", 1)[1], str(tls["cert"]), str(tls["key"])],
            cwd=POUCH_DIR,
            env={**os.environ, "UPSTREAM_USER": USER, "UPSTREAM_PASSWORD": PASSWORD},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        assert self.process.stdout is not None
        try:
            ready, _, _ = select.select([self.process.stdout], [], [], 30)
            line = self.process.stdout.readline() if ready else ""
        except BaseException:  # e.g. the test timed out: it is ended all the same
            self.stop()
            raise
        if '"ready":true' not in line:
            self.stop()
            raise AssertionError(f"upstream.js did not start: {log.read_text()[-2000:]}")
        self.context = ssl.create_default_context(cafile=str(self.ca))

    def get(self, path: str) -> Any:
        token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        request = urllib.request.Request(
            self.base + path, headers={"Authorization": f"Basic {token}"}
        )
        with urllib.request.urlopen(request, context=self.context, timeout=30) as response:
            return json.loads(response.read())

    def databases(self) -> list[str]:
        names: list[str] = self.get("/_all_dbs")
        return names

    def revs(self, db: str) -> dict[str, str]:
        answer = self.get(f"/{db}/_all_docs")
        return {row["id"]: row["value"]["rev"] for row in answer["rows"]}

    def requests(self) -> dict[str, int]:
        counts: dict[str, int] = self.get("/_test/requests")
        return counts

    def send(self, method: str, path: str, body: Any = None) -> Any:
        """Write to the head office directly, as a test plants documents."""
        token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.base + path,
            data=data,
            method=method,
            headers={"Authorization": f"Basic {token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, context=self.context, timeout=30) as response:
            return json.loads(response.read())

    def plant(self, db: str, documents: list[dict[str, Any]]) -> None:
        """Store documents as they are (`new_edits: false`), in a new database."""
        self.send("PUT", f"/{db}")
        answer = self.send("POST", f"/{db}/_bulk_docs", {"docs": documents, "new_edits": False})
        assert not [row for row in answer if "error" in row], answer

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._log.close()


def require_node() -> None:
    """Skip (fail under CI) where node or tests/sync/pouch's node_modules is missing."""
    if NODE is None or not (POUCH_DIR / "node_modules" / "pouchdb-server").is_dir():
        reason = "needs node and `npm ci` in tests/sync/pouch (as .ci/run does)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
