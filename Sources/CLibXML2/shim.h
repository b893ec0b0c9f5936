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
#include <stdlib.h>

/* xmlFree is a global function-pointer variable, which Swift 6 rejects as unsafe shared state. */
static inline void trawl_xml_free(void *p) { xmlFree(p); }

static void trawl_xml_silent_error(void *ctx, const char *msg, ...) { (void)ctx; (void)msg; }

/* The generic error handler is per thread; encoding errors ignore HTML_PARSE_NOERROR. */
static inline void trawl_xml_silence_errors_on_this_thread(void) {
    xmlSetGenericErrorFunc(NULL, trawl_xml_silent_error);
    xmlSetStructuredErrorFunc(NULL, NULL);
}

/* The thinned feed reads fields of libxml2 2.9's parser context (instate, token, name,
 * input->cur/end, input->buf->encoder, disableSAX): private state whose meaning is only checked
 * against 2.9's push parser. Other versions compile without reading them, and the scanner feeds
 * every byte to libxml2 (the portable path), so a distribution upgrade costs speed, never
 * memory safety. The library run must be 2.9 too (trawl_html_runtime_version). */
#if LIBXML_VERSION >= 20900 && LIBXML_VERSION < 21000
#define TRAWL_HTML_READS_PUSH_STATE 1
#else
#define TRAWL_HTML_READS_PUSH_STATE 0
#endif

/* Whether this build reads the push parser's state (the headers are libxml2 2.9). */
static inline int trawl_html_reads_push_state(void) { return TRAWL_HTML_READS_PUSH_STATE; }

/* The version of the libxml2 library loaded at run time, as LIBXML_VERSION spells it (20914). */
static inline int trawl_html_runtime_version(void) { return atoi(xmlParserVersion); }

/* The version of the headers compiled against. */
static inline int trawl_html_compiled_version(void) { return LIBXML_VERSION; }

/* What an HTML push parser (2.9) that has read every byte it was given does with the bytes fed
 * next, for the scanner's thinned feed:
 *   0  busy: input left unread, not in content, or SAX off: feed bytes as they are
 *   1  inside <script> text, up to its end tag
 *   2  inside <style> text, up to its end tag
 *   3  content: a start tag is read from a fresh start; text is only reported
 *   4  content of html or head, or before any element: text that is not blank opens an implied <p>
 *   5  content of <title>: its text is wanted
 *   6  it has switched from UTF-8 to another encoding (invalid UTF-8 made it): feed as they are
 * libxml2 lower-cases element names. */
static inline int trawl_html_push_state(htmlParserCtxtPtr ctxt) {
#if !TRAWL_HTML_READS_PUSH_STATE
    (void)ctxt;
    return 0;
#else
    if (ctxt == NULL || ctxt->input == NULL || ctxt->disableSAX || ctxt->instate != XML_PARSER_CONTENT || ctxt->token != 0)
        return 0;
    /* Invalid UTF-8 makes libxml2 switch to Latin-1 for the rest: bytes no longer pass as they are. */
    if (ctxt->input->buf != NULL && ctxt->input->buf->encoder != NULL)
        return 6;
    if (ctxt->input->cur != ctxt->input->end)
        return 0;
    const char *name = (const char *)ctxt->name;
    if (name == NULL) return 4;
    /* Asked once per tag or text run: most names are none of these at the first byte. */
    switch (name[0]) {
    case 's':
        if (strcmp(name, "script") == 0) return 1;
        if (strcmp(name, "style") == 0) return 2;
        return 3;
    case 'h':
        return (strcmp(name, "html") == 0 || strcmp(name, "head") == 0) ? 4 : 3;
    case 't':
        return strcmp(name, "title") == 0 ? 5 : 3;
    default:
        return 3;
    }
#endif
}

#endif
