#ifndef TRAWL_BENCH_LIBXML2_SHIM_H
#define TRAWL_BENCH_LIBXML2_SHIM_H

/* libxml2's HTML push parser, called directly for the limit the benchmarks compare against (an
 * empty-SAX parse). A module of the benchmark package's own: TrawlHTML keeps its libxml2 module
 * to itself.
 *
 * Debian's libxml2 headers pull in the system ICU when LIBXML_ICU_ENABLED is set, and that ICU
 * clashes with the one Foundation bundles ('UErrorCode' has different definitions) on a clean
 * build. Nothing here uses ICU types, so turn the flag off before the other headers. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/HTMLparser.h>
#include <libxml/encoding.h>

#endif
