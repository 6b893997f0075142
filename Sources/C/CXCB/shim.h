#include <xcb/xcb.h>
#include <xcb/shm.h>
#include <xcb/xtest.h>
#include <xcb/damage.h>
#include <xcb/xfixes.h>
#include <xcb/randr.h>
#include <xcb/render.h>

// Swift cannot import the extension id globals (extern of an incomplete struct type);
// these accessors hand out their addresses instead.
static inline xcb_extension_t *zrc_xcb_shm_id(void) { return &xcb_shm_id; }
static inline xcb_extension_t *zrc_xcb_test_id(void) { return &xcb_test_id; }
static inline xcb_extension_t *zrc_xcb_damage_id(void) { return &xcb_damage_id; }
static inline xcb_extension_t *zrc_xcb_xfixes_id(void) { return &xcb_xfixes_id; }
static inline xcb_extension_t *zrc_xcb_randr_id(void) { return &xcb_randr_id; }
