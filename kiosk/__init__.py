"""Kivy front ends for the three station roles. Screens call services; no rules, no SQL here."""
