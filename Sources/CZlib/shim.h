#ifndef TRAWL_CZLIB_SHIM_H
#define TRAWL_CZLIB_SHIM_H
#include <zlib.h>

/* deflateInit2 is a macro; Swift cannot call it. windowBits 15+16 writes a gzip wrapper. */
static inline int trawl_deflate_init_gzip(z_stream *s, int level) {
    return deflateInit2(s, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
}
#endif
