// The one GLib main context ZRC's reach runs on (internal to CReach).
#ifndef ZRC_GLIB_LOOP_H
#define ZRC_GLIB_LOOP_H
#include <glib.h>

/// The shared context; its thread is started on first use and runs for the process's life.
GMainContext *zrc_loop_context(void);
/// Runs `function(data)` on the loop thread and waits for it to return.
void zrc_loop_run_sync(void (*function)(void *data), void *data);
#endif
