// The C edge for card files: libzip reads and writes the .scratchcard zip container,
// always from and to buffers in memory (zip_source_buffer), never a path of its own.
// Nothing outside Sources/CardFile imports this module.
#ifndef SCRATCHCARD_CZIP_SHIM_H
#define SCRATCHCARD_CZIP_SHIM_H

#include <zip.h>
#include <sys/stat.h>

// Macros Swift cannot import as the types the calls take, with one prefix.
static inline int czip_rdonly(void) { return ZIP_RDONLY; }
static inline int czip_truncate(void) { return ZIP_TRUNCATE | ZIP_CREATE; }
static inline zip_flags_t czip_enc_raw(void) { return ZIP_FL_ENC_RAW; }
static inline zip_flags_t czip_enc_utf8(void) { return ZIP_FL_ENC_UTF_8; }
static inline zip_int32_t czip_store(void) { return ZIP_CM_STORE; }
static inline zip_int32_t czip_deflate(void) { return ZIP_CM_DEFLATE; }
static inline zip_uint16_t czip_no_encryption(void) { return ZIP_EM_NONE; }
static inline zip_uint8_t czip_opsys_unix(void) { return ZIP_OPSYS_UNIX; }
static inline unsigned czip_file_type_mask(void) { return S_IFMT; }
static inline unsigned czip_regular(void) { return S_IFREG; }
static inline unsigned czip_directory(void) { return S_IFDIR; }
static inline unsigned czip_symlink(void) { return S_IFLNK; }
static inline zip_uint64_t czip_stat_needed(void) {
    return ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_ENCRYPTION_METHOD;
}

#endif
