// One GLib main loop thread for libnice and Avahi: both are built on GLib's main context, and
// running them on one dedicated thread means their objects are only ever touched from there.
#include "glib_loop.h"

static GMainContext *loop_context;
static GThread *loop_thread;

static gpointer run_loop(gpointer data) {
    GMainLoop *loop = data;
    g_main_context_push_thread_default(loop_context);
    g_main_loop_run(loop);  // never quits: the loop lives as long as the process
    return NULL;
}

GMainContext *zrc_loop_context(void) {
    static gsize started = 0;
    if (g_once_init_enter(&started)) {
        loop_context = g_main_context_new();
        GMainLoop *loop = g_main_loop_new(loop_context, FALSE);
        loop_thread = g_thread_new("zrc-glib", run_loop, loop);
        g_once_init_leave(&started, 1);
    }
    return loop_context;
}

typedef struct {
    void (*function)(void *data);
    void *data;
    GMutex mutex;
    GCond done_cond;
    gboolean done;
} SyncCall;

static gboolean run_call(gpointer user_data) {
    SyncCall *call = user_data;
    call->function(call->data);
    g_mutex_lock(&call->mutex);
    call->done = TRUE;
    g_cond_signal(&call->done_cond);
    g_mutex_unlock(&call->mutex);
    return G_SOURCE_REMOVE;
}

void zrc_loop_run_sync(void (*function)(void *data), void *data) {
    GMainContext *context = zrc_loop_context();
    if (g_thread_self() == loop_thread) {
        function(data);
        return;
    }
    SyncCall call = {.function = function, .data = data, .done = FALSE};
    g_mutex_init(&call.mutex);
    g_cond_init(&call.done_cond);
    g_main_context_invoke(context, run_call, &call);
    g_mutex_lock(&call.mutex);
    while (!call.done) g_cond_wait(&call.done_cond, &call.mutex);
    g_mutex_unlock(&call.mutex);
    g_mutex_clear(&call.mutex);
    g_cond_clear(&call.done_cond);
}
