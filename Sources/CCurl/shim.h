#ifndef TRAWL_CCURL_SHIM_H
#define TRAWL_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt, curl_easy_getinfo and curl_share_setopt are variadic:
 * Swift cannot call them. Each helper below fixes one argument type. */

typedef size_t (*trawl_curl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);

static inline CURLcode trawl_easy_setopt_long(CURL *h, CURLoption o, long v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode trawl_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode trawl_easy_setopt_string(CURL *h, CURLoption o, const char *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode trawl_easy_setopt_ptr(CURL *h, CURLoption o, void *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode trawl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode trawl_easy_setopt_share(CURL *h, CURLSH *v) {
    return curl_easy_setopt(h, CURLOPT_SHARE, v);
}
static inline CURLcode trawl_easy_setopt_data_callback(CURL *h, CURLoption o, trawl_curl_data_callback v) {
    return curl_easy_setopt(h, o, v);
}

/* The address guard: libcurl asks this callback for every socket it connects with, after its
 * own DNS lookup, redirects and --connect-to, so the address checked is the one connected to. */
typedef curl_socket_t (*trawl_curl_opensocket_callback)(void *clientp, curlsocktype purpose,
                                                        struct curl_sockaddr *address);
static inline CURLcode trawl_easy_setopt_opensocket_callback(CURL *h, trawl_curl_opensocket_callback v) {
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, v);
}
/* The address inside curl_sockaddr, in place: it may be longer than `struct sockaddr` (IPv6),
 * so Swift must not copy the field out. */
static inline const struct sockaddr *trawl_curl_sockaddr_address(const struct curl_sockaddr *a) {
    return &a->addr;
}
/* CURL_SOCKET_BAD is a macro. */
static inline curl_socket_t trawl_curl_socket_bad(void) { return CURL_SOCKET_BAD; }

static inline CURLcode trawl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) {
    return curl_easy_getinfo(h, i, v);
}
static inline CURLcode trawl_easy_getinfo_string(CURL *h, CURLINFO i, char **v) {
    return curl_easy_getinfo(h, i, v);
}

static inline CURLSHcode trawl_share_setopt_long(CURLSH *s, CURLSHoption o, long v) {
    return curl_share_setopt(s, o, v);
}

/* CURLVERSION_NOW is a macro naming an enum constant and does not import. */
static inline const curl_version_info_data *trawl_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}
/* CURL_WRITEFUNC_PAUSE / CURL_READFUNC_ABORT are macros with casts. */
static inline size_t trawl_curl_writefunc_error(void) { return 0; }
static inline size_t trawl_curl_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
/* CURLPAUSE_CONT is a macro made of other macros. */
static inline CURLcode trawl_easy_resume(CURL *h) { return curl_easy_pause(h, CURLPAUSE_CONT); }

#endif
