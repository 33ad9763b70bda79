#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packs Debian's Open MPI (mpirun, orted, libmpi, its components, PMIx and
# every library they load) into one tarball, relocatable through OPAL_PREFIX,
# for a GPU machine that has no MPI (the device machines): with
# pack-gdal-runtime's tarball it runs `mpirun -n N gridkit grid ...` there.
#
# usage:  scripts/device/pack-openmpi-runtime.sh OUT.tar.xz
# there:  tar -xJf OUT.tar.xz && source ompi-runtime/env.sh
# Needs: apt-get install openmpi-bin libopenmpi-dev.
set -euo pipefail
out=${1:?usage: pack-openmpi-runtime.sh OUT.tar.xz}
command -v orterun >/dev/null || { echo "openmpi-bin is not installed" >&2; exit 1; }
tmp=$(mktemp -d); root=$tmp/ompi-runtime
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
mkdir -p "$root/usr/bin" "$root/usr/lib/$arch" "$root/usr/share" "$root/lib"
cp /usr/bin/orterun /usr/bin/orted /usr/bin/ompi_info "$root/usr/bin/"
ln -s orterun "$root/usr/bin/mpirun"
cp -a "/usr/lib/$arch/openmpi" "/usr/lib/$arch/pmix2" "$root/usr/lib/$arch/"
cp -a /usr/share/openmpi "$root/usr/share/"
elves=("$root/usr/bin/orterun" "$root/usr/bin/orted" "$root/usr/bin/ompi_info")
while IFS= read -r f; do elves+=("$f"); done < <(find "$root/usr/lib" -name '*.so*' -type f)
ldd "${elves[@]}" 2>/dev/null | awk '/=> \//{print $3}' | sort -u | while read -r lib; do
  case $(basename "$lib") in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libstdc++.so*|libgcc_s.so*|ld-linux*|libcuda*) ;;
    *) cp -L "$lib" "$root/lib/" ;;
  esac
done
cat > "$root/env.sh" <<ENV
here=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=\$here/usr PMIX_INSTALL_PREFIX=\$here/usr/lib/$arch/pmix2
# PMIx's components from here, not from a PMIx the machine may have
export PMIX_MCA_mca_base_component_path=\$here/usr/lib/$arch/pmix2/lib/pmix
export PATH=\$here/usr/bin:\$PATH
export LD_LIBRARY_PATH=\$here/lib:\$here/usr/lib/$arch/openmpi/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ENV
XZ_OPT=-9 tar -C "$tmp" -cJf "$out" ompi-runtime
rm -rf "$tmp"
echo "packed $(du -h "$out" | cut -f1) into $out"
