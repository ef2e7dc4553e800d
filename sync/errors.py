"""The sync package's exceptions (all are pos BoothErrors, so the CLI maps them to exit codes)."""

from __future__ import annotations

from pos.errors import BadInput, BoothError


class SyncError(BoothError):
    """A peer could not be reached or answered wrongly (exit 3: network failure)."""

    exit_code = 3


class PeerUnreachable(SyncError):
    pass


class PeerRefused(SyncError):
    """The peer refused us (TLS handshake, another hall's certificate) or answered an error."""


class BadDocument(BadInput):
    """A replicated document that is not a Booth event."""

    def __init__(self, message: str) -> None:
        super().__init__("doc", message)


class UpstreamUnreachable(SyncError):
    """The head-office CouchDB cannot be reached (refused connection, timeout, no route)."""


class UpstreamRefused(SyncError):
    """The head office refused us: its certificate does not verify, our credentials were
    refused, or it answered an error."""
