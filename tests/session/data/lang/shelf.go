package shelf

import "sort"

// Shelf holds books by title.
type Shelf struct {
	books map[string]int
}

// Add puts n copies of title on the shelf.
func (s *Shelf) Add(title string, n int) {
	s.books[title] += n
}

func (s *Shelf) Count(title string) int {
	return s.books[title]
}

func (s *Shelf) Titles() []string {
	out := make([]string, 0, len(s.books))
	for t := range s.books {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
