package eval

import (
	"slices"
	"strings"
)

// biCompgen is compgen for the lists a script asks for outside completion: variable,
// exported-variable, function and alias names, and -W word lists, filtered by a prefix
// (`compgen -v APP_`, `compgen -A function cmd_`). Actions that list the host (commands,
// files, users, jobs ...) and the filters -X/-G/-F/-C are refused.
func biCompgen(r *Runner, args []string) int {
	var actions []string
	var words, prefix, suffix string
	haveWords := false
	rest := args[1:]
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && rest[0] != "-" {
		opt := rest[0]
		rest = rest[1:]
		if opt == "--" {
			break
		}
		for i := 1; i < len(opt); i++ {
			c := opt[i]
			switch c {
			case 'v', 'e', 'a':
				actions = append(actions, map[byte]string{'v': "variable", 'e': "export", 'a': "alias"}[c])
				continue
			case 'A', 'W', 'P', 'S':
			default:
				return biRefusedOpt(r, "compgen -"+string(c))
			}
			// An option with a value: the rest of this word, else the next word.
			val := opt[i+1:]
			if val == "" {
				if len(rest) == 0 {
					r.errorf("compgen: -%c: option requires an argument", c)
					r.usage("compgen")
					return 2
				}
				val, rest = rest[0], rest[1:]
			}
			switch c {
			case 'A':
				switch val {
				case "variable", "export", "alias", "function":
					actions = append(actions, val)
				default:
					return biRefusedOpt(r, "compgen -A "+val)
				}
			case 'W':
				if strings.ContainsAny(val, "\"'\\$`") {
					return biRefusedOpt(r, "compgen -W with quotes or expansions in the word list")
				}
				words, haveWords = val, true
			case 'P':
				prefix = val
			case 'S':
				suffix = val
			}
			break
		}
	}
	word := ""
	if len(rest) > 0 {
		word = rest[0]
	}
	var cands []string
	// bash goes through the actions in this order, whatever the order of the options.
	for _, act := range []string{"alias", "export", "function", "variable"} {
		if slices.Contains(actions, act) {
			cands = append(cands, r.compgenNames(act)...)
		}
	}
	if haveWords {
		ifs := r.ifsValue()
		cands = append(cands, strings.FieldsFunc(words, func(c rune) bool { return strings.ContainsRune(ifs, c) })...)
	}
	var b strings.Builder
	found := false
	for _, c := range cands {
		if strings.HasPrefix(c, word) {
			found = true
			b.WriteString(prefix + c + suffix + "\n")
		}
	}
	if st := r.out("compgen", b.String()); st != 0 {
		return st
	}
	if !found {
		return 1
	}
	return 0
}

// compgenNames lists the names of one compgen action, sorted as bash lists them.
func (r *Runner) compgenNames(action string) []string {
	var out []string
	switch action {
	case "alias":
		for n := range r.aliases {
			out = append(out, n)
		}
		slices.Sort(out)
	case "function":
		for n := range r.funcs.m {
			out = append(out, n)
		}
		slices.Sort(out)
	case "variable":
		out = r.varNamesWithPrefix("")
	case "export":
		for _, n := range r.varNamesWithPrefix("") {
			if v, _, ok := r.lookupVarNoRef(n); ok && v.set && v.attrs&attrExport != 0 {
				out = append(out, n)
			}
		}
	}
	return out
}
