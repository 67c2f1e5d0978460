#!/usr/bin/env bash
# What a user of an installed tslice gets: `cmake --install` into a temporary prefix puts every
# file in its place; each public header compiles on its own; the example program builds against
# the prefix with find_package and with pkg-config and slices a file as numpy does; the man page
# renders cleanly and lists the options --help and the README list; `cpack -G DEB` makes a
# package whose tslice runs after `dpkg-deb -x`, with the libraries it links in Depends.
#
#   test_install.sh BUILD_DIR SOURCE_DIR PYTHON
set -uo pipefail
build_dir=$(realpath "$1")
source_dir=$(realpath "$2")
python=$3
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

# 1. The files, where their kinds go.
cmake --install "$build_dir" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; }
libdir=$(cd "$prefix" && dirname "$(find . -name libtslice.a | head -1)")
for file in bin/tslice "$libdir/libtslice.a" include/tslice/npy.hpp "$libdir/cmake/tslice/tsliceConfig.cmake" \
    "$libdir/cmake/tslice/tsliceConfigVersion.cmake" "$libdir/pkgconfig/tslice.pc" share/man/man1/tslice.1 \
    share/bash-completion/completions/tslice share/zsh/site-functions/_tslice \
    share/fish/vendor_completions.d/tslice.fish; do
    [[ -f $prefix/$file ]] || fail "not installed: $file"
done
"$prefix/bin/tslice" --version | head -1 | grep -qE '^tslice [0-9]+\.[0-9]+\.[0-9]+$' || fail "installed tslice --version"

# 2. Each public header on its own.
for header in "$prefix"/include/tslice/*.hpp; do
    echo "#include <tslice/$(basename "$header")>" |
        c++ -std=c++20 -fsyntax-only -I"$prefix/include" -x c++ - 2>"$work/header.log" ||
        { cat "$work/header.log"; fail "$(basename "$header") does not compile on its own"; }
done

# 3. The example, with find_package and with pkg-config, against numpy.
"$python" -c "import numpy as np; np.save('$work/in.npy', np.arange(60, dtype='<i4').reshape(3, 4, 5))"
expected="$work/expected.npy"
"$python" -c "import numpy as np; np.save('$expected', np.load('$work/in.npy')[::-1, 1:, ::2])"
check_output() {
    "$python" -c "import numpy as np, sys; a, b = np.load('$expected'), np.load(sys.argv[1]); sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape and (a == b).all() else 1)" "$1" ||
        fail "$2: the slice differs from numpy's"
}
if cmake -S "$source_dir/examples/slice_file" -B "$work/example" -DCMAKE_PREFIX_PATH="$prefix" >"$work/example.log" 2>&1 &&
    cmake --build "$work/example" >>"$work/example.log" 2>&1; then
    "$work/example/slice_file" "$work/in.npy" "[::-1, 1:, ::2]" "$work/out_cmake.npy" && check_output "$work/out_cmake.npy" "find_package example"
else
    cat "$work/example.log"
    fail "the example does not build with find_package(tslice)"
fi
flags=$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --static --cflags --libs tslice) || fail "pkg-config tslice"
if c++ "$source_dir/examples/slice_file/main.cpp" -o "$work/slice_file_pc" $flags 2>"$work/pc.log"; then
    "$work/slice_file_pc" "$work/in.npy" "[::-1, 1:, ::2]" "$work/out_pc.npy" && check_output "$work/out_pc.npy" "pkg-config example"
else
    cat "$work/pc.log"
    fail "the example does not build with pkg-config's flags"
fi

# 4. The man page: renders without a warning, and lists the options --help lists, as the README does.
warnings=$(groff -man -ww -z "$prefix/share/man/man1/tslice.1" 2>&1)
[[ -z $warnings ]] || fail "groff warns about the man page: $warnings"
help_options=$("$prefix/bin/tslice" --help | grep -oE '(^|[ ,])--?[a-z][a-z-]*' | sed 's/^[ ,]//' | sort -u)
man_options=$(sed -n '/^\.SH OPTIONS/,/^\.SH EXPRESSIONS/p' "$prefix/share/man/man1/tslice.1" | grep '^\.B' |
    grep -oE '(\\-){1,2}[a-z][a-z-]*' | sed 's/\\//g' | sort -u)
readme_options=$(sed -n '/^## Command line/,/^### /p' "$source_dir/README.md" | grep '^| `-' | cut -d'|' -f2 |
    grep -oE -- '--?[a-z][a-z-]*' | sort -u)
[[ $man_options == "$help_options" ]] ||
    fail "the man page's options differ from --help's: $(diff <(echo "$help_options") <(echo "$man_options") | grep '^[<>]' | tr '\n' ' ')"
# The README's table leaves out -h/--help (every tool has it).
help_but_help=$(grep -vxE -- '-h|--help' <<<"$help_options")
[[ $readme_options == "$help_but_help" ]] ||
    fail "the README's options differ from --help's: $(diff <(echo "$help_but_help") <(echo "$readme_options") | grep '^[<>]' | tr '\n' ' ')"

# 5. The Debian package.
if (cd "$work" && cpack -G DEB --config "$build_dir/CPackConfig.cmake" -B "$work/deb" >"$work/cpack.log" 2>&1); then
    deb=$(find "$work/deb" -maxdepth 1 -name '*.deb' | head -1)
    if [[ -z $deb ]]; then
        fail "cpack made no .deb"
    else
        dpkg-deb -x "$deb" "$work/extracted"
        "$work/extracted/usr/bin/tslice" --version | head -1 | grep -q '^tslice ' || fail "the packaged tslice --version"
        "$work/extracted/usr/bin/tslice" "$work/in.npy" "[::-1, 1:, ::2]" -o "$work/out_deb.npy" && check_output "$work/out_deb.npy" "the packaged tslice"
        depends=$(dpkg-deb -f "$deb" Depends)
        for library in libc6 libstdc++6 zlib1g libdeflate0; do
            grep -q "$library" <<<"$depends" || fail "the package's Depends lacks $library: $depends"
        done
        for file in usr/share/man/man1/tslice.1 usr/share/bash-completion/completions/tslice usr/include/tslice/npy.hpp; do
            [[ -f $work/extracted/$file ]] || fail "the package lacks $file"
        done
    fi
else
    cat "$work/cpack.log"
    fail "cpack -G DEB"
fi

if ((failures)); then
    echo "$failures install check(s) failed" >&2
    exit 1
fi
echo "install: all checks passed"
