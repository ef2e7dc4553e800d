"""X.509 certificates for mutual TLS between stations, from the same Ed25519 keys.

The hall's key signs a CA certificate; each station's key gets a certificate from it naming the
station (CN) and the hall (O). A peer presenting a certificate not issued by this hall's CA
cannot complete a TLS handshake, so it reads and writes nothing.
"""

from __future__ import annotations

import datetime
import ipaddress

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.types import CertificatePublicKeyTypes
from cryptography.x509.oid import NameOID

from pos.ledger.keys import StationKey

VALID_DAYS = 3650
CA_FILE = "hall-ca.pem"
CERT_FILE = "station-cert.pem"
KEY_FILE = "station-key.pem"


def _private(key: StationKey) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(key.to_hex()))


def hall_name(common: str, hall: str) -> x509.Name:
    """A certificate name of the hall: its common name and the hall as organisation."""
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, hall),
        ]
    )


def ca_builder(
    common: str,
    hall: str,
    public_key: CertificatePublicKeyTypes,
    now: datetime.datetime,
    *,
    days: int,
    serial: int,
    digital_signature: bool,
) -> x509.CertificateBuilder:
    """A self-signed certificate authority of the hall, to sign with its key: the replication
    CA (Ed25519) and the web app's (ECDSA P-256, which browsers accept) differ only in these."""
    name = hall_name(common, hall)
    return (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(public_key)
        .serial_number(serial)
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=digital_signature,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
    )


def hall_ca(hall_key: StationKey, hall: str, now: datetime.datetime) -> bytes:
    private = _private(hall_key)
    builder = ca_builder(
        f"booth hall {hall}",
        hall,
        private.public_key(),
        now,
        days=VALID_DAYS,
        serial=1,
        digital_signature=True,
    )
    return builder.sign(private, None).public_bytes(serialization.Encoding.PEM)


def station_cert(
    hall_key: StationKey, hall: str, station: str, station_key_hex: str, now: datetime.datetime
) -> bytes:
    """A certificate for `station`'s public key; any host name or address (stations move)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(station_key_hex))
    cert = (
        x509.CertificateBuilder()
        .subject_name(hall_name(station, hall))
        .issuer_name(hall_name(f"booth hall {hall}", hall))
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName(f"{station}.booth.local"),
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                ]
            ),
            critical=False,
        )
        .add_extension(
            x509.ExtendedKeyUsage(
                [
                    x509.oid.ExtendedKeyUsageOID.SERVER_AUTH,
                    x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH,
                ]
            ),
            critical=False,
        )
        .sign(_private(hall_key), None)
    )
    return cert.public_bytes(serialization.Encoding.PEM)


def key_pem(key: StationKey) -> bytes:
    return _private(key).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def subject(cert_pem: bytes) -> tuple[str, str]:
    """(station, hall) named by a certificate."""
    cert = x509.load_pem_x509_certificate(cert_pem)
    common = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    org = cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)
    return str(common[0].value), str(org[0].value)
