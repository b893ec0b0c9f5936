#ifndef TRAWL_CMALLOC_SHIM_H
#define TRAWL_CMALLOC_SHIM_H
#include <malloc.h>

/* glibc returns freed blocks of a few hundred KiB to the kernel (mmap threshold, heap trim),
 * and a worker that allocates a page body per URL then faults the same memory in again for
 * every page. Fixed thresholds keep freed memory for reuse (and stop glibc moving them). */
static inline void trawl_keep_freed_memory(int mmapThreshold, int trimThreshold) {
    mallopt(M_MMAP_THRESHOLD, mmapThreshold);
    mallopt(M_TRIM_THRESHOLD, trimThreshold);
}

/* glibc gives each thread that contends an arena of its own (up to 8 per core), and each keeps
 * its freed memory: with page bodies freed on whichever thread finishes them, the peak is the
 * sum. A cap keeps one pool of reusable memory per core. */
static inline void trawl_limit_malloc_arenas(int arenas) {
    mallopt(M_ARENA_MAX, arenas);
}
#endif
