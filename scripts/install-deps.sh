#!/usr/bin/env bash
# Installs what building and testing ScratchCard needs from Debian's packages, once:
# a machine that already has them is left alone (no apt-get call at all).
set -euo pipefail

packages=(
  pkg-config libx11-dev libxext-dev libxi-dev libxrandr-dev libpng-dev   # the C libraries behind CX11 (Xlib, Xext: MIT-SHM, DPMS; Xi: touch; Xrandr: the refresh rate) and CPNG
  libturbojpeg0-dev libwebp-dev   # CJPEG (libjpeg-turbo's TurboJPEG API) and CWebP (libwebp)
  libxfixes-dev   # tests only: XFixesGetCursorImage, to see the hidden cursor
  xvfb xdotool x11-utils x11-xserver-utils x11-apps   # tests: a private X server, XTest input, xprop/xwininfo/xmessage, xrdb/xset, xwd
  xserver-xorg-core xserver-xorg-video-dummy   # tests only: a real Xorg on the dummy screen (RandR mode timings, DPMS) with the inputtest input driver (touch, keyboard, pointer)
  xserver-xorg-dev   # tests only: xf86-input-inputtest-protocol.h, the inputtest driver's socket protocol (CInputTest)
  openbox   # tests only: a real EWMH window manager for the full-screen test
  python3   # make test: scripts/run-tests.py reads the results swift test writes
  python3-gi gir1.2-gtk-3.0   # tests only: a GTK 3 window as a drag source (XDND) for the drop tests
  xclip libgtk-3-bin   # tests only: xclip for the CLIPBOARD (copy, paste, INCR); gtk-launch for launch feedback (startup notification)
  libcairo2-dev libpixman-1-dev   # CCairo: scratchbench's cairo + pixman comparison engine
  libxpresent-dev   # CXPresent: presentbench (Present against paced puts) and clientfloor (libxfixes-dev above too)
  libpango1.0-dev   # CPangoCairo: CardArt draws the built-in card and text cards (cairo, Pango, fontconfig, HarfBuzz)
  fonts-noto-core fonts-noto-cjk   # the card's fonts: Noto Sans (Latin, Greek, Cyrillic, Arabic...) and Noto Sans CJK
  tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim   # tests only: OCR reads the drawn cards back
  util-linux passwd   # tests: setpriv (a server as another user), useradd; unshare, nsenter (a mount namespace)
  binutils dpkg-dev lintian   # make install strips; make deb: dpkg-shlibdeps, dpkg-gencontrol, dpkg-deb, lintian
  desktop-file-utils gtk-update-icon-cache man-db   # desktop-file-validate, the caches make install refreshes; tests: man -l
  librsvg2-bin   # tests only: rsvg-convert renders the scalable icon to compare it with the PNG
  libpulse-dev libasound2-dev   # CPulse, CALSA: the sound room's PulseAudio and ALSA outputs
  pulseaudio pulseaudio-utils   # tests: a private PulseAudio daemon with a null sink, parec on its monitor
  alsa-utils   # aplay, speaker-test: to check a kiosk's ALSA device by hand (README, Sound)
  libsqlite3-dev sqlite3   # CSQLite: the kiosk's store; tests: the sqlite3 shell edits a store's version
  libpq-dev   # CLibPQ: the shared prize pool's client (PostgreSQL's libpq)
  libzip-dev   # CZip: card files (.scratchcard), the zip container read and written in memory
  shared-mime-info xdg-utils libglib2.0-bin   # tests: update-mime-database, xdg-mime and gio (the card file's type, xdg-open/gio open)
  tumbler dbus-daemon dbus-bin   # tests: tumbler's D-Bus thumbnailer on a private session bus (dbus-daemon, dbus-monitor)
  bubblewrap   # tests: the thumbnailer in GNOME's sandbox (bwrap); make-from in a read-only folder
  xdg-user-dirs   # writes user-dirs.dirs, whose XDG_DOCUMENTS_DIR make-from reads
  libgdk-pixbuf2.0-bin   # scripts/cardfile-bench.sh: gdk-pixbuf-thumbnailer, the thumbnail time to beat
  fuse3 libfuse3-dev   # tests only: the power-cut test's FUSE file system (Tests/PowerCutFS: libfuse3; fusermount3)
  faketime   # tests only: the clock-jump tests restart the kiosk under `faketime -f` (a day behind, a year ahead)
  systemd   # tests only: systemd-analyze rates the example system unit (already there on Debian; nothing is started)
  postgresql   # tests, scripts/pool-bench.sh: a private PostgreSQL 15 server (initdb, postgres, pg_isready; psql with its client)
  libssl-dev libqrencode-dev libcups2-dev   # CCrypto (libcrypto: HMAC-SHA256, RAND_bytes), CQREncode (libqrencode), CCups (libcups): claims, their QR codes, printed tickets
  zbar-tools poppler-utils   # tests only: zbarimg reads QR codes off screenshots and tickets; pdftoppm, pdftotext read the tickets
  cups cups-client printer-driver-cups-pdf   # tests only: a private cupsd (lpadmin, lpstat, cupsenable, cupsdisable) with a cups-pdf printer
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq >/dev/null
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The fault tests run an X server as another user (so it cannot attach our 0600 MIT-SHM
# segment): a system user with no home and no login shell, created once when we are root.
if [ "$(id -u)" -eq 0 ] && ! getent passwd scratchtest >/dev/null; then
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin scratchtest
fi

