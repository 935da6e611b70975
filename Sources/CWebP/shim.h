// The C edge for WebP: libwebp's decoding API, whose errors are return values
// (VP8StatusCode). The pixels go into a buffer the caller owns, so nothing libwebp
// allocates outlives the call.
#ifndef SCRATCHCARD_CWEBP_SHIM_H
#define SCRATCHCARD_CWEBP_SHIM_H

#include <webp/decode.h>

// WebPGetFeatures and WebPInitDecoderConfig are static inlines over version-checked
// entry points; wrapped here with one prefix so the ABI version is the header's.
static inline VP8StatusCode cwebp_get_features(const uint8_t *data, size_t size, WebPBitstreamFeatures *features) {
    return WebPGetFeatures(data, size, features);
}

// Decodes a still WebP as 8-bit RGBA, straight alpha, into `out` (`stride` bytes a row,
// `out_size` bytes in all; libwebp refuses a buffer too small for the image).
static inline VP8StatusCode cwebp_decode_rgba_into(const uint8_t *data, size_t size,
                                                   uint8_t *out, size_t out_size, int stride) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return VP8_STATUS_INVALID_PARAM;
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = out;
    config.output.u.RGBA.stride = stride;
    config.output.u.RGBA.size = out_size;
    VP8StatusCode status = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output);   // frees nothing of ours: the memory is external
    return status;
}

#endif
