# bash completion for tslice: options, input files (.npy, .npz, .safetensors first), the op
# names inside --op '{"op": "...', the --format values, and for -k/--key the arrays of the
# INPUT already on the line (from `tslice INPUT --list --json`, run by the tslice the command
# line names, so that ./build/tslice completes without a tslice on PATH).

# The arrays' names in `tslice FILE --list --json` output, one a line. A name is a JSON string;
# the escapes names could hold (\" and \\) are undone, the rare others left as written.
_tslice_array_names() {
    local file=$1 program=${COMP_WORDS[0]} json
    [[ $file == -* ]] && file=./$file  # not an option
    program=${program/#\~/$HOME}
    # The command being typed (./build/tslice, a path, or a name on PATH), else tslice.
    if [[ ! ( $program == */* && -x $program ) ]] && ! type -P "$program" >/dev/null 2>&1; then
        program=tslice
    fi
    json=$(command "$program" "$file" --list --json 2>/dev/null) || return
    grep -o '"name": "\([^"\\]\|\\.\)*"' <<<"$json" | sed -e 's/^"name": "//' -e 's/"$//' \
        -e 's/\\"/"/g' -e 's/\\\\/\\/g'
}

# The INPUT on the line: the first word that is neither an option nor an option's value.
_tslice_input() {
    local i word
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case $word in
            --) ((i + 1 < COMP_CWORD)) && { printf '%s\n' "${COMP_WORDS[i + 1]}"; return; } ;;
            --op | -o | --output | -k | --key | --as | --format | -t | --threads | --precision | --linewidth | --chunks | --compressor | --astype) ((i++)) ;;
            -*) ;;
            *) printf '%s\n' "$word"; return ;;
        esac
    done
}

_tslice() {
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    local options="-h --help --op -o --output -k --key --update --as --format -s --shape --list --json --explain --full
        --precision --linewidth -q --quiet --sync -f --force -t --threads --version --chunks --compressor --astype --stats"
    local ops="strided_slice slice slice1 gather index"

    case $prev in
        -k | --key)
            local input names
            input=$(_tslice_input)
            input=${input/#\~/$HOME}
            # A file, or a directory (a Zarr store)
            if [[ -n $input && -e $input ]]; then
                names=$(_tslice_array_names "$input")
                local IFS=$'\n'
                COMPREPLY=($(compgen -W "$names" -- "$cur"))
            fi
            return
            ;;
        --format)
            COMPREPLY=($(compgen -W "npy npz safetensors json csv zarr" -- "$cur"))
            return
            ;;
        --compressor)
            COMPREPLY=($(compgen -W "zstd blosc zlib none" -- "$cur"))
            return
            ;;
        --chunks)
            return
            ;;
        --astype)
            COMPREPLY=($(compgen -W "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64
                complex64 complex128 bfloat16 float8_e4m3fn float8_e5m2 float8_e8m0fnu" -- "$cur"))
            return
            ;;
        -t | --threads)
            COMPREPLY=($(compgen -W "1 2 4 8 16" -- "$cur"))
            return
            ;;
        --precision | --linewidth)
            return
            ;;
        --op)
            # Inside a JSON spec: the op names after "op": "
            if [[ $cur == *'"op"'*':'*'"'* ]]; then
                local head=${cur%\"*} partial=${cur##*\"}
                local op
                COMPREPLY=()
                for op in $ops; do
                    [[ $op == "$partial"* ]] && COMPREPLY+=("$head\"$op\"")
                done
                compopt -o nospace 2>/dev/null
            elif [[ $cur == @* ]]; then
                COMPREPLY=($(compgen -f -P @ -- "${cur#@}"))
            else
                COMPREPLY=("'{\"op\": \"")
                compopt -o nospace 2>/dev/null
            fi
            return
            ;;
        -o | --output)
            COMPREPLY=($(compgen -f -- "$cur"))
            compopt -o filenames 2>/dev/null
            return
            ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return
    fi
    # Files: arrays first; other files and directories when none match.
    local IFS=$'\n' restore
    restore=$(shopt -p extglob)
    shopt -s extglob
    COMPREPLY=($(compgen -f -X '!*.@(npy|npz|safetensors)' -- "$cur") $(compgen -d -- "$cur"))
    eval "$restore"
    if ((${#COMPREPLY[@]} == 0)); then
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
    compopt -o filenames 2>/dev/null
}

complete -F _tslice tslice
