#!/usr/bin/env bash
# The shell completions: drives the bash one as bash does (COMP_WORDS, COMP_CWORD, then the
# function `complete -p tslice` names) and checks what it offers; checks that the zsh and fish
# ones parse. Exits 77 (a skip) when zsh or fish is missing, after the bash checks pass.
#
#   test_completion.sh TSLICE_BINARY SOURCE_DIR
set -uo pipefail
tslice_binary=$1
source_dir=$(realpath "$2")
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

work=$(mktemp -d)
bin=$(mktemp -d)
trap 'rm -rf "$work" "$bin"' EXIT
ln -s "$(realpath "$tslice_binary")" "$bin/tslice"
export PATH="$bin:$PATH"
cp "$source_dir/data/weight_bias_compressed.npz" "$work/w.npz"
cp "$source_dir/data/f32_bf16.safetensors" "$work/m.safetensors"
cp "$source_dir/data/arange_2x3x4_f4.npy" "$work/a.npy"
touch "$work/notes.txt"
cd "$work" || exit 1

source "$source_dir/completions/tslice.bash"
spec=$(complete -p tslice) || fail "complete -p tslice: no completion registered"
function_name=$(sed -n 's/.*-F \([^ ]*\) .*/\1/p' <<<"$spec")
[[ -n $function_name ]] || fail "no completion function in: $spec"

# complete WORD... : the offers for the last word of the command line WORD...
complete_line() {
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    "$function_name" tslice "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf '%s\n' "${COMPREPLY[@]}" | sort
}

expect() {
    local what=$1 expected=$2 got=$3
    [[ $got == "$expected" ]] || fail "$what: expected [$(tr '\n' ' ' <<<"$expected")], got [$(tr '\n' ' ' <<<"$got")]"
}

expect "options after --f" "$(printf '%s\n' --force --format --full)" "$(complete_line tslice --f)"
expect "array files first" "$(printf '%s\n' a.npy m.safetensors w.npz)" "$(complete_line tslice '')"
expect "other files when no array matches" "notes.txt" "$(complete_line tslice no)"
expect "--key of an .npz" "$(printf '%s\n' bias weight)" "$(complete_line tslice w.npz -k '')"
expect "--key of a .safetensors, by prefix" "scale" "$(complete_line tslice m.safetensors --key s)"
expect "--key after an option with a value" "$(printf '%s\n' bias weight)" \
    "$(complete_line tslice -t 2 w.npz "[0]" --key '')"
expect "--key before INPUT is typed" "" "$(complete_line tslice --key '')"
expect "--format" "$(printf '%s\n' npy npz)" "$(complete_line tslice a.npy -o x --format np)"
expect "--format, text" "$(printf '%s\n' csv)" "$(complete_line tslice a.npy --format c)"
expect "--key after --precision N" "$(printf '%s\n' bias weight)" "$(complete_line tslice --precision 3 w.npz --key '')"
expect "the op spec's start" "'{\"op\": \"" "$(complete_line tslice a.npy --op '')"
expect "op names" "$(printf '%s\n' "'{\"op\": \"slice\"" "'{\"op\": \"slice1\"")" \
    "$(complete_line tslice a.npy --op "'{\"op\": \"sl")"
expect "op names, gather" "'{\"op\": \"gather\"" "$(complete_line tslice a.npy --op "'{\"op\": \"g")"
expect "--key after --as NAME" "$(printf '%s\n' bias weight)" "$(complete_line tslice --as x w.npz --key '')"
expect "--update, --as and --astype among the options" "$(printf '%s\n' --update --as --astype)" \
    "$(complete_line tslice a.npy --u; complete_line tslice a.npy --a)"
# -k without a tslice on PATH: the tslice the command line names lists the arrays.
expect "--key by the tslice typed, none on PATH" "$(printf '%s\n' bias weight)" \
    "$(PATH=/usr/bin:/bin; complete_line "$bin/tslice" w.npz -k '')"
expect "--key by ./tslice, none on PATH" "$(printf '%s\n' bias weight)" \
    "$(cp "$bin/tslice" ./tslice-here; PATH=/usr/bin:/bin; complete_line ./tslice-here w.npz -k ''; rm -f ./tslice-here)"

skipped=()
if command -v zsh >/dev/null; then
    zsh -n "$source_dir/completions/_tslice" || fail "zsh -n _tslice"
else
    skipped+=(zsh)
fi
if command -v fish >/dev/null; then
    fish -n "$source_dir/completions/tslice.fish" || fail "fish -n tslice.fish"
    got=$(PATH=/usr/bin:/bin fish --no-config -c "source '$source_dir/completions/tslice.fish'; complete -C '$bin/tslice w.npz -k '" |
        cut -f1 | sort)
    expect "fish: --key by the tslice typed, none on PATH" "$(printf '%s\n' bias weight)" "$got"
else
    skipped+=(fish)
fi

if ((failures)); then
    echo "$failures completion check(s) failed" >&2
    exit 1
fi
if ((${#skipped[@]})); then
    echo "SKIP: not installed: ${skipped[*]} (the bash checks passed)"
    exit 77
fi
echo "completion: all checks passed"
