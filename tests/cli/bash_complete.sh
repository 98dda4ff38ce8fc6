#!/usr/bin/env bash
# What bash offers for a command line, one candidate a line: the completion script is sourced into
# a bash of its own and the function `complete` registered for fabricbench is called the way
# readline calls it, with the line split into COMP_WORDS and the cursor at its end.
#   bash_complete.sh COMPLETION_SCRIPT 'fabricbench run --'
set -euo pipefail
source "$1"
read -r -a COMP_WORDS <<<"$2"
[[ $2 == *' ' ]] && COMP_WORDS+=("")  # a trailing blank starts a new, empty word
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE=$2
COMP_POINT=${#COMP_LINE}
function_name=$(complete -p fabricbench | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
COMPREPLY=()
"$function_name" fabricbench "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}" | sort -u
