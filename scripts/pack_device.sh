#!/usr/bin/env bash
# Builds tslice and its bench binaries in Release and packs them, with the shared libraries
# they need that a machine without a compiler may lack, into build-device/ (ignored by git),
# for scripts/device_bench.sh to run on another machine:
#
#   build-device/bin/   tslice, tslice_bench, tslice_io_floor, tslice_peak_rss, and for
#                       scripts/device_check.sh the unit tests and ggml_dequantize
#   build-device/lib/   the non-system libraries they link (libdeflate, libz, ...), which
#                       device_bench.sh always puts on LD_LIBRARY_PATH
#   build-device/lib-fallback/
#                       libstdc++ and libgcc_s, put on LD_LIBRARY_PATH only where the other
#                       machine lacks them (a system's own are preferred: they match its glibc)
#   build-device/scripts/
#                       bench/numpy_copy.py (the bench's numpy contender) and device_bench.sh
#
# Usage: scripts/pack_device.sh [BUILD_DIR]   (default build; configured in Release)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$root/build}"
out="$root/build-device"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target tslice tslice_bench tslice_io_floor tslice_peak_rss \
    tslice_unit_tests ggml_dequantize

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/lib-fallback" "$out/scripts"
binaries=("$build_dir/tslice" "$build_dir/bench/tslice_bench" "$build_dir/bench/tslice_io_floor"
          "$build_dir/bench/tslice_peak_rss" "$build_dir/tests/tslice_unit_tests" "$build_dir/tests/ggml_dequantize")
cp "${binaries[@]}" "$out/bin/"
cp "$root/bench/numpy_copy.py" "$root/scripts/device_bench.sh" "$out/scripts/"

# glibc's own libraries (libc, libm, the dynamic loader, ...) must come from the machine that
# runs the binaries; libstdc++ and libgcc_s go to the fallback folder; the rest travels.
for binary in "${binaries[@]}"; do
    # (tslice_peak_rss is static: ldd fails on it, and it needs nothing.)
    { ldd "$binary" 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | while read -r library; do
    name="$(basename "$library")"
    case "$name" in
        libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*.so.* | libresolv.so.*)
            ;;
        libstdc++.so.* | libgcc_s.so.*) cp -L "$library" "$out/lib-fallback/$name" ;;
        *) cp -L "$library" "$out/lib/$name" ;;
    esac
done
echo "packed into $out:"
(cd "$out" && find . -type f | sort | xargs ls -l | awk '{printf "  %-40s %10d bytes\n", $9, $5}')
