#!/usr/bin/env bash
# Builds and runs one libFuzzer target (see FUZZING.md):
#   scripts/fuzz.sh NAME [SECONDS]       NAME: png | jpeg | webp | trace | config | deck | replay | wav | strokes | store | conninfo | urilist | cardfile | claimcode | userdirs (default 600 s)
#   scripts/fuzz.sh NAME build           only build .build/fuzz/NAME/fuzzer
# The target is compiled with swiftc -sanitize=fuzzer,address together with the module
# it tests (internal names visible), on one core. Crashes, timeouts and out-of-memory
# inputs land in Fuzz/NAME/found/; copy the ones worth keeping to Fuzz/NAME/regressions/,
# which the test suite replays (Tests/ScratchCoreTests/FuzzRegressionTests.swift,
# Tests/CardRulesTests/FuzzRegressionTests.swift, Tests/CardRulesTests/StrokeLogTests.swift,
# Tests/ScratchImageTests/FuzzRegressionTests.swift, Tests/ScratchStoreTests/StoreFuzzRegressionTests.swift,
# Tests/ScratchCardAppTests/MakeFromPictureTests.swift for userdirs).
set -euo pipefail
cd "$(dirname "$0")/.."

name=${1:?usage: scripts/fuzz.sh png|jpeg|webp|trace|config|deck|replay|wav|strokes|store|conninfo|urilist|cardfile|claimcode|userdirs [SECONDS|build]}
seconds=${2:-600}
[ -f "Fuzz/$name/main.swift" ] || { echo "no fuzz target Fuzz/$name/main.swift" >&2; exit 2; }

out=.build/fuzz/$name
mkdir -p "$out/corpus" "Fuzz/$name/found"
# One package name for every module, as SwiftPM gives: the rooms share `package` names
# (the engine's FileBytes and blend255).
flags=(-sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -use-ld=lld -package-name ScratchCard)
core=(-I Sources/CInstructions Sources/ScratchCore/*.swift)   # the core and its one C header

# A room as a static library and module in $out, for targets that test a room built on
# it: library NAME [swiftc arguments: its sources, -I and -L for what it imports].
library() {
  local name=$1; shift
  swiftc "${flags[@]}" -module-name "$name" -emit-module -emit-module-path "$out/$name.swiftmodule" \
    -emit-library -static -o "$out/lib$name.a" "$@"
}
# The engine (ScratchCore), and the card's rules on it (CardRules: pure Swift, no C).
core_library() { library ScratchCore "${core[@]}"; }
rules_library() { core_library; library CardRules -I "$out" -I Sources/CInstructions Sources/CardRules/*.swift; }
# pkg-config's C flags for the named libraries, each behind -Xcc for swiftc.
xcc_flags() {
  for f in $(pkg-config --cflags "$@"); do printf -- '-Xcc\n%s\n' "$f"; done
}

case "$name" in
  png|jpeg|webp)
    # ScratchCore as a static library and module, then ScratchImage (all its decoders,
    # so all three C libraries) + the target.
    core_library
    libs="libpng libturbojpeg libwebp libwebpdemux"
    cflags=($(xcc_flags $libs))
    swiftc "${flags[@]}" -module-name ScratchImage -I "$out" -I Sources/CPNG -I Sources/CJPEG -I Sources/CWebP \
      -I Sources/CInstructions ${cflags[@]+"${cflags[@]}"} \
      Sources/ScratchImage/*.swift "Fuzz/$name/main.swift" \
      -L "$out" -lScratchCore $(pkg-config --libs $libs) -lm -o "$out/fuzzer"
    max_len=16384
    ;;
  trace|replay)
    # The engine's parsers: one module from the core's sources and the target.
    swiftc "${flags[@]}" -module-name ScratchCore "${core[@]}" "Fuzz/$name/main.swift" -lm -o "$out/fuzzer"
    max_len=16384
    ;;
  config|deck|strokes)
    # The rules' parsers: ScratchCore as a static library and module, then one module from
    # the rules' sources and the target.
    core_library
    swiftc "${flags[@]}" -module-name CardRules -I "$out" -I Sources/CInstructions \
      Sources/CardRules/*.swift "Fuzz/$name/main.swift" -L "$out" -lScratchCore -lm -o "$out/fuzzer"
    max_len=16384
    ;;
  wav)
    # The sound room's pure-Swift parser and the clip type it makes; not its C outputs.
    swiftc "${flags[@]}" -module-name ScratchSound Sources/ScratchSound/WAVFile.swift Sources/ScratchSound/ScratchSynth.swift \
      "Fuzz/$name/main.swift" -lm -o "$out/fuzzer"
    max_len=65536
    ;;
  store)
    # ScratchCore, CardRules and Threads as static libraries and modules, then the whole
    # store room (SQLite for the kiosk's store, libpq for the pool beside it) + the target.
    rules_library
    library Threads Sources/Threads/*.swift
    pqcflags=($(xcc_flags libpq))
    swiftc "${flags[@]}" -module-name ScratchStore -I "$out" -I Sources/CSQLite -I Sources/CLibPQ -I Sources/CInstructions \
      ${pqcflags[@]+"${pqcflags[@]}"} Sources/ScratchStore/*.swift "Fuzz/$name/main.swift" \
      -L "$out" -lCardRules -lThreads -lScratchCore -lsqlite3 $(pkg-config --libs libpq) -lm -o "$out/fuzzer"
    max_len=16384
    ;;
  urilist)
    # The uri-lists dropped and pasted on the window: the X11 room's one pure-Swift parser.
    swiftc "${flags[@]}" -module-name ScratchX11 Sources/ScratchX11/URIList.swift "Fuzz/$name/main.swift" -o "$out/fuzzer"
    max_len=16384
    ;;
  conninfo)
    # ScratchCore as a module, then the pool's connection strings (PostgresConnection.swift,
    # which holds PoolAddress) with libpq, and the target.
    core_library
    pqcflags=($(xcc_flags libpq))
    swiftc "${flags[@]}" -module-name ScratchStore -I "$out" -I Sources/CLibPQ -I Sources/CInstructions ${pqcflags[@]+"${pqcflags[@]}"} \
      Sources/ScratchStore/PostgresConnection.swift "Fuzz/$name/main.swift" \
      -L "$out" -lScratchCore $(pkg-config --libs libpq) -lm -o "$out/fuzzer"
    max_len=4096
    ;;
  cardfile)
    # ScratchCore and CardRules as static libraries and modules, then one module of the
    # card file room (libzip) and ScratchImage (its three decoders) + the target: internal
    # names of both.
    rules_library
    libs="libzip libpng libturbojpeg libwebp libwebpdemux"
    cflags=($(xcc_flags $libs))
    swiftc "${flags[@]}" -module-name CardFile -I "$out" -I Sources/CZip -I Sources/CPNG -I Sources/CJPEG -I Sources/CWebP \
      -I Sources/CInstructions ${cflags[@]+"${cflags[@]}"} \
      Sources/CardFile/*.swift Sources/ScratchImage/*.swift "Fuzz/$name/main.swift" \
      -L "$out" -lCardRules -lScratchCore $(pkg-config --libs $libs) -lm -o "$out/fuzzer"
    max_len=65536
    ;;
  claimcode)
    # The claims room's pure-Swift code reader (not the key: that one is libcrypto's).
    swiftc "${flags[@]}" -module-name Claims Sources/Claims/ClaimCode.swift "Fuzz/$name/main.swift" -o "$out/fuzzer"
    max_len=512
    ;;
  userdirs)
    # The user's user-dirs.dirs, read by make-from for the documents folder: the
    # executable's pure-Swift reader compiled alone, with the checks the suite shares
    # (-D USERDIRS_FUZZ: in this module, the checks do not import it). The program reads
    # up to 64 KiB of the file, so inputs go that far.
    swiftc "${flags[@]}" -module-name scratchcard -D USERDIRS_FUZZ Sources/scratchcard/Desktop/UserDirectories.swift \
      Tests/ScratchCardAppTests/UserDirsChecks.swift "Fuzz/$name/main.swift" -o "$out/fuzzer"
    max_len=65536
    ;;
  *) echo "unknown fuzz target $name" >&2; exit 2 ;;
esac
[ "$seconds" = build ] && exit 0

if [ "$name" = deck ]; then
  # The images a deck entry may name, so valid entries reach the later checks.
  export FUZZ_DECK_DIR=${FUZZ_DECK_DIR:-/tmp/scratchcard-fuzz-deck}
  mkdir -p "$FUZZ_DECK_DIR"
  for f in a.png b.png cover.png; do cp Fuzz/png/corpus/gray8-3x2.png "$FUZZ_DECK_DIR/$f"; done
  mkdir -p "$FUZZ_DECK_DIR/folder.png"
  cp Fuzz/wav/corpus/u8-mono-8k.wav "$FUZZ_DECK_DIR/fanfare.wav"      # a sound a card may name
fi

dict=()
[ -f "Fuzz/$name/dict" ] && dict=(-dict="Fuzz/$name/dict")
# One process, one core; a new corpus in .build, the seeds in the repository read-only.
exec "$out/fuzzer" "$out/corpus" "Fuzz/$name/corpus" "${dict[@]}" \
  -max_total_time="$seconds" -max_len="$max_len" -timeout=5 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
  -print_final_stats=1 -artifact_prefix="Fuzz/$name/found/"
