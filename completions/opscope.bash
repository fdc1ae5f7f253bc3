# bash completion for opscope(1)
#
# Commands, options and the values of --by, --format, --match, --scale and
# --measure are read from the --help of the opscope being completed, column
# names for --columns and --sort from `opscope --complete-columns LEVEL`: the
# completion follows the binary and cannot drift from it. TRACE and FILE arguments complete as files.

# The --help of `$1 [$2]`, cached per binary and command for the shell's life.
_opscope_help()
{
	local key="$1 $2"
	if [[ ${_opscope_help_key-} != "$key" ]]; then
		_opscope_help_text=$("$1" ${2:+"$2"} --help 2>/dev/null)
		_opscope_help_key=$key
	fi
	printf '%s\n' "$_opscope_help_text"
}

# The words listed in the help of option $1: "op (default), shape, ... or module".
_opscope_values()
{
	local line
	line=$(grep -E -- "--$1 [A-Z]+ " <<<"$2" | head -n 1)
	line=${line#*--$1 }
	line=${line#* }
	line=${line#"${line%%[! ]*}"}
	line=${line#*: }           # "output format: table (default), ..."
	line=${line#pair rows by } # --match
	line=${line//(default)/}
	line=${line// or /, }
	line=${line//,/ }
	printf '%s\n' $line
}

_opscope()
{
	local cur prev bin cmd help line level i eq=
	local -a opts argopts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	# --opt=value: bash splits at '=' (COMP_WORDBREAKS)
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $cur == --*=* ]]; then
		prev=${cur%%=*}
		eq=$prev=
		cur=${cur#*=}
	fi
	[[ $prev == = && $COMP_CWORD -ge 2 ]] && prev=${COMP_WORDS[COMP_CWORD - 2]}
	bin=${COMP_WORDS[0]}
	bin=${bin/#\~/$HOME}
	COMPREPLY=()

	local commands
	commands=$(_opscope_help "$bin" | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
	cmd=
	if ((COMP_CWORD > 1)) && [[ " $(echo $commands) " == *" ${COMP_WORDS[1]} "* ]]; then
		cmd=${COMP_WORDS[1]}
	fi
	help=$(_opscope_help "$bin" "$cmd")

	# Options of this command, and those that take an argument (-b, --by LEVEL).
	local re='^  (-([A-Za-z]), )? *--([a-z][a-z-]*)( ([A-Z][][A-Z0-9_./]*)( |$))?'
	while IFS= read -r line; do
		[[ $line =~ $re ]] || continue
		opts+=("--${BASH_REMATCH[3]}")
		if [[ -n ${BASH_REMATCH[5]} ]]; then
			argopts+=("--${BASH_REMATCH[3]}")
			[[ -n ${BASH_REMATCH[2]} ]] && argopts+=("-${BASH_REMATCH[2]}")
		fi
		# the short name stands for the long one below
		[[ -n ${BASH_REMATCH[2]} && $prev == "-${BASH_REMATCH[2]}" ]] && prev=--${BASH_REMATCH[3]}
	done <<<"$help"

	case " ${argopts[*]} " in
	*" $prev "*)
		case $prev in
		--by | --format | --match | --scale | --measure)
			COMPREPLY=($(compgen -W "$(_opscope_values "${prev#--}" "$help")" -- "$cur"))
			;;
		--columns | --sort)
			level=op
			for ((i = 1; i < COMP_CWORD; i++)); do
				case ${COMP_WORDS[i]} in
				-b | --by) level=${COMP_WORDS[i + 1]} ;;
				--by=*) level=${COMP_WORDS[i]#--by=} ;;
				esac
			done
			[[ $level == = ]] && level=op
			local prefix=
			[[ $prev == --columns && $cur == *,* ]] && prefix=${cur%,*},
			COMPREPLY=($(compgen -P "$prefix" -W \
				"$("$bin" --complete-columns "$level" 2>/dev/null)" -- "${cur##*,}"))
			[[ $prev == --columns ]] && compopt -o nospace 2>/dev/null
			;;
		--output | --categories | --script | --speedup-csv | --csv)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			;;
		esac
		# with '=' not a word break, the word being replaced is --opt=value
		[[ -n $eq ]] && COMPREPLY=("${COMPREPLY[@]/#/$eq}")
		return 0
		;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${opts[*]}" -- "$cur"))
		return 0
	fi
	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -f -- "$cur"))
	if ((COMP_CWORD == 1)); then
		COMPREPLY+=($(compgen -W "$commands" -- "$cur"))
	fi
	return 0
}

complete -F _opscope opscope
