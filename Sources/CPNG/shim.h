// The C edge of the image room: libpng's simplified png_image_* API, which reports
// errors as values rather than by longjmp, so no error ever unwinds Swift frames.
#ifndef SCRATCHCARD_CPNG_SHIM_H
#define SCRATCHCARD_CPNG_SHIM_H

#include <png.h>

// Macros that Swift cannot import, as functions with one prefix.
static inline png_uint_32 cpng_image_version(void) { return PNG_IMAGE_VERSION; }
static inline png_uint_32 cpng_format_rgba(void) { return PNG_FORMAT_RGBA; }
static inline png_uint_32 cpng_format_gray(void) { return PNG_FORMAT_GRAY; }
static inline png_uint_32 cpng_format_ga(void) { return PNG_FORMAT_GA; }
static inline png_uint_32 cpng_format_rgb(void) { return PNG_FORMAT_RGB; }
static inline png_uint_32 cpng_format_linear_rgb_alpha(void) { return PNG_FORMAT_LINEAR_RGB_ALPHA; }
static inline png_uint_32 cpng_format_rgb_colormap(void) { return PNG_FORMAT_RGB_COLORMAP; }
static inline png_uint_32 cpng_format_rgba_colormap(void) { return PNG_FORMAT_RGBA_COLORMAP; }
static inline png_uint_32 cpng_format_flag_linear(void) { return PNG_FORMAT_FLAG_LINEAR; }
static inline int cpng_failed(const png_image *image) { return PNG_IMAGE_FAILED(*image); }
/// The most bytes png_image_write_to_memory can write for `image` (its format and size set).
static inline png_alloc_size_t cpng_png_size_max(const png_image *image) { return PNG_IMAGE_PNG_SIZE_MAX(*image); }
static inline png_uint_32 cpng_flag_fast(void) { return PNG_IMAGE_FLAG_FAST; }

#endif
