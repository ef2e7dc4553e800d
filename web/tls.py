"""The web app's certificates. Phones' browsers do not take the hall's Ed25519 certificates
(Chromium has no Ed25519 in TLS), so the hall's web certificate authority is an ECDSA P-256 key
derived from the hall's key (HKDF): only a station holding the hall's key can issue, and every
such station issues under the same authority. Its certificate is made once and kept
(tls/web-ca.pem), so its fingerprint, which the phone is told to check, stays the same.

Phones install that certificate (its public part: the CA's key is never stored, it is derived
from the hall's key when a server certificate is issued) from CA_ROUTE on the web app.
"""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from pos.clock import Clock, SystemClock
from pos.errors import NotPermitted
from pos.ledger.x509 import ca_builder, hall_name
from pos.services.station import HALL_KEY_FILE, TLS_DIR, make_private_dir, write_private

WEB_CA_FILE = "web-ca.pem"
#: where the web app serves the CA's certificate to anyone, and the file name a phone keeps
CA_ROUTE = "/hall-ca.crt"
CA_FILE_NAME = "hall-ca.crt"
WEB_CERT_FILE = "web-cert.pem"
WEB_KEY_FILE = "web-key.pem"
CA_DAYS = 3650
SERVER_DAYS = 397  # browsers refuse server certificates valid for longer
RENEW_DAYS = 30
_P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def _ca_key(hall_key_hex: str) -> ec.EllipticCurvePrivateKey:
    secret = HKDF(algorithm=hashes.SHA256(), length=48, salt=b"booth web ca", info=b"p-256").derive(
        bytes.fromhex(hall_key_hex.strip())
    )
    scalar = int.from_bytes(secret, "big") % (_P256_ORDER - 1) + 1
    return ec.derive_private_key(scalar, ec.SECP256R1())


def fingerprint(pem: bytes) -> str:
    """SHA-256 of the certificate, as browsers show it (AA:BB:...)."""
    der = x509.load_pem_x509_certificate(pem).public_bytes(serialization.Encoding.DER)
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


def common_name(pem: bytes) -> str:
    """The certificate's name, as a phone lists it among its trusted certificates."""
    names = x509.load_pem_x509_certificate(pem).subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[0].value) if names else ""


def _hall_key(directory: Path) -> str:
    try:
        return (directory / HALL_KEY_FILE).read_text()
    except FileNotFoundError:
        raise NotPermitted(
            "this station holds no hall key, so it cannot issue the web app's certificate: "
            "serve the web app from the manager station (the one 'booth init' made)"
        ) from None


def web_ca(directory: Path, hall: str, clock: Clock | None = None) -> bytes:
    """The hall's web CA certificate (made once, then read)."""
    tls = directory / TLS_DIR
    path = tls / WEB_CA_FILE
    if path.exists():
        return path.read_bytes()
    key = _ca_key(_hall_key(directory))
    now = (clock or SystemClock()).now()
    cert = (
        ca_builder(
            f"booth hall {hall} web",
            hall,
            key.public_key(),
            now,
            days=CA_DAYS,
            serial=x509.random_serial_number(),
            digital_signature=False,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .sign(key, hashes.SHA256())
    )
    pem = cert.public_bytes(serialization.Encoding.PEM)
    make_private_dir(tls)
    write_private(path, pem.decode(), 0o644)
    return pem


def _names(host: str, station: str) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = [
        x509.DNSName(f"{station}.booth.local"),
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
    ]
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        if host and host not in ("localhost", f"{station}.booth.local"):
            names.append(x509.DNSName(host))
    else:
        if str(address) != "127.0.0.1" and not address.is_unspecified:
            names.append(x509.IPAddress(address))
    return names


def server_files(
    directory: Path, hall: str, station: str, host: str, clock: Clock | None = None
) -> tuple[Path, Path]:
    """(certificate chain, key) for serving on `host`: issued by the hall's web CA, renewed
    when it does not name `host` or ends within 30 days."""
    tls = directory / TLS_DIR
    cert_path, key_path = tls / WEB_CERT_FILE, tls / WEB_KEY_FILE
    now = (clock or SystemClock()).now()
    ca_pem = web_ca(directory, hall, clock)
    wanted = _names(host, station)
    if cert_path.exists() and key_path.exists():
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        fresh = cert.not_valid_after_utc - now > datetime.timedelta(days=RENEW_DAYS)
        if fresh and all(name in sans for name in wanted):
            return cert_path, key_path
    ca_key = _ca_key(_hall_key(directory))
    ca_cert = x509.load_pem_x509_certificate(ca_pem)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(hall_name(f"{station}.booth.local", hall))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=SERVER_DAYS))
        .add_extension(x509.SubjectAlternativeName(wanted), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    make_private_dir(tls)
    write_private(
        key_path,
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode(),
    )
    write_private(
        cert_path, (cert.public_bytes(serialization.Encoding.PEM) + ca_pem).decode(), 0o644
    )
    return cert_path, key_path
