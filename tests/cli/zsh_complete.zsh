#!/usr/bin/env zsh
# What zsh's completion system offers for a command line, one candidate a line: a real interactive
# zsh in a pseudo-terminal (zpty) loads the completion function from FPATH_DIR with compinit, the
# line is typed and TAB pressed, and every candidate handed to compadd is collected.
#   zsh -f zsh_complete.zsh FPATH_DIR 'fabricbench run --'
emulate -L zsh
zmodload zsh/zpty || exit 3
fpath_dir=$1 typed=$2
hits=$(mktemp) || exit 3
zpty shell zsh -f -i
zpty -w shell "PS1=''; fpath=(${(q)fpath_dir} \$fpath); autoload -Uz compinit; compinit -u -D"
# compadd -O collects what a call would add without adding it; then the call goes ahead as usual.
zpty -w shell "compadd() { local -a found; builtin compadd -O found \"\$@\"; print -rl -- \$found >> ${(q)hits}; builtin compadd \"\$@\"; }"
zpty -w shell "${typed}"$'\t'
# Ctrl-U drops the completed line; the marker, printed once completion is over, is split in the
# command so that only its output matches.
zpty -w shell $'\C-u'"print -r -- COMPLETION''-DONE"
zpty -r shell output '*COMPLETION-DONE*' || exit 3
zpty -d shell
grep -v "^$" $hits | sort -u
rm -f $hits
