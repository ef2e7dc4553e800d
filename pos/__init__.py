"""Booth's point-of-sale core: domain rules, the signed ledger, services and the CLI."""

__version__ = "0.2.0"
