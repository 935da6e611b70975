#!/usr/bin/env bash
# Makes the .deb from a staged install (make install DESTDIR=ROOT PREFIX=/usr), the
# Debian way: copyright and changelog (a native package: changelog.gz) from packaging/debian, Depends from the shared
# libraries the binary really links (dpkg-shlibdeps), the control file from
# dpkg-gencontrol (Installed-Size counted), md5sums, files owned by root.
#
# usage: scripts/make-deb.sh ROOT VERSION OUT.deb       (make deb runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$1 version=$2 out=$3
packaging=packaging/debian
doc="$root/usr/share/doc/scratchcard"

changelog_version=$(dpkg-parsechangelog -l "$packaging/changelog" -S Version)
[ "$changelog_version" = "$version" ] || {
  echo "make-deb: packaging/debian/changelog's version is $changelog_version, the program's is $version: add an entry" >&2
  exit 2
}

install -d -m 755 "$doc"
install -m 644 "$packaging/copyright" "$doc/copyright"
gzip -9n < "$packaging/changelog" > "$doc/changelog.gz"
chmod 644 "$doc/changelog.gz"

# dpkg-shlibdeps and dpkg-gencontrol read debian/control (and debian/changelog) from
# the current folder: a scratch source tree holding packaging/debian as debian/.
tree=$(mktemp -d /tmp/scratchcard-deb.XXXXXX)
trap 'rm -rf "$tree"' EXIT
cp -r "$packaging" "$tree/debian"
root_abs=$(cd "$root" && pwd)
(cd "$tree" && dpkg-shlibdeps -O -e"$root_abs/usr/bin/scratchcard" -e"$root_abs/usr/bin/scratchcard-thumbnailer" > debian/substvars)
sed -n 's/^shlibs:Depends=/Depends (from dpkg-shlibdeps): /p' "$tree/debian/substvars"
install -d -m 755 "$root/DEBIAN"
(cd "$tree" && dpkg-gencontrol -pscratchcard -P"$root_abs" -Tdebian/substvars)
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

mkdir -p "$(dirname "$out")"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out"
