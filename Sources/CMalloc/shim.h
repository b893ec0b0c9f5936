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
#endif
