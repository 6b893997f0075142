// LAN discovery with Avahi on the shared GLib thread: publishing a service type (`_zrc._tcp`, `_zrc-pair._tcp`) and browsing for it.
// The client is made with AVAHI_CLIENT_NO_FAIL, so a host started before avahi-daemon publishes
// once the daemon appears; a daemon restart fails the client, which is then made anew.
#include "zrc_reach.h"
#include "glib_loop.h"

#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/domain.h>
#include <avahi-glib/glib-watch.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

// Last: Avahi's functions through the table zrc_mdns_publish and zrc_mdns_browse fill on first use.
#include "reach_libraries.h"

// After the daemon or the bus went away: how long until the next attempt.
#define RETRY_SECONDS 5

enum { MODE_PUBLISH, MODE_BROWSE };

struct zrc_mdns {
    int mode;
    char type[64];  // the service type, e.g. `_zrc._tcp`
    zrc_mdns_callback callback;  // NULL once freeing
    void *context;
    AvahiGLibPoll *poll;
    AvahiClient *client;
    GSource *retry;
    // Publishing
    char *name;
    uint16_t port;
    AvahiStringList *txt;
    AvahiEntryGroup *group;
    // Browsing
    AvahiServiceBrowser *browser;
    gboolean reported_failure;
};

static void emit(zrc_mdns *mdns, int event, const char *name, const char *address, uint16_t port, const char *txt) {
    if (mdns->callback) mdns->callback(mdns->context, event, name, address, port, txt);
}

static void copy_text(char *destination, size_t size, const char *text) {
    if (size > 0) snprintf(destination, size, "%s", text ? text : "");
}

static void start_client(zrc_mdns *mdns);

static void drop_client(zrc_mdns *mdns) {
    // Groups and browsers belong to the client: freeing it frees them.
    if (mdns->client) avahi_client_free(mdns->client);
    mdns->client = NULL;
    mdns->group = NULL;
    mdns->browser = NULL;
}

static gboolean retry_fired(gpointer data) {
    zrc_mdns *mdns = data;
    g_source_unref(mdns->retry);
    mdns->retry = NULL;
    drop_client(mdns);
    start_client(mdns);
    return G_SOURCE_REMOVE;
}

static void schedule_retry(zrc_mdns *mdns) {
    if (mdns->retry) return;
    mdns->retry = g_timeout_source_new_seconds(RETRY_SECONDS);
    g_source_set_callback(mdns->retry, retry_fired, mdns, NULL);
    g_source_attach(mdns->retry, zrc_loop_context());
}

static void fail(zrc_mdns *mdns, const char *why) {
    // Said once per outage: the caller logs it, and retries stay quiet.
    if (!mdns->reported_failure) emit(mdns, ZRC_MDNS_FAILED, why, NULL, 0, NULL);
    mdns->reported_failure = TRUE;
    // The client is freed by the retry, not here: this runs inside the client's own callbacks.
    schedule_retry(mdns);
}

// ---- publishing ----

static void register_service(zrc_mdns *mdns);

static void group_changed(AvahiEntryGroup *group, AvahiEntryGroupState state, void *data) {
    zrc_mdns *mdns = data;
    switch (state) {
    case AVAHI_ENTRY_GROUP_ESTABLISHED:
        mdns->reported_failure = FALSE;
        emit(mdns, ZRC_MDNS_PUBLISHED, mdns->name, NULL, mdns->port, NULL);
        break;
    case AVAHI_ENTRY_GROUP_COLLISION: {
        // Another machine has this name: "name #2", as Avahi's own tools do.
        char *renamed = avahi_alternative_service_name(mdns->name);
        g_free(mdns->name);
        mdns->name = g_strdup(renamed);
        avahi_free(renamed);
        register_service(mdns);
        break;
    }
    case AVAHI_ENTRY_GROUP_FAILURE:
        fail(mdns, avahi_strerror(avahi_client_errno(avahi_entry_group_get_client(group))));
        break;
    case AVAHI_ENTRY_GROUP_UNCOMMITED:
    case AVAHI_ENTRY_GROUP_REGISTERING:
        break;
    }
}

static void register_service(zrc_mdns *mdns) {
    if (!mdns->group) mdns->group = avahi_entry_group_new(mdns->client, group_changed, mdns);
    if (!mdns->group) {
        fail(mdns, avahi_strerror(avahi_client_errno(mdns->client)));
        return;
    }
    avahi_entry_group_reset(mdns->group);
    for (int attempt = 0; attempt < 16; attempt++) {
        int result = avahi_entry_group_add_service_strlst(mdns->group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, 0, mdns->name,
                                                          mdns->type, NULL, NULL, mdns->port, mdns->txt);
        if (result == AVAHI_ERR_COLLISION) {
            char *renamed = avahi_alternative_service_name(mdns->name);
            g_free(mdns->name);
            mdns->name = g_strdup(renamed);
            avahi_free(renamed);
            avahi_entry_group_reset(mdns->group);
            continue;
        }
        if (result < 0) {
            fail(mdns, avahi_strerror(result));
            return;
        }
        result = avahi_entry_group_commit(mdns->group);
        if (result < 0) fail(mdns, avahi_strerror(result));
        return;
    }
    fail(mdns, "no free service name after 16 renames");
}

// ---- browsing ----

static void resolved(AvahiServiceResolver *resolver, AvahiIfIndex interface, AvahiProtocol protocol, AvahiResolverEvent event,
                     const char *name, const char *type, const char *domain, const char *host_name, const AvahiAddress *address,
                     uint16_t port, AvahiStringList *txt, AvahiLookupResultFlags flags, void *data) {
    (void)protocol;
    (void)type;
    (void)domain;
    (void)host_name;
    (void)flags;
    zrc_mdns *mdns = data;
    if (event == AVAHI_RESOLVER_FOUND && address) {
        char text[AVAHI_ADDRESS_STR_MAX + IF_NAMESIZE + 2];
        avahi_address_snprint(text, AVAHI_ADDRESS_STR_MAX, address);
        // A link-local IPv6 address is only usable with its interface.
        if (address->proto == AVAHI_PROTO_INET6 && strncmp(text, "fe80:", 5) == 0 && interface > 0) {
            char interface_name[IF_NAMESIZE];
            if (if_indextoname((unsigned)interface, interface_name)) {
                size_t used = strlen(text);
                snprintf(text + used, sizeof text - used, "%%%s", interface_name);
            }
        }
        GString *lines = g_string_new(NULL);
        for (AvahiStringList *item = txt; item; item = avahi_string_list_get_next(item)) {
            char *key = NULL, *value = NULL;
            if (avahi_string_list_get_pair(item, &key, &value, NULL) == 0) {
                g_string_append_printf(lines, "%s=%s\n", key, value ? value : "");
                avahi_free(key);
                avahi_free(value);
            }
        }
        emit(mdns, ZRC_MDNS_FOUND, name, text, port, lines->str);
        g_string_free(lines, TRUE);
    }
    avahi_service_resolver_free(resolver);
}

static void browsed(AvahiServiceBrowser *browser, AvahiIfIndex interface, AvahiProtocol protocol, AvahiBrowserEvent event,
                    const char *name, const char *type, const char *domain, AvahiLookupResultFlags flags, void *data) {
    (void)browser;
    (void)flags;
    zrc_mdns *mdns = data;
    switch (event) {
    case AVAHI_BROWSER_NEW:
        if (!avahi_service_resolver_new(mdns->client, interface, protocol, name, type, domain, AVAHI_PROTO_UNSPEC, 0, resolved, mdns)) {
            emit(mdns, ZRC_MDNS_FAILED, avahi_strerror(avahi_client_errno(mdns->client)), NULL, 0, NULL);
        }
        break;
    case AVAHI_BROWSER_REMOVE:
        emit(mdns, ZRC_MDNS_REMOVED, name, NULL, 0, NULL);
        break;
    case AVAHI_BROWSER_ALL_FOR_NOW:
        emit(mdns, ZRC_MDNS_DONE, NULL, NULL, 0, NULL);
        break;
    case AVAHI_BROWSER_FAILURE:
        fail(mdns, avahi_strerror(avahi_client_errno(mdns->client)));
        break;
    case AVAHI_BROWSER_CACHE_EXHAUSTED:
        break;
    }
}

// ---- the client ----

static void client_changed(AvahiClient *client, AvahiClientState state, void *data) {
    zrc_mdns *mdns = data;
    // Called from inside avahi_client_new already: use `client`, not mdns->client.
    mdns->client = client;
    switch (state) {
    case AVAHI_CLIENT_S_RUNNING:
        if (mdns->mode == MODE_PUBLISH) {
            if (!mdns->group || avahi_entry_group_is_empty(mdns->group)) register_service(mdns);
        } else if (!mdns->browser) {
            mdns->browser = avahi_service_browser_new(client, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, mdns->type, NULL, 0, browsed, mdns);
            if (!mdns->browser) fail(mdns, avahi_strerror(avahi_client_errno(client)));
        }
        break;
    case AVAHI_CLIENT_S_COLLISION:
    case AVAHI_CLIENT_S_REGISTERING:
        // The machine's host name is changing: the service is registered again once running.
        if (mdns->group) avahi_entry_group_reset(mdns->group);
        break;
    case AVAHI_CLIENT_FAILURE:
        fail(mdns, avahi_strerror(avahi_client_errno(client)));
        break;
    case AVAHI_CLIENT_CONNECTING:
        break;
    }
}

static void start_client(zrc_mdns *mdns) {
    int error = 0;
    AvahiClient *client = avahi_client_new(avahi_glib_poll_get(mdns->poll), AVAHI_CLIENT_NO_FAIL, client_changed, mdns, &error);
    if (!client) {
        char why[160];
        snprintf(why, sizeof why, "%s (is the D-Bus system bus running?)", avahi_strerror(error));
        mdns->client = NULL;
        fail(mdns, why);
        return;
    }
    mdns->client = client;
}

typedef struct {
    zrc_mdns *mdns;
} StartCall;

static void start_on_loop(void *data) {
    StartCall *call = data;
    call->mdns->poll = avahi_glib_poll_new(zrc_loop_context(), G_PRIORITY_DEFAULT);
    start_client(call->mdns);
}

static zrc_mdns *create(int mode, const char *type, zrc_mdns_callback callback, void *context) {
    zrc_mdns *mdns = g_new0(zrc_mdns, 1);
    mdns->mode = mode;
    copy_text(mdns->type, sizeof mdns->type, type);
    mdns->callback = callback;
    mdns->context = context;
    return mdns;
}

zrc_mdns *zrc_mdns_publish(const char *type, const char *name, uint16_t port, const char *const *txt, int count, zrc_mdns_callback callback,
                           void *context, char *error, size_t error_size) {
    if (zrc_load_avahi(error, error_size) != 0) return NULL;
    if (!avahi_is_valid_service_name(name)) {
        copy_text(error, error_size, "not a valid service name (1-63 bytes)");
        return NULL;
    }
    if (!avahi_is_valid_service_type_strict(type) || strlen(type) >= sizeof ((zrc_mdns *)0)->type) {
        copy_text(error, error_size, "not a valid service type");
        return NULL;
    }
    zrc_mdns *mdns = create(MODE_PUBLISH, type, callback, context);
    mdns->name = g_strdup(name);
    mdns->port = port;
    for (int i = count - 1; i >= 0; i--) mdns->txt = avahi_string_list_add(mdns->txt, txt[i]);
    StartCall call = {.mdns = mdns};
    zrc_loop_run_sync(start_on_loop, &call);
    return mdns;
}

zrc_mdns *zrc_mdns_browse(const char *type, zrc_mdns_callback callback, void *context, char *error, size_t error_size) {
    if (zrc_load_avahi(error, error_size) != 0) return NULL;
    if (!avahi_is_valid_service_type_strict(type) || strlen(type) >= sizeof ((zrc_mdns *)0)->type) {
        copy_text(error, error_size, "not a valid service type");
        return NULL;
    }
    zrc_mdns *mdns = create(MODE_BROWSE, type, callback, context);
    StartCall call = {.mdns = mdns};
    zrc_loop_run_sync(start_on_loop, &call);
    return mdns;
}

static void free_on_loop(void *data) {
    zrc_mdns *mdns = data;
    mdns->callback = NULL;
    if (mdns->retry) {
        g_source_destroy(mdns->retry);
        g_source_unref(mdns->retry);
    }
    drop_client(mdns);
    if (mdns->poll) avahi_glib_poll_free(mdns->poll);
    avahi_string_list_free(mdns->txt);
    g_free(mdns->name);
    g_free(mdns);
}

void zrc_mdns_free(zrc_mdns *mdns) {
    if (mdns) zrc_loop_run_sync(free_on_loop, mdns);
}
