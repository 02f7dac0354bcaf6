/*
 * smt_guest.c - the runtime half of the C SDK: the `alloc`/`dealloc` exports
 * the host calls, a small allocator, and the few libc routines clang emits
 * calls to even under -nostdlib.
 *
 * Allocator: power-of-two size classes with one free list per class.  Each
 * block starts with an 8-byte header holding its class, so smt_free() does
 * not need the length and a freed block is reused by the next allocation
 * of the same class.  Memory is never returned to the host (Wasm cannot
 * shrink), but a guest that frees what it takes runs in constant memory.
 */
#include "smt_guest.h"

#define SMT_HEADER_SIZE 8u
#define SMT_MIN_BLOCK 16u
#define SMT_CLASSES 28 /* blocks up to 16 << 27 = 2 GiB */
#define SMT_PAGE 65536u

extern unsigned char __heap_base; /* provided by wasm-ld */

static uint8_t *free_lists[SMT_CLASSES];
static uintptr_t heap_top;

static unsigned size_class(uint32_t len) {
    uint64_t need = (uint64_t)len + SMT_HEADER_SIZE;
    unsigned cls = 0;
    while (((uint64_t)SMT_MIN_BLOCK << cls) < need) cls++;
    return cls;
}

/* Carves a fresh block from the end of the heap, growing memory as needed. */
static uint8_t *carve(uint32_t block_size) {
    if (heap_top == 0) heap_top = ((uintptr_t)&__heap_base + 7u) & ~(uintptr_t)7u;
    uintptr_t end = heap_top + block_size;
    uintptr_t have = (uintptr_t)__builtin_wasm_memory_size(0) * SMT_PAGE;
    if (end > have) {
        uintptr_t pages = (end - have + SMT_PAGE - 1) / SMT_PAGE;
        if (__builtin_wasm_memory_grow(0, pages) == (size_t)-1) __builtin_trap();
    }
    uint8_t *block = (uint8_t *)heap_top;
    heap_top = end;
    return block;
}

uint8_t *smt_alloc(uint32_t len) {
    unsigned cls = size_class(len);
    if (cls >= SMT_CLASSES) __builtin_trap();
    uint8_t *block = free_lists[cls];
    if (block) {
        free_lists[cls] = *(uint8_t **)block;
    } else {
        block = carve(SMT_MIN_BLOCK << cls);
    }
    *(uint32_t *)block = cls;
    return block + SMT_HEADER_SIZE;
}

void smt_free(void *ptr, uint32_t len) {
    (void)len; /* the header knows the class */
    if (!ptr) return;
    uint8_t *block = (uint8_t *)ptr - SMT_HEADER_SIZE;
    unsigned cls = *(uint32_t *)block;
    *(uint8_t **)block = free_lists[cls];
    free_lists[cls] = block;
}

/* The host calls these: `alloc` re-entrantly from inside a getter, to place
 * the bytes it returns; `dealloc` is the guest's to call, exported for hosts
 * that release guest buffers themselves. */
__attribute__((export_name("alloc"))) uint8_t *smt__export_alloc(uint32_t len) { return smt_alloc(len); }
__attribute__((export_name("dealloc"))) void smt__export_dealloc(uint8_t *ptr, uint32_t len) { smt_free(ptr, len); }

/* Tells the host which ABI version this guest was built against. */
__attribute__((export_name("smt_abi_version"))) int32_t smt__export_abi_version(void) { return SMT_ABI_VERSION; }

/* memory.copy / memory.fill come from -mbulk-memory. */
void *memcpy(void *dst, const void *src, size_t n) { __builtin_memcpy(dst, src, n); return dst; }
void *memmove(void *dst, const void *src, size_t n) { __builtin_memmove(dst, src, n); return dst; }
void *memset(void *dst, int c, size_t n) { __builtin_memset(dst, c, n); return dst; }

int memcmp(const void *a, const void *b, size_t n) {
    const uint8_t *x = a, *y = b;
    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}

size_t strlen(const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    return n;
}
