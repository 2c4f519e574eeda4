package optim

// MatchNames returns a predicate, for Config.NoDecay, that is true for names
// matching any of the patterns. In a pattern '*' matches any run of
// characters (dots and slashes included) and every other character itself:
// "*.bias", "*.ln*.gain", "embed*".
func MatchNames(patterns ...string) func(name string) bool {
	return func(name string) bool {
		for _, p := range patterns {
			if glob(p, name) {
				return true
			}
		}
		return false
	}
}

// glob matches with backtracking to the last '*' only, which is linear
// enough for parameter names.
func glob(pattern, name string) bool {
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, n
			p++
		case p < len(pattern) && pattern[p] == name[n]:
			p++
			n++
		case star >= 0:
			p = star + 1
			mark++
			n = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
