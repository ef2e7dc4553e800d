#!/usr/bin/env bash
# Build booth_VERSION_all.deb from Booth's wheel and this packaging directory, with dpkg-deb
# from a staged tree (no debhelper, no build of Python code: the wheel is already built).
#
#   packaging/deb/build-deb.sh --wheel dist/booth-0.1.0-py3-none-any.whl --out dist
#
# The package carries the wheel, install.sh and its files, and the guides, under
# /usr/share/booth; apt brings the Debian packages it Depends on. Its postinst runs install.sh
# (user, virtualenv, units...; pip fetches Booth's Python dependencies then, or see
# --wheelhouse); `sudo booth-install --role kiosk --bundle FILE` then joins the station.
# Removing the package runs uninstall.sh: the ledger in /var/lib/booth stays.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PACKAGING=$(dirname "$HERE")
SOURCE=$(dirname "$PACKAGING")
WHEEL=""
OUT=""
while [ $# -gt 0 ]; do
    case $1 in
        --wheel) WHEEL=${2:?}; shift ;;
        --out) OUT=${2:?}; shift ;;
        *) echo "usage: build-deb.sh --wheel FILE --out DIR" >&2; exit 2 ;;
    esac
    shift
done
if [ ! -f "$WHEEL" ] || [ -z "$OUT" ]; then
    echo "usage: build-deb.sh --wheel FILE --out DIR" >&2
    exit 2
fi
name=$(basename "$WHEEL")
version=$(echo "$name" | cut -d- -f2)
mkdir -p "$OUT"
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

share=$STAGE/usr/share/booth
mkdir -p "$share/docs" "$STAGE/DEBIAN" "$STAGE/usr/sbin" "$STAGE/usr/share/doc/booth"
cp "$WHEEL" "$share/"
install -m 0755 "$PACKAGING/install.sh" "$PACKAGING/uninstall.sh" "$share/"
cp -r "$PACKAGING/systemd" "$PACKAGING/udev" "$PACKAGING/kiosk" "$PACKAGING/logrotate" \
    "$PACKAGING/timesync" "$share/"
chmod 0755 "$share/kiosk/booth-kiosk-session"
cp "$SOURCE"/docs/*.md "$share/docs/"
ln -s ../share/booth/install.sh "$STAGE/usr/sbin/booth-install"
cat >"$STAGE/usr/share/doc/booth/copyright" <<COPY
Booth: point of sale for charitable gaming halls.
License: MIT (see the wheel's metadata). Its Python dependencies are installed by pip into
/opt/booth/venv, each under its own license.
COPY
# Reproducible: every file dated from the last commit (or 2026-01-01), owned by root.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$SOURCE" log -1 --format=%ct 2>/dev/null || echo 1767225600)}
size=$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)

cat >"$STAGE/DEBIAN/control" <<CONTROL
Package: booth
Version: $version-1
Architecture: all
Maintainer: Booth developers <booth@localhost>
Installed-Size: $size
Depends: python3 (>= 3.11), python3-venv, python3-pip, libusb-1.0-0, libmtdev1, libgl1, libegl1, libgles2, libgbm1, libdrm2, logrotate, util-linux, passwd, systemd, udev
Recommends: ca-certificates
Suggests: lightdm, xserver-xorg, x11-xserver-utils, chrony
Section: misc
Priority: optional
Description: point of sale for charitable gaming halls
 Booth sells pull-tabs and seal cards and rents electronic bingo devices at the
 booth, at self-service kiosks and on the manager's station; every station keeps
 its own signed ledger and keeps working when the network is down.
 .
 This package installs Booth into /opt/booth with its systemd unit, udev rules
 for receipt printers and barcode scanners, log rotation and the kiosk session.
CONTROL

# Both scripts honour DPKG_ROOT (dpkg --root DIR --force-script-chrootless: an image prepared
# in a directory, or the release test's throwaway root): install.sh and uninstall.sh --root.
cat >"$STAGE/DEBIAN/postinst" <<POSTINST
#!/bin/sh
# Booth: run the installer (idempotent); the role and the join bundle come later, from
# 'booth-install --role ROLE --bundle FILE' (or they are kept from an earlier installation).
set -e
if [ "\$1" = configure ]; then
    "\${DPKG_ROOT:-}"/usr/share/booth/install.sh --non-interactive --no-packages \\
        --wheel "\${DPKG_ROOT:-}/usr/share/booth/$name" \${DPKG_ROOT:+--root "\$DPKG_ROOT"}
fi
POSTINST
cat >"$STAGE/DEBIAN/prerm" <<'PRERM'
#!/bin/sh
# Booth: on removal, stop the station and remove what install.sh wrote; the ledger stays.
set -e
if [ "$1" = remove ]; then
    "${DPKG_ROOT:-}"/usr/share/booth/uninstall.sh ${DPKG_ROOT:+--root "$DPKG_ROOT"}
fi
PRERM
chmod 0755 "$STAGE/DEBIAN/postinst" "$STAGE/DEBIAN/prerm"
find "$STAGE" -exec touch -h -d "@$epoch" {} +
chmod -R u+rwX,go+rX,go-w "$STAGE"
deb=$OUT/booth_${version}-1_all.deb
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$deb" >/dev/null
echo "$deb"
