package eval

// optSet is a set of `set -o` or shopt options, one bit each.
type optSet uint64

func (o optSet) has(b optSet) bool { return o&b != 0 }

// `set -o` options, in bash's listing order.
const (
	optAllexport optSet = 1 << iota
	optBraceexpand
	optEmacs
	optErrexit
	optErrtrace
	optFunctrace
	optHashall
	optHistexpand
	optHistory
	optIgnoreeof
	optInteractiveComments
	optKeyword
	optMonitor
	optNoclobber
	optNoexec
	optNoglob
	optNolog
	optNotify
	optNounset
	optOnecmd
	optPhysical
	optPipefail
	optPosix
	optPrivileged
	optVerbose
	optVi
	optXtrace
)

type optInfo struct {
	name   string
	letter byte // 0: no single-letter flag
	bit    optSet
	// supported is false for options whose effect the evaluator does not reproduce; setting
	// them on is refused.
	supported bool
}

var setOptions = []optInfo{
	{"allexport", 'a', optAllexport, true},
	{"braceexpand", 'B', optBraceexpand, true},
	{"emacs", 0, optEmacs, true},
	{"errexit", 'e', optErrexit, true},
	{"errtrace", 'E', optErrtrace, true},
	{"functrace", 'T', optFunctrace, true},
	{"hashall", 'h', optHashall, true},
	{"histexpand", 'H', optHistexpand, true},
	{"history", 0, optHistory, true},
	{"ignoreeof", 0, optIgnoreeof, true},
	{"interactive-comments", 0, optInteractiveComments, true},
	{"keyword", 'k', optKeyword, false},
	{"monitor", 'm', optMonitor, false},
	{"noclobber", 'C', optNoclobber, true},
	{"noexec", 'n', optNoexec, true},
	{"noglob", 'f', optNoglob, true},
	{"nolog", 0, optNolog, true},
	{"notify", 'b', optNotify, true},
	{"nounset", 'u', optNounset, true},
	{"onecmd", 't', optOnecmd, false},
	{"physical", 'P', optPhysical, true},
	{"pipefail", 0, optPipefail, true},
	{"posix", 0, optPosix, false},
	{"privileged", 'p', optPrivileged, true},
	{"verbose", 'v', optVerbose, false},
	{"vi", 0, optVi, true},
	{"xtrace", 'x', optXtrace, true},
}

const defaultSetOpts = optBraceexpand | optHashall | optInteractiveComments

// dashFlags is the order bash prints $- in.
const dashFlags = "abefhkmnptuvxBCEHPT"

func setOptByLetter(c byte) (optInfo, bool) {
	for _, o := range setOptions {
		if o.letter == c {
			return o, true
		}
	}
	return optInfo{}, false
}

func setOptByName(name string) (optInfo, bool) {
	for _, o := range setOptions {
		if o.name == name {
			return o, true
		}
	}
	return optInfo{}, false
}

// shopt options, in bash's listing order.
const (
	shAutocd optSet = 1 << iota
	shAssocExpandOnce
	shCdableVars
	shCdspell
	shCheckhash
	shCheckjobs
	shCheckwinsize
	shCmdhist
	shCompat31
	shCompat32
	shCompat40
	shCompat41
	shCompat42
	shCompat43
	shCompat44
	shCompleteFullquote
	shDirexpand
	shDirspell
	shDotglob
	shExecfail
	shExpandAliases
	shExtdebug
	shExtglob
	shExtquote
	shFailglob
	shForceFignore
	shGlobasciiranges
	shGlobskipdots
	shGlobstar
	shGnuErrfmt
	shHistappend
	shHistreedit
	shHistverify
	shHostcomplete
	shHuponexit
	shInheritErrexit
	shInteractiveComments
	shLastpipe
	shLithist
	shLocalvarInherit
	shLocalvarUnset
	shLoginShell
	shMailwarn
	shNoEmptyCmdCompletion
	shNocaseglob
	shNocasematch
	shNoexpandTranslation
	shNullglob
	shPatsubReplacement
	shProgcomp
	shProgcompAlias
	shPromptvars
	shRestrictedShell
	shShiftVerbose
	shSourcepath
	shVarredirClose
	shXpgEcho
)

var shoptOptions = []optInfo{
	{"autocd", 0, shAutocd, true},
	{"assoc_expand_once", 0, shAssocExpandOnce, false},
	{"cdable_vars", 0, shCdableVars, false},
	{"cdspell", 0, shCdspell, true},
	{"checkhash", 0, shCheckhash, true},
	{"checkjobs", 0, shCheckjobs, true},
	{"checkwinsize", 0, shCheckwinsize, true},
	{"cmdhist", 0, shCmdhist, true},
	{"compat31", 0, shCompat31, false},
	{"compat32", 0, shCompat32, false},
	{"compat40", 0, shCompat40, false},
	{"compat41", 0, shCompat41, false},
	{"compat42", 0, shCompat42, false},
	{"compat43", 0, shCompat43, false},
	{"compat44", 0, shCompat44, false},
	{"complete_fullquote", 0, shCompleteFullquote, true},
	{"direxpand", 0, shDirexpand, true},
	{"dirspell", 0, shDirspell, true},
	{"dotglob", 0, shDotglob, true},
	{"execfail", 0, shExecfail, true},
	{"expand_aliases", 0, shExpandAliases, true},
	{"extdebug", 0, shExtdebug, false},
	{"extglob", 0, shExtglob, true},
	{"extquote", 0, shExtquote, true},
	{"failglob", 0, shFailglob, true},
	{"force_fignore", 0, shForceFignore, true},
	{"globasciiranges", 0, shGlobasciiranges, true},
	{"globskipdots", 0, shGlobskipdots, true},
	{"globstar", 0, shGlobstar, true},
	{"gnu_errfmt", 0, shGnuErrfmt, true},
	{"histappend", 0, shHistappend, true},
	{"histreedit", 0, shHistreedit, true},
	{"histverify", 0, shHistverify, true},
	{"hostcomplete", 0, shHostcomplete, true},
	{"huponexit", 0, shHuponexit, true},
	{"inherit_errexit", 0, shInheritErrexit, true},
	{"interactive_comments", 0, shInteractiveComments, true},
	{"lastpipe", 0, shLastpipe, true},
	{"lithist", 0, shLithist, true},
	{"localvar_inherit", 0, shLocalvarInherit, true},
	{"localvar_unset", 0, shLocalvarUnset, true},
	{"login_shell", 0, shLoginShell, true},
	{"mailwarn", 0, shMailwarn, true},
	{"no_empty_cmd_completion", 0, shNoEmptyCmdCompletion, true},
	{"nocaseglob", 0, shNocaseglob, true},
	{"nocasematch", 0, shNocasematch, true},
	{"noexpand_translation", 0, shNoexpandTranslation, true},
	{"nullglob", 0, shNullglob, true},
	{"patsub_replacement", 0, shPatsubReplacement, true},
	{"progcomp", 0, shProgcomp, true},
	{"progcomp_alias", 0, shProgcompAlias, true},
	{"promptvars", 0, shPromptvars, true},
	{"restricted_shell", 0, shRestrictedShell, true},
	{"shift_verbose", 0, shShiftVerbose, true},
	{"sourcepath", 0, shSourcepath, true},
	{"varredir_close", 0, shVarredirClose, false},
	{"xpg_echo", 0, shXpgEcho, false},
}

const defaultShopts = shCheckwinsize | shCmdhist | shCompleteFullquote | shExtquote | shForceFignore |
	shGlobasciiranges | shGlobskipdots | shHostcomplete | shInteractiveComments | shPatsubReplacement |
	shProgcomp | shPromptvars | shSourcepath

func shoptByName(name string) (optInfo, bool) {
	for _, o := range shoptOptions {
		if o.name == name {
			return o, true
		}
	}
	return optInfo{}, false
}

// dashValue is $-.
func (r *Runner) dashValue() string {
	var b []byte
	for i := 0; i < len(dashFlags); i++ {
		c := dashFlags[i]
		if o, ok := setOptByLetter(c); ok && r.opts.has(o.bit) {
			b = append(b, c)
		}
	}
	return string(b) + r.flags
}

// shelloptsValue is $SHELLOPTS.
func (r *Runner) shelloptsValue() string {
	var b []byte
	for _, o := range setOptions {
		if r.opts.has(o.bit) {
			if len(b) > 0 {
				b = append(b, ':')
			}
			b = append(b, o.name...)
		}
	}
	return string(b)
}

// bashoptsValue is $BASHOPTS.
func (r *Runner) bashoptsValue() string {
	var b []byte
	for _, o := range shoptOptions {
		if r.shopts.has(o.bit) {
			if len(b) > 0 {
				b = append(b, ':')
			}
			b = append(b, o.name...)
		}
	}
	return string(b)
}
