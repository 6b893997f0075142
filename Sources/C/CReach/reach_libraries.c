// Opens libnice and Avahi on first use (see reach_libraries.h).
#define ZRC_REACH_LIBRARIES_LOADER
#include "reach_libraries.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

struct zrc_nice_functions zrc_nice;
struct zrc_avahi_functions zrc_avahi;

#define ZRC_LIBRARY_NAME(name) #name,
#define ZRC_LIBRARY_SLOT(name) (void **)&zrc_nice.name,
static const char *const nice_names[] = {ZRC_NICE_FUNCTIONS(ZRC_LIBRARY_NAME)};
static void **const nice_slots[] = {ZRC_NICE_FUNCTIONS(ZRC_LIBRARY_SLOT)};
#undef ZRC_LIBRARY_SLOT
#define ZRC_LIBRARY_SLOT(name) (void **)&zrc_avahi.name,
static const char *const avahi_names[] = {ZRC_AVAHI_FUNCTIONS(ZRC_LIBRARY_NAME)};
static void **const avahi_slots[] = {ZRC_AVAHI_FUNCTIONS(ZRC_LIBRARY_SLOT)};
#undef ZRC_LIBRARY_SLOT
#undef ZRC_LIBRARY_NAME

typedef struct {
    pthread_once_t once;
    int status;        // 0 loaded, -1 not
    char failure[256]; // why not
} Loading;

// Opens `files` (kept open for the process's life) and fills each slot with the function of that
// name from the first of them that has it. The libraries are opened RTLD_LOCAL: their symbols
// stay out of the process's global scope, as they would for a linked library nobody else calls.
static void load(Loading *loading, const char *const *files, int file_count, const char *const *names, void **const *slots,
                 size_t count) {
    void *handles[2] = {NULL, NULL};
    for (int i = 0; i < file_count; i++) {
        handles[i] = dlopen(files[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            const char *why = dlerror();
            snprintf(loading->failure, sizeof loading->failure, "cannot load %s (%s)", files[i], why ? why : "not found");
            loading->status = -1;
            return;
        }
    }
    for (size_t i = 0; i < count; i++) {
        void *found = NULL;
        for (int h = 0; h < file_count && !found; h++) found = dlsym(handles[h], names[i]);
        if (!found) {
            snprintf(loading->failure, sizeof loading->failure, "%s has no %s", files[0], names[i]);
            loading->status = -1;
            return;
        }
        *slots[i] = found;
    }
    loading->status = 0;
}

static void report(const Loading *loading, char *error, size_t error_size) {
    if (loading->status != 0 && error && error_size > 0) snprintf(error, error_size, "%s", loading->failure);
}

static Loading nice_loading = {.once = PTHREAD_ONCE_INIT};
static Loading avahi_loading = {.once = PTHREAD_ONCE_INIT};

static void load_nice(void) {
    static const char *const files[] = {ZRC_NICE_LIBRARY};
    load(&nice_loading, files, 1, nice_names, nice_slots, sizeof nice_names / sizeof nice_names[0]);
}

static void load_avahi(void) {
    static const char *const files[] = {ZRC_AVAHI_CLIENT_LIBRARY, ZRC_AVAHI_GLIB_LIBRARY};
    load(&avahi_loading, files, 2, avahi_names, avahi_slots, sizeof avahi_names / sizeof avahi_names[0]);
}

int zrc_load_nice(char *error, size_t error_size) {
    pthread_once(&nice_loading.once, load_nice);
    report(&nice_loading, error, error_size);
    return nice_loading.status;
}

int zrc_load_avahi(char *error, size_t error_size) {
    pthread_once(&avahi_loading.once, load_avahi);
    report(&avahi_loading, error, error_size);
    return avahi_loading.status;
}
