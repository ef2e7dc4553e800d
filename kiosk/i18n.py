"""The player's language on the kiosk's player screens (staff screens stay in English).

gettext catalogs: kiosk/locale/LANG/LC_MESSAGES/booth.po, compiled to booth.mo (shipped in the
wheel; `python -m kiosk.i18n` compiles them again, and a test checks the .mo files match their
.po). The language is the kiosk's current player's choice, set on the idle screen and forgotten
with the player. No Kivy here."""

from __future__ import annotations

import ast
import gettext
import struct
import sys
from pathlib import Path

DOMAIN = "booth"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES = {"en": "English", "es": "Español"}
DEFAULT = "en"

_current = DEFAULT
_catalogs: dict[str, gettext.NullTranslations] = {}


def set_language(code: str) -> None:
    global _current
    if code not in LANGUAGES:
        raise ValueError(f"language {code!r} is not one of {', '.join(LANGUAGES)}")
    _current = code


def language() -> str:
    return _current


def _catalog(code: str) -> gettext.NullTranslations:
    if code not in _catalogs:
        _catalogs[code] = gettext.translation(
            DOMAIN, localedir=str(LOCALE_DIR), languages=[code], fallback=True
        )
    return _catalogs[code]


def _(text: str) -> str:
    """`text` in the player's language (English when no catalog has it)."""
    if _current == DEFAULT:
        return text
    return _catalog(_current).gettext(text)


def other_language() -> str:
    """The language the idle screen's button switches to."""
    return "es" if _current == "en" else "en"


# -- compiling .po to .mo (the msgfmt subset the catalogs use) -------------------------------------


def parse_po(text: str) -> dict[str, str]:
    """msgid -> msgstr of a .po file (plain entries, multi-line strings; no plurals, no
    contexts); the header (msgid "") is kept."""
    entries: dict[str, str] = {}
    key: str | None = None
    current: list[str] = []
    msgid = ""
    for raw in [*text.splitlines(), ""]:
        line = raw.strip()
        if line.startswith("msgid "):
            key, current = "id", [line[6:]]
        elif line.startswith("msgstr "):
            msgid = "".join(ast.literal_eval(s) for s in current)
            key, current = "str", [line[7:]]
        elif line.startswith('"') and key is not None:
            current.append(line)
        elif key == "str":
            value = "".join(ast.literal_eval(s) for s in current)
            if value or msgid == "":
                entries[msgid] = value
            key, current = None, []
    return entries


def compile_mo(entries: dict[str, str]) -> bytes:
    """GNU .mo bytes for `entries` (sorted by msgid, no hash table)."""
    keys = sorted(entries)
    ids = [k.encode() for k in keys]
    strs = [entries[k].encode() for k in keys]
    count = len(keys)
    start = 7 * 4 + 16 * count
    id_table, str_table, blob = [], [], b""
    for encoded in ids:
        id_table.append((len(encoded), start + len(blob)))
        blob += encoded + b"\0"
    for encoded in strs:
        str_table.append((len(encoded), start + len(blob)))
        blob += encoded + b"\0"
    header = struct.pack("<7I", 0x950412DE, 0, count, 28, 28 + 8 * count, 0, 0)
    tables = b"".join(struct.pack("<2I", *p) for p in id_table + str_table)
    return header + tables + blob


def compile_all() -> list[Path]:
    written = []
    for po in sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        mo = po.with_suffix(".mo")
        mo.write_bytes(compile_mo(parse_po(po.read_text(encoding="utf-8"))))
        written.append(mo)
    return written


if __name__ == "__main__":
    for path in compile_all():
        sys.stdout.write(f"{path}\n")
