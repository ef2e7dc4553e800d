#!/usr/bin/env bash
# Install Booth on a hall's machine: Debian 12 or Raspberry Pi OS (bookworm), run as root.
#
#   sudo ./install.sh                                    # asks the role and the join bundle
#   sudo ./install.sh --role kiosk --bundle /media/stick/kiosk-1.join.json --non-interactive
#
# What it does, in order: system packages (apt), the `booth` user and group, /var/lib/booth
# (the station: ledger and keys) and /var/log/booth, a virtualenv in PREFIX/venv with Booth's
# wheel, the systemd unit, udev rules, logrotate, Kivy's settings, the kiosk session (--display
# x11), `booth join` with the bundle, and the unit enabled for the role.
#
# Idempotent: every file is compared by SHA-256 with what is there and written only when it
# differs (mode and owner likewise); the wheel is reinstalled only when its SHA-256 changed; a
# station that already exists is never joined again. A second run reports "0 changed".
# Every file it wrote is listed with its SHA-256 in PREFIX/share/installed-files.sha256, which
# uninstall.sh reads.
#
# --root DIR installs into DIR instead of / (a throwaway root for tests, or an image being
# prepared): no apt, no running systemd or udev is touched (`systemctl --root` enables units
# offline); DIR/etc/passwd, group, shadow and gshadow must exist (a minimal base system).
set -euo pipefail

HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)  # also via booth-install
ROOT=""
PREFIX=/opt/booth
ROLE=""
BUNDLE=""
INTERACTIVE=1
DISPLAY_MODE=""
PRINTER=""
MANAGER=""
WHEEL=""
PYTHON=python3
PIP_OPTIONS=()
PACKAGES=1
STATE=/var/lib/booth
LOGS=/var/log/booth
ROLES="manager booth kiosk"
# Debian packages: Python and venv; libusb (pyusb: printers, HID scanners); mtdev, GL/EGL/GLES,
# GBM and DRM (Kivy on SDL2, also straight on the screen with KMS/DRM); logrotate; util-linux
# (setterm, for screen blanking).
APT_PACKAGES="python3 python3-venv python3-pip libusb-1.0-0 libmtdev1 libgl1 libegl1 libgles2
  libgbm1 libdrm2 logrotate util-linux ca-certificates"
APT_X11="lightdm xserver-xorg x11-xserver-utils"

usage() {
    cat <<EOF
Usage: install.sh [options]
  --role ROLE            manager, booth or kiosk (asked when not given)
  --bundle FILE          the station's join bundle (from 'booth station add' on the manager)
  --non-interactive      ask nothing; without --role the unit is installed but not enabled
  --display MODE         kms (default: Kivy draws on the screen, no desktop), x11 (a kiosk
                         session in a desktop: LightDM autologin), none (no screen)
  --printer KIND         usb (default: start after the USB printer is there) or network
  --manager ADDRESS      the manager station's LAN address: this machine takes its time from
                         it (systemd-timesyncd, or chrony when installed); kept for upgrades
  --prefix DIR           where Booth lives (default /opt/booth)
  --wheel FILE           Booth's wheel (default: the newest dist/booth-*.whl beside this script)
  --python PATH          the Python that makes the virtualenv (default python3)
  --wheelhouse DIR       install Python packages from DIR only (a hall without internet)
  --pip-option OPT       one more option for pip install (repeatable)
  --no-packages          do not install Debian packages
  --root DIR             install into DIR instead of / (tests, images)
  -h, --help             this help
EOF
}

die() { echo "install.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case $1 in  # --option=value is --option value
        --*=*) opt=${1%%=*}; value=${1#*=}; shift; set -- "$opt" "$value" "$@" ;;
    esac
    case $1 in
        --role) ROLE=${2:?}; shift ;;
        --bundle) BUNDLE=${2:?}; shift ;;
        --non-interactive) INTERACTIVE=0 ;;
        --display) DISPLAY_MODE=${2:?}; shift ;;
        --printer) PRINTER=${2:?}; shift ;;
        --manager) MANAGER=${2:?}; shift ;;
        --prefix) PREFIX=${2:?}; shift ;;
        --wheel) WHEEL=${2:?}; shift ;;
        --python) PYTHON=${2:?}; shift ;;
        --wheelhouse) PIP_OPTIONS+=(--no-index "--find-links=${2:?}"); shift ;;
        --pip-option) PIP_OPTIONS+=("${2:?}"); shift ;;
        --no-packages) PACKAGES=0 ;;
        --root) ROOT=$(cd "${2:?}" && pwd); shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option $1" ;;
    esac
    shift
done

# Choices of an earlier run are the defaults of this one (an upgrade keeps the display mode).
CONF=/etc/booth/install.conf
if [ -f "$ROOT$CONF" ]; then
    DISPLAY_MODE=${DISPLAY_MODE:-$(sed -n 's/^DISPLAY_MODE=//p' "$ROOT$CONF")}
    PRINTER=${PRINTER:-$(sed -n 's/^PRINTER=//p' "$ROOT$CONF")}
    MANAGER=${MANAGER:-$(sed -n 's/^MANAGER=//p' "$ROOT$CONF")}
fi
DISPLAY_MODE=${DISPLAY_MODE:-kms}
PRINTER=${PRINTER:-usb}

[ -z "$ROLE" ] || case " $ROLES " in *" $ROLE "*) ;; *) die "--role must be one of: $ROLES" ;; esac
case $DISPLAY_MODE in kms|x11|none) ;; *) die "--display must be kms, x11 or none" ;; esac
case $PRINTER in usb|network) ;; *) die "--printer must be usb or network" ;; esac
case $PREFIX in /*) ;; *) die "--prefix must be an absolute path" ;; esac
case $MANAGER in *[!A-Za-z0-9.:-]*) die "--manager must be an address or host name: $MANAGER" ;; esac
[ -t 0 ] || INTERACTIVE=0
IS_ROOT=0; [ "$(id -u)" = 0 ] && IS_ROOT=1
[ -n "$ROOT" ] || [ "$IS_ROOT" = 1 ] || die "run me as root (sudo), or with --root DIR"
[ -z "$ROOT" ] || [ -f "$ROOT/etc/passwd" ] || die "$ROOT/etc/passwd is missing: --root needs a base system"

VENV=$PREFIX/venv
CHANGED=0
WRITTEN=()
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

say() { echo "booth install: $*"; }
in_root() { printf '%s%s' "$ROOT" "$1"; }
changed() { CHANGED=$((CHANGED + 1)); say "$1"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

# --- files, written only when they differ ---------------------------------------------------

owner_of() { # user -> uid:gid as the root's /etc/passwd has them (0:0 for root)
    if [ "$1" = root ]; then echo 0:0; return; fi
    awk -F: -v u="$1" '$1 == u { print $3 ":" $4 }' "$(in_root /etc/passwd)"
}

fix_mode_owner() { # TARGET MODE OWNER DESCRIPTION
    local target=$1 mode=$2 owner=$3
    if [ "$(stat -c %a "$target")" != "${mode#0}" ]; then
        chmod "$mode" "$target"; changed "mode $mode: $4"
    fi
    if [ "$IS_ROOT" = 1 ] && [ "$(stat -c %u:%g "$target")" != "$owner" ]; then
        chown -h "$owner" "$target"; changed "owner: $4"
    fi
}

put() { # SOURCE DEST MODE [USER]: install SOURCE's content as DEST (a path inside the root)
    local src=$1 dest=$2 mode=$3 owner target
    owner=$(owner_of "${4:-root}")
    target=$(in_root "$dest")
    ensure_parent "$dest"
    if [ -L "$target" ] || [ ! -f "$target" ] || [ "$(sha "$src")" != "$(sha "$target")" ]; then
        rm -f "$target.booth-new"
        cp "$src" "$target.booth-new"
        chmod "$mode" "$target.booth-new"
        mv -f "$target.booth-new" "$target"
        changed "wrote $dest"
    fi
    fix_mode_owner "$target" "$mode" "$owner" "$dest"
    WRITTEN+=("$dest")
}

put_text() { # DEST MODE [USER] < text
    local tmp
    tmp=$(mktemp "$TMP/text.XXXXXX")
    cat >"$tmp"
    put "$tmp" "$@"
}

put_template() { # SOURCE DEST MODE: SOURCE with @PREFIX@ replaced
    local tmp
    tmp=$(mktemp "$TMP/template.XXXXXX")
    sed "s|@PREFIX@|$PREFIX|g" "$1" >"$tmp"
    put "$tmp" "$2" "$3"  # not in a pipeline: put must run in this shell to count and list
}

ensure_dir() { # DIR MODE [USER]
    local target owner
    target=$(in_root "$1")
    owner=$(owner_of "${3:-root}")
    if [ ! -d "$target" ]; then
        ensure_parent "$1"
        mkdir -m "$2" "$target"
        [ "$IS_ROOT" = 0 ] || chown "$owner" "$target"
        changed "made $1/"
    fi
    fix_mode_owner "$target" "$2" "$owner" "$1/"
}

ensure_parent() { # PATH: its missing parent directories, 0755 root (existing ones untouched)
    local parent
    parent=$(dirname "$1")
    if [ ! -d "$(in_root "$parent")" ]; then
        ensure_parent "$parent"
        ensure_dir "$parent" 0755
    fi
}

ensure_link() { # LINK TARGET
    local link
    link=$(in_root "$1")
    if [ "$(readlink "$link" 2>/dev/null)" != "$2" ]; then
        ensure_parent "$1"
        ln -sfn "$2" "$link"
        changed "linked $1 -> $2"
    fi
    WRITTEN+=("$1")
}

remove() { # PATH: a file this installer wrote once and no longer wants
    if [ -e "$(in_root "$1")" ] || [ -L "$(in_root "$1")" ]; then
        rm -f "$(in_root "$1")"
        changed "removed $1"
    fi
}

find_source() { # the packaging directory's own files, or the docs beside it
    local name=$1
    for dir in "$HERE" "$HERE/.."; do
        if [ -e "$dir/$name" ]; then echo "$dir/$name"; return; fi
    done
    die "cannot find $name beside $HERE"
}

# --- 1. Debian packages ---------------------------------------------------------------------

if [ "$PACKAGES" = 1 ] && [ -z "$ROOT" ]; then
    wanted=$APT_PACKAGES
    [ "$DISPLAY_MODE" != x11 ] || wanted="$wanted $APT_X11"
    missing=""
    for package in $wanted; do
        status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
        [ "$status" = installed ] || missing="$missing $package"
    done
    if [ -n "$missing" ]; then
        say "installing Debian packages:$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing
        changed "installed packages"
    fi
fi

# --- 2. the booth user and group ------------------------------------------------------------

prefix_args=()
[ -z "$ROOT" ] || prefix_args=(--prefix "$ROOT")
has_group() { grep -q "^$1:" "$(in_root /etc/group)"; }
if ! has_group booth; then
    groupadd "${prefix_args[@]}" --system booth
    changed "created group booth"
fi
if ! grep -q "^booth:" "$(in_root /etc/passwd)"; then
    useradd "${prefix_args[@]}" --system --gid booth --home-dir "$STATE" --no-create-home \
        --shell /usr/sbin/nologin --comment "Booth point of sale" booth
    changed "created user booth"
fi
# The screen (video, render), the touch screen (input); printers and scanners are group booth.
for group in video render input; do
    if ! has_group "$group"; then
        groupadd "${prefix_args[@]}" --system "$group"
        changed "created group $group"
    fi
    if ! awk -F: -v g="$group" '$1 == g' "$(in_root /etc/group)" | grep -qE '[:,]booth(,|$)'; then
        usermod "${prefix_args[@]}" -aG "$group" booth
        changed "added booth to group $group"
    fi
done

# --- 3. directories -------------------------------------------------------------------------

ensure_dir "$STATE" 0750 booth
ensure_dir "$STATE/kivy" 0750 booth
ensure_dir "$LOGS" 0750 booth
ensure_dir "$PREFIX" 0755
ensure_dir "$PREFIX/bin" 0755
ensure_dir "$PREFIX/share" 0755

# --- 4. the virtualenv and the wheel --------------------------------------------------------

if [ -z "$WHEEL" ]; then
    for dir in "$HERE" "$HERE/dist" "$HERE/../dist"; do
        for candidate in "$dir"/booth-*.whl; do  # the newest, if several
            [ -f "$candidate" ] || continue
            [ -n "$WHEEL" ] && [ ! "$candidate" -nt "$WHEEL" ] || WHEEL=$candidate
        done
        [ -z "$WHEEL" ] || break
    done
    [ -n "$WHEEL" ] || die "no booth-*.whl found: build one with 'make dist' or pass --wheel"
fi
[ -f "$WHEEL" ] || die "no such wheel: $WHEEL"
venv=$(in_root "$VENV")
if [ ! -x "$venv/bin/python" ]; then
    "$PYTHON" -m venv "$venv"
    changed "made the virtualenv $VENV"
fi
marker=$venv/.booth-wheel.sha256
if [ "$(cat "$marker" 2>/dev/null)" != "$(sha "$WHEEL")" ]; then
    say "installing $(basename "$WHEEL") into $VENV"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${PIP_OPTIONS[@]}" \
        --force-reinstall --no-deps "$WHEEL"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${PIP_OPTIONS[@]}" \
        "$WHEEL"
    sha "$WHEEL" >"$marker"
    changed "installed $(basename "$WHEEL")"
fi
ensure_link /usr/local/bin/booth "$VENV/bin/booth"

# --- 5. systemd, udev, logrotate, Kivy, the kiosk session -----------------------------------

put_template "$(find_source systemd/booth@.service)" /etc/systemd/system/booth@.service 0644
if [ "$PRINTER" = usb ]; then
    put "$(find_source systemd/booth@.service.d/usb-printer.conf)" \
        /etc/systemd/system/booth@.service.d/usb-printer.conf 0644
else
    remove /etc/systemd/system/booth@.service.d/usb-printer.conf
fi
for mode_conf in kms:kms-display none:headless; do
    dropin=/etc/systemd/system/booth@.service.d/${mode_conf#*:}.conf
    if [ "$DISPLAY_MODE" = "${mode_conf%%:*}" ]; then
        put_template "$(find_source "systemd/booth@.service.d/${mode_conf#*:}.conf")" "$dropin" 0644
    else
        remove "$dropin"
    fi
done
put "$(find_source udev/60-booth-hardware.rules)" /etc/udev/rules.d/60-booth-hardware.rules 0644
put "$(find_source udev/61-booth-systemd.rules)" /etc/udev/rules.d/61-booth-systemd.rules 0644
put "$(find_source logrotate/booth)" /etc/logrotate.d/booth 0644
put "$(find_source kiosk/kivy-config.ini)" "$STATE/kivy/config.ini" 0640 booth

session=$PREFIX/bin/booth-kiosk-session
if [ "$DISPLAY_MODE" = x11 ]; then
    put_template "$(find_source kiosk/booth-kiosk-session)" "$session" 0755
    put_template "$(find_source kiosk/booth-kiosk.desktop)" /usr/share/xsessions/booth-kiosk.desktop 0644
    put "$(find_source kiosk/lightdm-booth-kiosk.conf)" \
        /etc/lightdm/lightdm.conf.d/50-booth-kiosk.conf 0644
else
    remove "$session"
    remove /usr/share/xsessions/booth-kiosk.desktop
    remove /etc/lightdm/lightdm.conf.d/50-booth-kiosk.conf
fi

put_text "$CONF" 0644 <<EOF
# install.sh's choices on this machine: the defaults of its next run (e.g. by an upgrade).
DISPLAY_MODE=$DISPLAY_MODE
PRINTER=$PRINTER
MANAGER=$MANAGER
EOF

# Local settings the hall may edit: written once, never overwritten.
if [ ! -e "$(in_root /etc/default/booth)" ]; then
    put_text /etc/default/booth 0644 <<'EOF'
# Booth's local settings, read by booth@.service and the kiosk session (KEY=value lines).
# Examples:
#   SDL_VIDEODRIVER=x11           # when a desktop shows the station instead of KMS/DRM
#   KCFG_GRAPHICS_ROTATION=180    # any Kivy setting: KCFG_<SECTION>_<KEY>
EOF
else
    WRITTEN+=(/etc/default/booth)
fi

# The guides, for the unit's Documentation= and for whoever stands at the machine.
for doc in hall-setup.md managers-day.md inspectors-guide.md backup-and-restore.md; do
    put "$(find_source "docs/$doc")" "$PREFIX/share/doc/$doc" 0644
done

# --- 6. the station: the role and the join bundle -------------------------------------------

station=$(in_root "$STATE/station")
if [ -f "$station/station.json" ]; then
    existing=$("$venv/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["role"])' \
        "$station/station.json")
    [ -z "$ROLE" ] || [ "$ROLE" = "$existing" ] \
        || die "this machine already holds a $existing station; --role $ROLE does not match"
    ROLE=$existing
    [ -z "$BUNDLE" ] || say "a station is already joined here; $BUNDLE was not used"
else
    if [ -z "$ROLE" ] && [ "$INTERACTIVE" = 1 ]; then
        read -r -p "This machine's role ($ROLES): " ROLE
        case " $ROLES " in *" $ROLE "*) ;; *) die "no such role: $ROLE" ;; esac
    fi
    if [ -z "$BUNDLE" ] && [ "$INTERACTIVE" = 1 ] && [ "$ROLE" != manager ] && [ -n "$ROLE" ]; then
        read -r -p "Path of this station's join bundle (Enter: later): " BUNDLE
    fi
    if [ -n "$BUNDLE" ]; then
        [ -f "$BUNDLE" ] || die "no such join bundle: $BUNDLE"
        bundle_role=$("$venv/bin/python" -c \
            'import json, sys; print(json.load(open(sys.argv[1])).get("role", ""))' "$BUNDLE")
        [ -z "$ROLE" ] || [ "$ROLE" = "$bundle_role" ] \
            || die "the bundle is for a $bundle_role station, not a $ROLE"
        ROLE=$bundle_role
        "$venv/bin/booth" --hall "$station" join "$BUNDLE"
        [ "$IS_ROOT" = 0 ] || chown -R "$(owner_of booth)" "$station"
        changed "joined the station ($ROLE) from $BUNDLE"
    fi
fi

# --- 6b. one hall clock: the manager is the hall's time reference ---------------------------
# Booth sets no clock; the system's time service does. The manager serves its clock with chrony
# (systemd-timesyncd cannot serve); every other station takes its time from the manager, with
# chrony when it is installed, else systemd-timesyncd (Debian's default).
chrony_dropin=/etc/chrony/conf.d/booth.conf
timesyncd_dropin=/etc/systemd/timesyncd.conf.d/booth.conf
TIME_SERVICE=""
if [ "$ROLE" = manager ]; then
    remove "$timesyncd_dropin"
    if [ -d "$(in_root /etc/chrony)" ]; then
        put "$(find_source timesync/booth-chrony-server.conf)" "$chrony_dropin" 0644
        TIME_SERVICE=chrony
    else
        remove "$chrony_dropin"
        say "the manager serves no time to the hall: install chrony (apt install chrony) and run me again"
    fi
elif [ -n "$MANAGER" ]; then
    time_conf=$(mktemp "$TMP/time.XXXXXX")
    if [ -d "$(in_root /etc/chrony)" ]; then
        sed "s|@MANAGER@|$MANAGER|g" "$(find_source timesync/booth-chrony-client.conf)" >"$time_conf"
        put "$time_conf" "$chrony_dropin" 0644
        remove "$timesyncd_dropin"
        TIME_SERVICE=chrony
    else
        sed "s|@MANAGER@|$MANAGER|g" "$(find_source timesync/booth-timesyncd.conf)" >"$time_conf"
        put "$time_conf" "$timesyncd_dropin" 0644
        remove "$chrony_dropin"
        TIME_SERVICE=systemd-timesyncd
    fi
elif [ -n "$ROLE" ]; then
    say "this station's clock is not set from the manager yet: run me again with --manager ADDRESS"
fi

# --- 7. the unit for the role ---------------------------------------------------------------

systemctl_() { if [ -n "$ROOT" ]; then systemctl --root="$ROOT" "$@"; else systemctl "$@"; fi; }
for other in $ROLES; do
    if [ "$other" != "$ROLE" ] || [ "$DISPLAY_MODE" = x11 ]; then
        if systemctl_ is-enabled --quiet "booth@$other.service" 2>/dev/null; then
            systemctl_ disable --quiet "booth@$other.service"
            changed "disabled booth@$other.service"
        fi
    fi
done
if [ -n "$ROLE" ] && [ "$DISPLAY_MODE" != x11 ]; then
    if ! systemctl_ is-enabled --quiet "booth@$ROLE.service" 2>/dev/null; then
        systemctl_ enable --quiet "booth@$ROLE.service"
        changed "enabled booth@$ROLE.service"
    fi
fi

# --- 8. what was written, and the running system --------------------------------------------

listing=$TMP/installed-files.sha256
(
    cd "${ROOT:-/}"
    for path in "${WRITTEN[@]}"; do
        if [ -L ".$path" ]; then
            echo "link  $path -> $(readlink ".$path")"
        else
            echo "$(sha ".$path")  $path"
        fi
    done | sort -k2
) >"$listing"
put "$listing" "$PREFIX/share/installed-files.sha256" 0644

if [ -z "$ROOT" ] && [ "$CHANGED" -gt 0 ]; then
    if udevadm control --reload 2>/dev/null; then
        udevadm trigger --subsystem-match=usb --subsystem-match=input --subsystem-match=tty || true
    fi
    systemctl daemon-reload
    [ -z "$TIME_SERVICE" ] || systemctl try-restart "$TIME_SERVICE" \
        || say "$TIME_SERVICE did not restart: see systemctl status $TIME_SERVICE"
    if [ -n "$ROLE" ] && [ "$DISPLAY_MODE" != x11 ] && [ -f "$station/station.json" ]; then
        systemctl restart "booth@$ROLE.service" || say "booth@$ROLE.service did not start: see systemctl status booth@$ROLE"
    fi
fi

say "$CHANGED changed"
if [ ! -f "$station/station.json" ]; then
    case $ROLE in
        manager) say "next: sudo -u booth booth --hall $STATE/station init --org ... (see docs/hall-setup.md)" ;;
        *) say "next: run me again with --role ROLE --bundle FILE to join this station to the hall" ;;
    esac
fi
