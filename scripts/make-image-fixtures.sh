#!/usr/bin/env bash
# Makes the JPEG and WebP test fixtures in Tests/ScratchImageTests/Fixtures (committed;
# run again only to change them). Needs ImageMagick 6 (with libjpeg-turbo and libwebp)
# and exiftool (libimage-exiftool-perl): not in install-deps.sh, the tests need neither.
#
# quadrants.png, 64x48, upright: red top-left, green top-right, blue bottom-left,
# yellow bottom-right. orient-N.jpg holds it stored the way a camera with EXIF
# Orientation N stores it (turned or mirrored), tagged N: shown upright, each is
# quadrants.png again.
set -euo pipefail
cd "$(dirname "$0")/../Tests/ScratchImageTests/Fixtures"
convert=/usr/bin/convert

$convert -size 32x24 xc:'rgb(220,30,30)' -size 32x24 xc:'rgb(30,180,60)' +append \
  \( -size 32x24 xc:'rgb(30,60,200)' -size 32x24 xc:'rgb(230,210,40)' +append \) -append \
  -strip quadrants.png

# The inverse of what each orientation asks a viewer to do.
stored=( "" "" "-flop" "-rotate 180" "-flip" "-transpose" "-rotate -90" "-transverse" "-rotate 90" )
for n in 1 2 3 4 5 6 7 8; do
  # shellcheck disable=SC2086  # the operators split into words on purpose
  $convert quadrants.png ${stored[$n]} -strip -quality 95 "orient-$n.jpg"
  exiftool -q -overwrite_original -n -Orientation="$n" "orient-$n.jpg"
  # Checked with ImageMagick's own reading of the tag.
  [ "$($convert "orient-$n.jpg" -auto-orient -format '%wx%h' info:)" = 64x48 ]
done

$convert quadrants.png -strip -quality 90 -interlace JPEG progressive.jpg
$convert quadrants.png -strip -colorspace Gray -quality 90 gray.jpg
$convert quadrants.png -strip -colorspace CMYK -quality 95 cmyk.jpg
$convert quadrants.png -strip -quality 80 -define webp:lossless=false lossy.webp
$convert quadrants.png -strip -define webp:lossless=true lossless.webp
# Alpha: the left half opaque, the right half at 50%.
$convert quadrants.png \( -size 32x48 xc:white -size 32x48 xc:'gray(50%)' +append \) \
  -alpha off -compose CopyOpacity -composite -strip -define webp:lossless=true alpha.webp
$convert -delay 10 quadrants.png \( quadrants.png -negate \) -loop 0 -strip animated.webp
# ImageMagick 6 appends the last frame again as a still WebP after the animation's RIFF:
# keep the RIFF alone (its size field, little-endian, at byte 4, counts what follows byte 8).
riff=$(od -An -t u4 -j 4 -N 4 animated.webp | tr -d ' ')
head -c $((riff + 8)) animated.webp > animated.tmp && mv animated.tmp animated.webp
ls -l orient-*.jpg progressive.jpg gray.jpg cmyk.jpg ./*.webp
