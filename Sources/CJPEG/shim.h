// The C edge for JPEG: libjpeg-turbo's TurboJPEG API, which returns errors as values
// (-1 and tjGetErrorStr2). libjpeg's classic API reports errors by longjmp, which must
// never unwind Swift frames, so it is not used.
#ifndef SCRATCHCARD_CJPEG_SHIM_H
#define SCRATCHCARD_CJPEG_SHIM_H

#include <turbojpeg.h>

// Flags Swift cannot import (object-like macros of other macros), with one prefix.
static inline int cjpeg_flag_limit_scans(void) { return TJFLAG_LIMITSCANS; }
static inline int cjpeg_flag_accurate_dct(void) { return TJFLAG_ACCURATEDCT; }

#endif
