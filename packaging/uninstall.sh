#!/usr/bin/env bash
# Remove Booth from this machine, keeping the ledger.
#
#   sudo ./uninstall.sh [--prefix /opt/booth] [--root DIR]
#
# Stops and disables booth@*.service, then removes what install.sh wrote, as listed in
# PREFIX/share/installed-files.sha256: a file changed since (its SHA-256 differs, e.g. an edited
# /etc/default/booth) is kept and named. Removes the virtualenv and PREFIX.
#
# Kept: /var/lib/booth (the station: its ledger and its keys), /var/log/booth, and the booth
# user and group that own them. Back the station up (booth backup) before wiping the machine.
set -euo pipefail

ROOT=""
PREFIX=/opt/booth
while [ $# -gt 0 ]; do
    case $1 in
        --prefix) PREFIX=${2:?}; shift ;;
        --root) ROOT=$(cd "${2:?}" && pwd); shift ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "uninstall.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
[ -n "$ROOT" ] || [ "$(id -u)" = 0 ] || { echo "uninstall.sh: run me as root" >&2; exit 2; }

say() { echo "booth uninstall: $*"; }
in_root() { printf '%s%s' "$ROOT" "$1"; }
systemctl_() { if [ -n "$ROOT" ]; then systemctl --root="$ROOT" "$@"; else systemctl "$@"; fi; }

for role in manager booth kiosk; do
    unit=booth@$role.service
    [ -n "$ROOT" ] || systemctl stop "$unit" 2>/dev/null || true
    if systemctl_ is-enabled --quiet "$unit" 2>/dev/null; then
        systemctl_ disable --quiet "$unit"
        say "disabled $unit"
    fi
done

manifest=$(in_root "$PREFIX/share/installed-files.sha256")
if [ -f "$manifest" ]; then
    while read -r first path rest; do
        target=$(in_root "$path")
        if [ "$first" = link ]; then
            [ ! -L "$target" ] || { rm -f "$target"; say "removed $path"; }
        elif [ -f "$target" ]; then
            if [ "$(sha256sum "$target" | cut -d' ' -f1)" = "$first" ]; then
                rm -f "$target"
                say "removed $path"
            else
                say "kept $path: it was changed after installation"
            fi
        fi
        : "$rest"
    done <"$manifest"
else
    say "no $PREFIX/share/installed-files.sha256: removing the known files"
    for path in /etc/systemd/system/booth@.service \
        /etc/systemd/system/booth@.service.d/usb-printer.conf \
        /etc/udev/rules.d/60-booth-hardware.rules /etc/udev/rules.d/61-booth-systemd.rules \
        /etc/logrotate.d/booth /usr/share/xsessions/booth-kiosk.desktop \
        /etc/lightdm/lightdm.conf.d/50-booth-kiosk.conf /usr/local/bin/booth; do
        if [ -e "$(in_root "$path")" ] || [ -L "$(in_root "$path")" ]; then
            rm -f "$(in_root "$path")"
            say "removed $path"
        fi
    done
fi
rmdir "$(in_root /etc/systemd/system/booth@.service.d)" 2>/dev/null || true
rm -rf "$(in_root "$PREFIX")"
say "removed $PREFIX"
if [ -z "$ROOT" ]; then
    systemctl daemon-reload
    udevadm control --reload 2>/dev/null || true
fi
say "kept /var/lib/booth (the station's ledger and keys), /var/log/booth and the booth user"
