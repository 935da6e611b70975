# Shared by the benchmark and soak scripts (sourced, not run): a private Xvfb and the
# 4K test images. Needs xvfb, xdotool and imagemagick's convert.

xvfb_pid=""

# start_xvfb WxH [FIRST]: a private Xvfb at WxH on the first free display from :FIRST
# (default 60); sets xvfb_pid, exports DISPLAY, returns once the server answers.
start_xvfb() {
  local n=${2:-60}
  while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
  Xvfb ":$n" -screen 0 "${1}x24" -nolisten tcp -noreset >/dev/null 2>&1 &
  xvfb_pid=$!
  export DISPLAY=":$n"
  for _ in $(seq 100); do xdotool getdisplaygeometry >/dev/null 2>&1 && return 0; sleep 0.05; done
  echo "$(basename "$0"): Xvfb did not start" >&2
  exit 1
}

# start_xorg_inputtest WxH: instead of Xvfb, a private Xorg on the dummy driver (a 60 Hz
# mode of that size) whose pointer is an absolute one on the inputtest driver, as a
# mouse's events come (from a device, not from a client's XTest requests). Run by
# inputdrive (Bench/inputdrive; needs root and xserver-xorg-video-dummy) as a
# coprocess that takes drive commands (drive_input); sets xvfb_pid to the Xorg's pid,
# so the CPU figures read the server's, and exports DISPLAY.
inputdrive_pid=""
start_xorg_inputtest() {
  local drive=${INPUTDRIVE:-$(swift build -c release --show-bin-path)/inputdrive} line
  [ -x "$drive" ] || { echo "$(basename "$0"): build first: swift build -c release --product inputdrive" >&2; exit 2; }
  coproc INPUTDRIVE_PROC { exec "$drive" "$1" 60; }
  inputdrive_pid=$INPUTDRIVE_PROC_PID
  read -r -u "${INPUTDRIVE_PROC[0]}" line || { echo "$(basename "$0"): inputdrive did not start the server" >&2; exit 1; }
  eval "$(echo "$line" | tr ' ' '\n' | sed -n 's/^display=/DISPLAY=/p; s/^pid=/xvfb_pid=/p')"
  export DISPLAY
}

# drive_input COMMAND...: one command to inputdrive (drag, pauses); prints its answer.
drive_input() {
  local answer
  echo "$*" >&"${INPUTDRIVE_PROC[1]}"
  read -r -u "${INPUTDRIVE_PROC[0]}" answer
  echo "$answer"
  case $answer in error*) echo "$(basename "$0"): inputdrive: $answer" >&2; exit 1 ;; esac
}

# start_screen WxH: the bench's screen, Xvfb, or with WINDOW_BENCH_INPUT=inputtest the
# dummy Xorg with the inputtest pointer (start_xorg_inputtest).
start_screen() {
  if [ "${WINDOW_BENCH_INPUT:-xtest}" = inputtest ]; then start_xorg_inputtest "$1"; else start_xvfb "$1"; fi
}

# cpu_ns PID: time on the CPU of all of a process's threads, in ns (the scheduler's own count).
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d", s }'; }

# us_per_event BEFORE_NS AFTER_NS EVENTS: the CPU between two cpu_ns readings, in µs an event.
us_per_event() { awk -v a="$1" -v b="$2" -v e="$3" 'BEGIN { printf "%.1f", (b - a) / 1000 / e }'; }

# stop_xvfb: ends the server start_xvfb (or start_xorg_inputtest) started, and waits for it.
stop_xvfb() {
  if [ -n "$inputdrive_pid" ]; then
    echo quit >&"${INPUTDRIVE_PROC[1]}" 2>/dev/null || kill "$inputdrive_pid" 2>/dev/null || true
    wait "$inputdrive_pid" 2>/dev/null || true
    inputdrive_pid="" xvfb_pid=""
    return 0
  fi
  [ -n "$xvfb_pid" ] || return 0
  kill "$xvfb_pid" 2>/dev/null || true
  wait "$xvfb_pid" 2>/dev/null || true
  xvfb_pid=""
}

# make_4k_pngs DIR: DIR/cover4k.png, a noisy grey gradient (about 35 MB: slow to inflate,
# as a photographed foil would be), and DIR/prize4k.png, a radial gradient; both 8-bit.
make_4k_pngs() {
  command -v convert >/dev/null || { echo "$(basename "$0"): needs imagemagick's convert: apt-get install imagemagick" >&2; exit 2; }
  convert -size 3840x2160 gradient:'#d8d8d8-#707070' -attenuate 0.3 +noise Uniform -depth 8 "$1/cover4k.png"
  convert -size 3840x2160 radial-gradient:'#ffd700-#8b008b' -depth 8 "$1/prize4k.png"
}

# setup_bench NAME: sets bin (the release scratchcard, or $SCRATCHCARD to run another
# build) and work (a fresh folder), and traps the exit to end $app_pid and the Xvfb and
# remove the folder.
setup_bench() {
  bin=${SCRATCHCARD:-$(swift build -c release --show-bin-path)/scratchcard}
  [ -x "$bin" ] || { echo "$1: build first: swift build -c release" >&2; exit 2; }
  work=$(mktemp -d "/tmp/$1.XXXXXX")
  app_pid=""
  trap end_bench EXIT
}

end_bench() {
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
  stop_xvfb
  rm -rf "$work"
}
