package cache

import (
	"container/list"
	"fmt"
	"sync"
)

// LRU is a fixed-size least-recently-used cache, safe for concurrent use.
type LRU struct {
	mu    sync.Mutex
	size  int
	order *list.List
	items map[string]*list.Element
}

type entry struct {
	key   string
	value interface{}
}

// New returns an LRU that holds at most size items.
func New(size int) (*LRU, error) {
	if size <= 0 {
		return nil, fmt.Errorf("cache: size %d must be positive", size)
	}
	return &LRU{size: size, order: list.New(), items: make(map[string]*list.Element)}, nil
}

// Get returns the value for key and whether it was there.
func (c *LRU) Get(key string) (interface{}, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*entry).value, true
	}
	return nil, false
}

// Put stores value under key, evicting the oldest item when full.
func (c *LRU) Put(key string, value interface{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value.(*entry).value = value
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&entry{key, value})
	for c.order.Len() > c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.items, oldest.Value.(*entry).key)
	}
}

func (c *LRU) String() string {
	return fmt.Sprintf("LRU(%d/%d)", c.order.Len(), c.size)
}
