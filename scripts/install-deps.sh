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
  fuse3 libfuse3-dev   # tests only: the power-cut test's FUSE file system (Tests/PowerCutFS: libfuse3; fusermount3)
  faketime   # tests only: the clock-jump tests restart the kiosk under `faketime -f` (a day behind, a year ahead)
  systemd   # tests only: systemd-analyze rates the example system unit (already there on Debian; nothing is started)
  postgresql   # tests, scripts/pool-bench.sh: a private PostgreSQL 15 server (initdb, postgres, pg_isready; psql with its client)
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

