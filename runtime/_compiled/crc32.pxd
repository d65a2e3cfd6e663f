# cython: language_level=3
"""zlib's CRC-32 in C, eight bytes a step (slicing-by-8 tables, made on first use). The
system zlib's ``crc32`` measured 2-3x slower on 80-byte binlog events, and this links no
library. Inline only: a module that cimports ``crc32_update`` compiles it in."""

from libc.stdint cimport uint32_t


cdef extern from *:
    """
    #include <stdint.h>
    #ifndef WIRESPEC_ALWAYS_INLINE
    #if defined(__GNUC__)
    #define WIRESPEC_ALWAYS_INLINE static inline __attribute__((always_inline))
    #else
    #define WIRESPEC_ALWAYS_INLINE static inline
    #endif
    #endif
    static uint32_t wirespec_crc32_tables[8][256];
    static int wirespec_crc32_ready = 0;
    static void wirespec_crc32_init(void) {
        for (uint32_t n = 0; n < 256; n++) {
            uint32_t c = n;
            for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
            wirespec_crc32_tables[0][n] = c;
        }
        for (uint32_t n = 0; n < 256; n++) {
            uint32_t c = wirespec_crc32_tables[0][n];
            for (int t = 1; t < 8; t++) {
                c = wirespec_crc32_tables[0][c & 0xff] ^ (c >> 8);
                wirespec_crc32_tables[t][n] = c;
            }
        }
        wirespec_crc32_ready = 1;
    }
    /* zlib's crc32(crc, buf, n): chained, crc32_update(crc32_update(0, a), b) is a + b's.
       Inline: gcc stopped inlining it when the MySQL module grew, which cost ~17
       instructions an event (benchmarks/HISTORY.md, "The prelude in one .pxd"). */
    WIRESPEC_ALWAYS_INLINE uint32_t wirespec_crc32_update(
            uint32_t crc, const unsigned char *p, Py_ssize_t n) {
        const uint32_t (*t)[256] = (const uint32_t (*)[256])wirespec_crc32_tables;
        uint32_t c = ~crc;
        if (!wirespec_crc32_ready) wirespec_crc32_init();
        while (n >= 8) {
            uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
                               | (uint32_t)p[3] << 24);
            uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16
                          | (uint32_t)p[7] << 24;
            c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff]
                ^ t[4][lo >> 24] ^ t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff]
                ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
            p += 8;
            n -= 8;
        }
        while (n-- > 0) c = t[0][(c ^ *p++) & 0xff] ^ (c >> 8);
        return ~c;
    }
    """
    uint32_t crc32_update "wirespec_crc32_update" (
        uint32_t crc, const unsigned char* p, Py_ssize_t n) noexcept nogil
