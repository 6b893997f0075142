// Time-limited TURN credentials from a coturn REST shared secret (draft-uberti-behave-turn-rest):
// password = base64(HMAC-SHA1(secret, username)). GLib has the HMAC; libsodium has no SHA-1.
#include "zrc_reach.h"
#include <glib.h>
#include <stdio.h>
#include <string.h>

int zrc_turn_rest_password(const char *secret, const char *username, char *out, size_t out_size) {
    GHmac *hmac = g_hmac_new(G_CHECKSUM_SHA1, (const guchar *)secret, strlen(secret));
    if (!hmac) return -1;
    g_hmac_update(hmac, (const guchar *)username, -1);
    guint8 digest[20];
    gsize length = sizeof digest;
    g_hmac_get_digest(hmac, digest, &length);
    g_hmac_unref(hmac);
    gchar *encoded = g_base64_encode(digest, length);
    int written = snprintf(out, out_size, "%s", encoded);
    g_free(encoded);
    return written > 0 && (size_t)written < out_size ? 0 : -1;
}
