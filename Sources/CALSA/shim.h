// ALSA's PCM API (Debian: libasound2-dev), for ScratchSound's output on a bare kiosk
// session with no sound server.
#ifndef SCRATCHCARD_CALSA_SHIM_H
#define SCRATCHCARD_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// ALSA's library prints its own errors on stderr ("ALSA lib confmisc.c:855:(parse_card)
// cannot find card '0'"...) through a handler of C varargs, which Swift cannot write.
// This one keeps them here instead, joined by "; " (1 KiB at most), for the program to say in its own
// words (--verbose). Process-wide, like ALSA's handler: only the sound thread opens ALSA.
// The messages kept: a function's static, which Swift's importer emits with the function.
static inline char *calsa_kept_buffer(void) { static char kept[1024]; return kept; }

static void calsa_keep_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err;
    char text[256];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    char *kept = calsa_kept_buffer();
    size_t used = strlen(kept), length = strlen(text);
    if (used + length + 3 >= 1024) return;
    if (used > 0) { memcpy(kept + used, "; ", 2); used += 2; }
    memcpy(kept + used, text, length + 1);
}

// Keeps ALSA's messages from now on, which starts empty.
static inline void calsa_keep_errors(void) {
    calsa_kept_buffer()[0] = 0;
    snd_lib_error_set_handler(calsa_keep_error);
}

// What ALSA said since calsa_keep_errors.
static inline const char *calsa_kept(void) { return calsa_kept_buffer(); }
#endif
