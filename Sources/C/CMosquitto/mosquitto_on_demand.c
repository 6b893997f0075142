// libmosquitto's functions that ZRC calls, as forwarders to the library opened by
// zrc_mosquitto_load (see zrc_mosquitto.h). Each definition must match <mosquitto.h>'s declaration,
// which the compiler checks; each table entry has the type of the function it holds.
#include "zrc_mosquitto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define MOSQUITTO_FUNCTIONS(X)              \
    X(mosquitto_connect_bind_v5)            \
    X(mosquitto_connect_callback_set)       \
    X(mosquitto_destroy)                    \
    X(mosquitto_disconnect)                 \
    X(mosquitto_disconnect_callback_set)    \
    X(mosquitto_int_option)                 \
    X(mosquitto_lib_init)                   \
    X(mosquitto_log_callback_set)           \
    X(mosquitto_loop_start)                 \
    X(mosquitto_loop_stop)                  \
    X(mosquitto_message_callback_set)       \
    X(mosquitto_new)                        \
    X(mosquitto_property_add_int32)         \
    X(mosquitto_property_free_all)          \
    X(mosquitto_publish)                    \
    X(mosquitto_publish_callback_set)       \
    X(mosquitto_reason_string)              \
    X(mosquitto_reconnect_delay_set)        \
    X(mosquitto_strerror)                   \
    X(mosquitto_subscribe_callback_set)     \
    X(mosquitto_subscribe_multiple)         \
    X(mosquitto_tls_insecure_set)           \
    X(mosquitto_tls_opts_set)               \
    X(mosquitto_tls_set)                    \
    X(mosquitto_unsubscribe)                \
    X(mosquitto_user_data_set)              \
    X(mosquitto_username_pw_set)

#define ENTRY(name) __typeof__(&name) name;
static struct { MOSQUITTO_FUNCTIONS(ENTRY) } library;
#undef ENTRY

#define NAME(name) #name,
#define SLOT(name) (void **)&library.name,
static const char *const names[] = {MOSQUITTO_FUNCTIONS(NAME)};
static void **const slots[] = {MOSQUITTO_FUNCTIONS(SLOT)};
#undef NAME
#undef SLOT

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int status = -1;
static char failure[256];

static void load(void) {
    // RTLD_LOCAL: its symbols (and OpenSSL's) stay out of the process's global scope.
    void *handle = dlopen(ZRC_MOSQUITTO_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "cannot load %s (%s)", ZRC_MOSQUITTO_LIBRARY, why ? why : "not found");
        return;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *found = dlsym(handle, names[i]);
        if (!found) {
            snprintf(failure, sizeof failure, "%s has no %s", ZRC_MOSQUITTO_LIBRARY, names[i]);
            return;
        }
        *slots[i] = found;
    }
    status = 0;
}

int zrc_mosquitto_load(char *error, size_t error_size) {
    pthread_once(&once, load);
    if (status != 0 && error && error_size > 0) snprintf(error, error_size, "%s", failure);
    return status;
}

int mosquitto_connect_bind_v5(struct mosquitto *mosq, const char *host, int port, int keepalive, const char *bind_address,
                              const mosquitto_property *properties) {
    return library.mosquitto_connect_bind_v5(mosq, host, port, keepalive, bind_address, properties);
}

void mosquitto_connect_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int)) {
    library.mosquitto_connect_callback_set(mosq, on_connect);
}

void mosquitto_destroy(struct mosquitto *mosq) { library.mosquitto_destroy(mosq); }

int mosquitto_disconnect(struct mosquitto *mosq) { return library.mosquitto_disconnect(mosq); }

void mosquitto_disconnect_callback_set(struct mosquitto *mosq, void (*on_disconnect)(struct mosquitto *, void *, int)) {
    library.mosquitto_disconnect_callback_set(mosq, on_disconnect);
}

int mosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value) {
    return library.mosquitto_int_option(mosq, option, value);
}

int mosquitto_lib_init(void) { return library.mosquitto_lib_init(); }

void mosquitto_log_callback_set(struct mosquitto *mosq, void (*on_log)(struct mosquitto *, void *, int, const char *)) {
    library.mosquitto_log_callback_set(mosq, on_log);
}

int mosquitto_loop_start(struct mosquitto *mosq) { return library.mosquitto_loop_start(mosq); }

int mosquitto_loop_stop(struct mosquitto *mosq, bool force) { return library.mosquitto_loop_stop(mosq, force); }

void mosquitto_message_callback_set(struct mosquitto *mosq,
                                    void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *)) {
    library.mosquitto_message_callback_set(mosq, on_message);
}

struct mosquitto *mosquitto_new(const char *id, bool clean_session, void *obj) {
    return library.mosquitto_new(id, clean_session, obj);
}

int mosquitto_property_add_int32(mosquitto_property **proplist, int identifier, uint32_t value) {
    return library.mosquitto_property_add_int32(proplist, identifier, value);
}

void mosquitto_property_free_all(mosquitto_property **properties) { library.mosquitto_property_free_all(properties); }

int mosquitto_publish(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain) {
    return library.mosquitto_publish(mosq, mid, topic, payloadlen, payload, qos, retain);
}

void mosquitto_publish_callback_set(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int)) {
    library.mosquitto_publish_callback_set(mosq, on_publish);
}

const char *mosquitto_reason_string(int reason_code) { return library.mosquitto_reason_string(reason_code); }

int mosquitto_reconnect_delay_set(struct mosquitto *mosq, unsigned int reconnect_delay, unsigned int reconnect_delay_max,
                                  bool reconnect_exponential_backoff) {
    return library.mosquitto_reconnect_delay_set(mosq, reconnect_delay, reconnect_delay_max, reconnect_exponential_backoff);
}

const char *mosquitto_strerror(int mosq_errno) { return library.mosquitto_strerror(mosq_errno); }

void mosquitto_subscribe_callback_set(struct mosquitto *mosq, void (*on_subscribe)(struct mosquitto *, void *, int, int, const int *)) {
    library.mosquitto_subscribe_callback_set(mosq, on_subscribe);
}

int mosquitto_subscribe_multiple(struct mosquitto *mosq, int *mid, int sub_count, char *const *const sub, int qos, int options,
                                 const mosquitto_property *properties) {
    return library.mosquitto_subscribe_multiple(mosq, mid, sub_count, sub, qos, options, properties);
}

int mosquitto_tls_insecure_set(struct mosquitto *mosq, bool value) { return library.mosquitto_tls_insecure_set(mosq, value); }

int mosquitto_tls_opts_set(struct mosquitto *mosq, int cert_reqs, const char *tls_version, const char *ciphers) {
    return library.mosquitto_tls_opts_set(mosq, cert_reqs, tls_version, ciphers);
}

int mosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile,
                      int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)) {
    return library.mosquitto_tls_set(mosq, cafile, capath, certfile, keyfile, pw_callback);
}

int mosquitto_unsubscribe(struct mosquitto *mosq, int *mid, const char *sub) { return library.mosquitto_unsubscribe(mosq, mid, sub); }

void mosquitto_user_data_set(struct mosquitto *mosq, void *obj) { library.mosquitto_user_data_set(mosq, obj); }

int mosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password) {
    return library.mosquitto_username_pw_set(mosq, username, password);
}
