# SPDX-License-Identifier: MIT
# bash completion for gridkit (installed as share/bash-completion/completions/gridkit).
# Commands, each command's options as its --help lists them, and after -a the
# algorithms and their keys as the program's registry gives them
# (gridkit grid --algorithms; gridkit ridges --help for the ridge methods), so
# that it stays true to the installed program.

_gridkit_algorithms() { # name<TAB>key, key, ... per line
    local prog=$1 cmd=$2
    if [ "$cmd" = ridges ]; then
        "$prog" ridges --help 2>/dev/null | awk '
            /^  [a-z]+:/ { if (name) print name "\t" keys; split($1, p, ":"); name = p[1]; keys = ""; blk = 1 }
            blk && /^  +[a-z_]+[=:]/ { n = split($0, f, /[: ]+/); for (i = 1; i <= n; i++) if (f[i] ~ /=/) { split(f[i], kv, "="); keys = keys (keys ? ", " : "") kv[1] } next }
            /^      [A-Z]/ { blk = 0 }
            END { if (name) print name "\t" keys }'
    else
        "$prog" grid --algorithms 2>/dev/null | cut -f1,2
    fi
}

_gridkit() {
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion -n := || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi
    local prog=${words[0]} cmd="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
        grid | variogram | cv | ridges) cmd=${words[i]}; break ;;
        esac
    done
    if [ -z "$cmd" ]; then
        COMPREPLY=($(compgen -W "grid variogram cv ridges --version --help" -- "$cur"))
        return
    fi
    if [ "$prev" = -a ]; then
        local table name keys
        table=$(_gridkit_algorithms "$prog" "$cmd")
        if [[ $cur == *:* ]]; then # name:key=v:... -> the name's keys
            name=${cur%%:*}
            keys=$(printf '%s\n' "$table" | awk -F'\t' -v n="$name" '$1 == n { print $2 }' | tr -d ',')
            local head=${cur%:*}: k out=()
            for k in $keys; do out+=("$head$k="); done
            COMPREPLY=($(compgen -W "${out[*]}" -- "$cur"))
            compopt -o nospace 2>/dev/null
        else
            COMPREPLY=($(compgen -W "$(printf '%s\n' "$table" | cut -f1)" -- "$cur"))
        fi
        if declare -F __ltrim_colon_completions >/dev/null; then
            __ltrim_colon_completions "$cur"
        fi
        return 0
    fi
    case $prev in
    --device) COMPREPLY=($(compgen -W "auto cpu cuda cuda:0 cuda:1" -- "$cur")); return ;;
    --precision) COMPREPLY=($(compgen -W "single double" -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "table csv json text" -- "$cur")); return ;;
    -ot) COMPREPLY=($(compgen -W "Byte Int16 UInt16 Int32 UInt32 Float32 Float64" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$("$prog" "$cmd" --help 2>/dev/null | grep -oE -- '(^|[[ ])--?[a-zA-Z][a-zA-Z0-9_-]*' | tr -d '[ ' | sort -u)" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _gridkit gridkit
