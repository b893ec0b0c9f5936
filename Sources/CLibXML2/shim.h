#ifndef TRAWL_CLIBXML2_SHIM_H
#define TRAWL_CLIBXML2_SHIM_H

/* Debian's libxml2 headers pull in the system ICU when LIBXML_ICU_ENABLED is set, and that ICU
 * clashes with the one Foundation bundles ('UErrorCode' has different definitions) on a clean
 * build. Nothing here uses ICU types, so turn the flag off before the other headers. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/encoding.h>
#include <libxml/xmlerror.h>
#include <libxml/parserInternals.h>

/* xmlFree is a global function-pointer variable, which Swift 6 rejects as unsafe shared state. */
static inline void trawl_xml_free(void *p) { xmlFree(p); }

static void trawl_xml_silent_error(void *ctx, const char *msg, ...) { (void)ctx; (void)msg; }

/* The generic error handler is per thread; encoding errors ignore HTML_PARSE_NOERROR. */
static inline void trawl_xml_silence_errors_on_this_thread(void) {
    xmlSetGenericErrorFunc(NULL, trawl_xml_silent_error);
    xmlSetStructuredErrorFunc(NULL, NULL);
}

#endif
