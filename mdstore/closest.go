package mdstore

// Closest is the name of names a slip away from word, for a "did you
// mean" hint: at most one edit (a letter added, dropped or changed, or two
// adjacent letters swapped) per three letters of word, the fewest edits
// first, then the earlier name; "" when none is that close. A name far
// from the word is never offered, however few names there are.
func Closest(word string, names []string) string {
	best, bestD := "", -1
	for _, n := range names {
		if n == word {
			continue
		}
		d := editDistance(word, n)
		if d <= max(1, len(word)/3) && (bestD < 0 || d < bestD) {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and swaps of two adjacent bytes.
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
