# fish completion for tslice: options, input files, op names, --format values, and for
# -k/--key the arrays of the INPUT on the line.

function __tslice_input
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l skip 0
    for token in $tokens
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $token
            case --op -o --output -k --key --as --format -t --threads --precision --linewidth --chunks --compressor --astype
                set skip 1
            case '-*'
            case '*'
                echo $token
                return
        end
    end
end

function __tslice_keys
    set -l input (__tslice_input)
    test -n "$input"; and test -e "$input"; or return  # a file, or a Zarr store directory
    string match -q -- '-*' $input; and set input ./$input
    # The tslice the command line names (./build/tslice works without one on PATH).
    set -l program (commandline -opc)[1]
    if not begin; string match -q -- '*/*' $program; and test -x $program; end; and not command -q $program
        set program tslice
    end
    command $program $input --list --json 2>/dev/null | string match -ar '"name": "(?:[^"\\\\]|\\\\.)*"' | string replace -r '^"name": "(.*)"$' '$1'
end

complete -c tslice -f -a '(__fish_complete_suffix .npy .npz .safetensors)'
complete -c tslice -s h -l help -d 'print the options and exit'
complete -c tslice -l version -d 'print the version, the copy kernels and the compiler'
complete -c tslice -l op -x -a 'strided_slice slice slice1 gather index' -d 'a JSON op spec, or @FILE'
complete -c tslice -s o -l output -r -F -d 'write the result to PATH'
complete -c tslice -s k -l key -x -a '(__tslice_keys)' -d 'an array of a container INPUT, or a glob'
complete -c tslice -l update -d 'replace or add the results in the -o container'
complete -c tslice -l as -x -d "the result's name in an output container"
complete -c tslice -l format -x -a 'npy npz safetensors json csv zarr' -d 'the output format'
complete -c tslice -l chunks -x -d "a Zarr output's chunk shape (64,256,256)"
complete -c tslice -l compressor -x -a 'zstd blosc zlib none' -d "a Zarr output's compressor"
complete -c tslice -l astype -x -a 'bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64 complex64 complex128 bfloat16 float8_e4m3fn float8_e5m2 float8_e8m0fnu' -d "convert the result, as numpy's astype"
complete -c tslice -l stats -d "print the result's statistics instead of its values"
complete -c tslice -s s -l shape -d "dry run: print only the result's shape"
complete -c tslice -l list -d 'print every array of INPUT'
complete -c tslice -l json -d 'JSON output for --shape and --list'
complete -c tslice -l explain -d 'dry run: print the resolved plan'
complete -c tslice -l full -d 'print every value, never summarised'
complete -c tslice -l precision -x -d "the most digits after a printed float's point"
complete -c tslice -l linewidth -x -d 'the characters a printed line may hold'
complete -c tslice -s q -l quiet -d 'no progress line'
complete -c tslice -l sync -d 'fsync the written file and its directory'
complete -c tslice -s f -l force -d 'write binary output to a terminal'
complete -c tslice -s t -l threads -x -d 'worker threads for large copies'
