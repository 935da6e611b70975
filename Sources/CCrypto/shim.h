// The C edge of the claims room: OpenSSL's libcrypto (Debian's libssl-dev) for
// HMAC-SHA256, a constant-time comparison and the system's secure random bytes. Only
// Sources/Claims imports this module; no OpenSSL type or pointer leaves it.
#ifndef SCRATCHCARD_CCRYPTO_SHIM_H
#define SCRATCHCARD_CCRYPTO_SHIM_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

/// HMAC-SHA256 of `data` under `key` into `out` (32 bytes): 1 on success, 0 on failure.
static inline int scratchcard_hmac_sha256(const unsigned char *key, int key_len,
                                          const unsigned char *data, size_t data_len,
                                          unsigned char *out) {
    unsigned int len = 0;
    return HMAC(EVP_sha256(), key, key_len, data, data_len, out, &len) != NULL && len == 32;
}

#endif
