#include <stdlib.h>

/* A singly linked list. */
struct node {
    int value;
    struct node *next;
};

static int length(const struct node *head) {
    int n = 0;
    while (head) {
        n++;
        head = head->next;
    }
    return n;
}
