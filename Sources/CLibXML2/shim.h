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
#include <string.h>

/* xmlFree is a global function-pointer variable, which Swift 6 rejects as unsafe shared state. */
static inline void trawl_xml_free(void *p) { xmlFree(p); }

static void trawl_xml_silent_error(void *ctx, const char *msg, ...) { (void)ctx; (void)msg; }

/* The generic error handler is per thread; encoding errors ignore HTML_PARSE_NOERROR. */
static inline void trawl_xml_silence_errors_on_this_thread(void) {
    xmlSetGenericErrorFunc(NULL, trawl_xml_silent_error);
    xmlSetStructuredErrorFunc(NULL, NULL);
}

/* Which raw-text element (1 script, 2 style) an HTML push parser is inside with every byte it
 * was given read, or 0: the bytes fed next, up to the element's end tag, are that element's
 * text. libxml2 lower-cases element names. */
static inline int trawl_html_raw_text_element(htmlParserCtxtPtr ctxt) {
    if (ctxt == NULL || ctxt->input == NULL || ctxt->disableSAX || ctxt->instate != XML_PARSER_CONTENT || ctxt->name == NULL)
        return 0;
    if (ctxt->input->cur != ctxt->input->end)
        return 0;
    if (strcmp((const char *)ctxt->name, "script") == 0) return 1;
    if (strcmp((const char *)ctxt->name, "style") == 0) return 2;
    return 0;
}

#endif
