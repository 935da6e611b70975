// The C edge of the image room: libpng's simplified png_image_* API, which reports
// errors as values rather than by longjmp, so no error ever unwinds Swift frames.
#ifndef SCRATCHCARD_CPNG_SHIM_H
#define SCRATCHCARD_CPNG_SHIM_H

#include <png.h>

#endif
