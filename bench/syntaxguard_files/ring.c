#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A ring buffer of bytes. */
typedef struct {
    unsigned char *data;
    size_t size;
    size_t head;
    size_t len;
} ring_t;

static int ring_init(ring_t *r, size_t size) {
    r->data = malloc(size);
    if (!r->data) {
        return -1;
    }
    r->size = size;
    r->head = 0;
    r->len = 0;
    return 0;
}

size_t ring_write(ring_t *r, const void *src, size_t n) {
    const unsigned char *p = src;
    size_t written = 0;
    while (written < n && r->len < r->size) {
        r->data[(r->head + r->len) % r->size] = p[written++];
        r->len++;
    }
    return written;
}

size_t ring_read(ring_t *r, void *dst, size_t n) {
    unsigned char *p = dst;
    size_t i;
    for (i = 0; i < n && r->len > 0; i++) {
        p[i] = r->data[r->head];
        r->head = (r->head + 1) % r->size;
        r->len--;
    }
    return i;
}

int main(void) {
    ring_t r;
    char out[8] = {0};
    if (ring_init(&r, 4) != 0) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    ring_write(&r, "hello", 5);
    ring_read(&r, out, sizeof out - 1);
    printf("%s (%zu left)\n", out, r.len);
    free(r.data);
    return 0;
}
