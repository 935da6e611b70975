// The C edge for WebP: libwebp's decoding API, whose errors are return values
// (VP8StatusCode), and libwebpdemux's animation decoder for an animation's first frame. The pixels go into a buffer the caller owns, so nothing libwebp
// allocates outlives the call.
#ifndef SCRATCHCARD_CWEBP_SHIM_H
#define SCRATCHCARD_CWEBP_SHIM_H

#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

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

// The first frame of an animated WebP, composed on its canvas, as 8-bit RGBA with
// straight alpha, copied into `out` (`width` x `height`, the canvas size the caller has
// already checked against its limits, from WebPGetFeatures). libwebpdemux's
// WebPAnimDecoder allocates two canvases of that size itself. Returns 1 on success.
static inline int cwebp_decode_first_frame(const uint8_t *data, size_t size,
                                           uint8_t *out, size_t out_size, int width, int height) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return 0;
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData webp = { data, size };
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&webp, &options);
    if (decoder == NULL) return 0;
    WebPAnimInfo info;
    int ok = WebPAnimDecoderGetInfo(decoder, &info)
        && (int)info.canvas_width == width && (int)info.canvas_height == height
        && (size_t)width * (size_t)height * 4 <= out_size;
    uint8_t *frame = NULL;
    int timestamp = 0;
    if (ok) ok = WebPAnimDecoderGetNext(decoder, &frame, &timestamp) && frame != NULL;
    if (ok) memcpy(out, frame, (size_t)width * (size_t)height * 4);
    WebPAnimDecoderDelete(decoder);
    return ok;
}

#endif
