package queue

// Queue is a FIFO.
type Queue struct {
	items []int
}

// Push adds x at the back.
func (q *Queue) Push(x int) {
	q.items = append(q.items, x)
}

func Max(a, b int) int {
	if a > b {
		return a
	}
	return b
}
