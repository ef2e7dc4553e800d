"""Adapters for receipt printers, scanners, cash drawers and dispensers, each with a fake."""
