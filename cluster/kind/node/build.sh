#!/usr/bin/env bash
# Copyright 2026 The provider-coder Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Builds a kind node image without a registry, for `make e2e` with Podman
# on a machine that reaches only Debian's packages and the Go module proxy
# (see README.md). kind's own node image (kindest/node) comes from a
# registry; this one is assembled the way kind's images/base Dockerfile
# assembles it:
#
#   - the root file system from Debian (debootstrap), with systemd,
#     containerd, runc and the CNI plugins as Debian packages;
#   - kind's base files (entrypoint, units, containerd config) from the
#     kind module that tools/kind builds;
#   - kubelet, kubeadm, kube-proxy and kube-scheduler from ./kube, etcd,
#     kube-apiserver, kube-controller-manager and kubectl from the test
#     control plane's cache (cluster/local/build.sh), CoreDNS from
#     ./coredns, the pause binary compiled from Kubernetes' pause.c;
#   - the images kubeadm runs (control plane, etcd, CoreDNS, kube-proxy,
#     pause), built with `podman build`, saved into /kind/images and
#     imported into the node's containerd at boot (kind-images.service).
#
# There is no kindnetd: a bridge CNI conflist serves the one node.
# Everything is cached under ${cache}/kindnode/<version>-<hash>, the hash
# covering this script and the build modules, and the image is tagged
# with the same name, so a second run only checks that it exists. The
# image reference is printed as the last line of stdout.
#
# Usage: cluster/kind/node/build.sh [--print-ref | --kubeadm-patch]
# Needs root (debootstrap, chroot, rootful Podman) and the packages
# hack/kind-podman-setup.sh installs.
#
# Environment:
#   PROVIDER_CODER_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/provider-coder)
#   DEBIAN_MIRROR         debootstrap's mirror (default http://deb.debian.org/debian)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "${here}/../../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../../local/versions.env
source "${root}/cluster/local/versions.env"

cache_root=${PROVIDER_CODER_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/provider-coder}
# The binaries and Debian's root file system are cached by what builds
# them (the modules; the package list), the image by all of it.
modules=$(cat "${here}/kube/go.mod" "${here}/kube/go.sum" "${here}/coredns/go.mod" \
  "${here}/coredns/go.sum" "${root}/cluster/local/versions.env" | sha256sum | cut -c1-12)
tag="${KUBE_VERSION}-$(cat "${here}/build.sh" "${root}/tools/kind/go.mod" "${root}/tools/kind/go.sum" \
  "${here}/kube/go.sum" "${here}/coredns/go.sum" | sha256sum | cut -c1-12)"
ref="localhost/provider-coder/kind-node:${tag}"
dir="${cache_root}/kindnode/${KUBE_VERSION}-${modules}"

# The tags kubeadm asks for: its own pause version, our etcd and CoreDNS
# versions (kubeadm's defaults name others: --kubeadm-patch prints the
# ClusterConfiguration patch that points it at these).
PAUSE_VERSION=3.10.1
ETCD_IMAGE_TAG="${ETCD_VERSION#v}-0"
COREDNS_IMAGE_TAG=$(GOFLAGS=-mod=mod go -C "${here}/coredns" list -m -f '{{.Version}}' github.com/coredns/coredns)

case "${1:-}" in
  --print-ref) echo "${ref}"; exit 0 ;;
  --kubeadm-patch)
    printf 'kind: ClusterConfiguration\netcd:\n  local:\n    imageTag: %s\ndns:\n  imageTag: %s\n' \
      "${ETCD_IMAGE_TAG}" "${COREDNS_IMAGE_TAG}"
    exit 0 ;;
  "") ;;
  *) echo "usage: $0 [--print-ref | --kubeadm-patch]" >&2; exit 2 ;;
esac

log() { echo "kind node: $*" >&2; }

if podman image exists "${ref}"; then
  log "${ref}: cached"
  echo "${ref}"
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  log "building the node image needs root (debootstrap, chroot, rootful Podman)"
  exit 1
fi
for tool in debootstrap podman gcc jq; do
  command -v "${tool}" >/dev/null || { log "${tool} is missing: run hack/kind-podman-setup.sh"; exit 1; }
done

mkdir -p "${dir}"
exec 9>"${dir}/.lock"
flock 9
export GOWORK=off GOFLAGS=-buildvcs=false

bin="${dir}/bin"
mkdir -p "${bin}"

# step NAME COMMAND...: runs COMMAND once; a stamp file records that it
# finished, so an interrupted build resumes at the step that failed.
step() {
  local name=$1
  shift
  if [[ -e "${dir}/.done-${name}" ]]; then
    log "${name}: cached"
    return
  fi
  log "${name}"
  local start=${SECONDS}
  "$@"
  touch "${dir}/.done-${name}"
  log "${name}: $((SECONDS - start))s"
}

# The packages kind's base image installs, less those only rootless or
# storage tests use (fuse-overlayfs, nfs-common, open-iscsi, curl), plus
# Debian's containerd, runc and CNI plugins in place of kind's own builds.
packages=systemd,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,bash,ca-certificates,jq,procps,containerd,runc,containernetworking-plugins

debian="${dir}/debian-$(sha256sum <<<"${packages}" | cut -c1-12).tar"
debian_rootfs() {
  local fs="${dir}/debootstrap"
  rm -rf "${fs}"
  debootstrap --variant=minbase --include="${packages}" bookworm "${fs}" \
    "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" > "${dir}/debootstrap.log" 2>&1 ||
    { tail -n 20 "${dir}/debootstrap.log" >&2; return 1; }
  chroot "${fs}" apt-get clean
  rm -rf "${fs}"/var/lib/apt/lists/*
  tar -C "${fs}" -cf "${debian}.tmp" .
  mv "${debian}.tmp" "${debian}"
  rm -rf "${fs}"
}

# go_build OUT MODULE_DIR PACKAGE: a static binary, stamped with
# KUBE_VERSION the way cluster/local/build.sh stamps its binaries.
go_build() {
  local out=$1 mod=$2 pkg=$3 mm=${KUBE_VERSION#v} ldflags="-s -w"
  for p in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    ldflags+=" -X ${p}.gitVersion=${KUBE_VERSION} -X ${p}.gitMajor=${mm%%.*}"
    ldflags+=" -X ${p}.gitMinor=$(cut -d. -f2 <<<"${mm}") -X ${p}.gitTreeState=clean"
  done
  CGO_ENABLED=0 go -C "${mod}" build -trimpath -ldflags "${ldflags}" -o "${out}.tmp" "${pkg}"
  mv "${out}.tmp" "${out}"
}

node_binaries() {
  local name
  for name in kubelet kubeadm kube-proxy kube-scheduler; do
    go_build "${bin}/${name}" "${here}/kube" "k8s.io/kubernetes/cmd/${name}"
  done
  go_build "${bin}/coredns" "${here}/coredns" github.com/coredns/coredns
  local kube
  kube=$(go -C "${here}/kube" list -m -f '{{.Dir}}' k8s.io/kubernetes)
  gcc -Os -static -DVERSION="v${PAUSE_VERSION}" -o "${bin}/pause" "${kube}/build/pause/linux/pause.c"
  strip "${bin}/pause"
  # etcd, kube-apiserver, kube-controller-manager and kubectl: the test
  # control plane's own builds.
  local cp
  cp=$("${root}/cluster/local/build.sh" | tail -n 1)
  for name in etcd kube-apiserver kube-controller-manager kubectl; do
    cp -f "${cp}/${name}" "${bin}/${name}"
  done
}

kind_files() {
  local kind
  # `go list -m` names no directory for a module not yet downloaded (a
  # cold module cache, build.sh run before `make e2e` built kind).
  kind=$(go -C "${root}/tools/kind" mod download -json sigs.k8s.io/kind | jq -r .Dir)/images/base/files
  [[ -d "${kind}" ]] || { log "no kind base files at ${kind}"; return 1; }
  cp -r --no-preserve=mode,ownership "${kind}/etc/." "${rootfs}/etc/"
  mkdir -p "${rootfs}/kind/bin" "${rootfs}/LICENSES"
  cp --no-preserve=mode,ownership "${kind}/kind/bin/"* "${rootfs}/kind/bin/"
  cp --no-preserve=mode,ownership "${kind}/usr/local/bin/"* "${rootfs}/usr/local/bin/"
  cp --no-preserve=mode,ownership "${kind}/LICENSES/"* "${rootfs}/LICENSES/"
  chmod 0755 "${rootfs}/kind/bin" "${rootfs}"/kind/bin/* "${rootfs}"/usr/local/bin/*
  # Debian installs containerd in /usr/bin and the CNI plugins in
  # /usr/lib/cni; kind's unit and config look in /usr/local/bin and
  # /opt/cni/bin.
  ln -sf /usr/bin/containerd "${rootfs}/usr/local/bin/containerd"
  mkdir -p "${rootfs}/opt/cni"
  ln -sfn /usr/lib/cni "${rootfs}/opt/cni/bin"
  # kind's Dockerfile: systemd's units trimmed to what a node needs.
  find "${rootfs}/lib/systemd/system/sysinit.target.wants/" -name systemd-tmpfiles-setup.service -delete
  rm -f "${rootfs}"/lib/systemd/system/multi-user.target.wants/* \
    "${rootfs}"/etc/systemd/system/*.wants/* \
    "${rootfs}"/lib/systemd/system/local-fs.target.wants/* \
    "${rootfs}"/lib/systemd/system/sockets.target.wants/*udev* \
    "${rootfs}"/lib/systemd/system/sockets.target.wants/*initctl* \
    "${rootfs}"/lib/systemd/system/basic.target.wants/*
  echo "ReadKMsg=no" >> "${rootfs}/etc/systemd/journald.conf"
  ln -sf /lib/systemd/systemd "${rootfs}/sbin/init"
  chroot "${rootfs}" ctr oci spec |
    jq '.hooks.createContainer[.hooks.createContainer| length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' |
    jq 'del(.process.rlimits)' > "${rootfs}/etc/containerd/cri-base.json"
  node_files
  chroot "${rootfs}" systemctl enable kubelet.service containerd.service undo-mount-hacks.service kind-images.service
  chroot "${rootfs}" systemctl mask systemd-binfmt.service
  mkdir -p "${rootfs}/etc/kubernetes/manifests"
  install -m 0755 "${bin}/kubelet" "${bin}/kubeadm" "${bin}/kubectl" "${rootfs}/usr/bin/"
  echo "${KUBE_VERSION}" > "${rootfs}/kind/version"
}

# What differs from kind's base image, beyond the packages.
node_files() {
  # A privileged container without CAP_SYS_RESOURCE cannot raise a limit
  # above the container's own (containers.conf default_ulimits): reset
  # containerd's "infinity" so it inherits them.
  mkdir -p "${rootfs}/etc/systemd/system/containerd.service.d"
  cat > "${rootfs}/etc/systemd/system/containerd.service.d/10-limits.conf" <<'EOF'
[Service]
LimitNPROC=
LimitCORE=
LimitNOFILE=
EOF
  # Without CAP_SYS_RESOURCE no process may lower its oom_score_adj, and
  # kubelet asks for -997 and -998 for the control plane's pods: runc then
  # fails with "can't get final child's PID from pipe: EOF" (its log says
  # "failed to update /proc/self/oom_score_adj: Permission denied").
  # containerd keeps a container's score at or above its own, as kind's
  # entrypoint does for rootless nodes.
  sed -i 's/restrict_oom_score_adj = false/restrict_oom_score_adj = true/' "${rootfs}/etc/containerd/config.toml"
  grep -q 'restrict_oom_score_adj = true' "${rootfs}/etc/containerd/config.toml"
  # containerd's sandbox image is kubeadm's pause version.
  sed -i "s#registry.k8s.io/pause:[0-9.]*#registry.k8s.io/pause:${PAUSE_VERSION}#" "${rootfs}/etc/containerd/config.toml"
  cat > "${rootfs}/etc/systemd/system/kind-images.service" <<'EOF'
[Unit]
Description=Import the node image's container images into containerd
After=containerd.service
Requires=containerd.service
Before=kubelet.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -euc 'for i in /kind/images/*.tar; do ctr -n k8s.io images import --no-unpack=false "$i"; done'

[Install]
WantedBy=multi-user.target
EOF
  mkdir -p "${rootfs}/etc/cni/net.d" "${rootfs}/kind/manifests"
  cat > "${rootfs}/etc/cni/net.d/10-bridge.conflist" <<'EOF'
{
  "cniVersion": "1.0.0",
  "name": "kind-bridge",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": true,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "10.244.0.0/24"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
  # kind applies this manifest as the cluster's CNI; with the bridge
  # conflist above there is nothing to run, so it only says so.
  cat > "${rootfs}/kind/manifests/default-cni.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: kind-node-cni
  namespace: kube-system
data:
  cni: "bridge conflist /etc/cni/net.d/10-bridge.conflist (cluster/kind/node/build.sh); no kindnetd"
EOF
}

# image NAME TAG BINARY [BASE]: a one-binary image saved for the node.
image() {
  local name=$1 tag=$2 binary=$3 base=${4:-scratch} ctx
  ctx=$(mktemp -d "${dir}/ctx.XXXXXX")
  cp "${bin}/${binary}" "${ctx}/${binary}"
  cat > "${ctx}/Containerfile" <<EOF
FROM ${base}
COPY ${binary} /usr/local/bin/${binary}
ENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ENTRYPOINT ["/usr/local/bin/${binary}"]
EOF
  podman build -q --network=none -t "registry.k8s.io/${name}:${tag}" "${ctx}" >/dev/null
  podman save -q --format docker-archive -o "${images}/${name##*/}.tar" "registry.k8s.io/${name}:${tag}"
  podman rmi -f "registry.k8s.io/${name}:${tag}" >/dev/null
  rm -rf "${ctx}"
}

# kube-proxy runs iptables and conntrack: its image is the node's own
# packages for them, taken from the root file system with what they link.
proxy_base() {
  local base="${dir}/proxy-base" files
  rm -rf "${base}"
  files=$(chroot "${rootfs}" dpkg -L iptables libip4tc2 libip6tc2 libxtables12 libnftnl11 libmnl0 \
    libnetfilter-conntrack3 libnfnetlink0 conntrack libc6 libgcc-s1 libbsd0 libmd0 |
    while read -r f; do [[ -f "${rootfs}${f}" || -L "${rootfs}${f}" ]] && echo "${f#/}"; done)
  # update-alternatives, not dpkg, owns /usr/sbin/iptables and its kin;
  # Debian's merged /usr makes /lib64 and the others links into /usr.
  files+=" $(cd "${rootfs}" && find usr/sbin -lname '/etc/alternatives/*' | tr '\n' ' ')"
  mkdir -p "${base}/usr/bin" "${base}/usr/lib" "${base}/usr/lib64" "${base}/usr/sbin"
  # shellcheck disable=SC2086 # one path per word
  tar -C "${rootfs}" -cf - bin lib lib64 sbin ${files} etc/alternatives | tar -C "${base}" -xf -
  chroot "${base}" /usr/sbin/iptables-save --version >/dev/null
  chroot "${base}" /usr/sbin/conntrack --version >/dev/null
  tar -C "${base}" -cf - . | podman import -q - localhost/provider-coder/kube-proxy-base:"${tag}" >/dev/null
  rm -rf "${base}"
}

node_images() {
  rm -f "${images}"/*.tar
  local k=${KUBE_VERSION}
  image kube-apiserver "${k}" kube-apiserver
  image kube-controller-manager "${k}" kube-controller-manager
  image kube-scheduler "${k}" kube-scheduler
  proxy_base
  image kube-proxy "${k}" kube-proxy localhost/provider-coder/kube-proxy-base:"${tag}"
  podman rmi -f localhost/provider-coder/kube-proxy-base:"${tag}" >/dev/null
  image etcd "${ETCD_IMAGE_TAG}" etcd
  image coredns/coredns "${COREDNS_IMAGE_TAG}" coredns
  image pause "${PAUSE_VERSION}" pause
  mkdir -p "${rootfs}/kind/images"
  cp "${images}"/*.tar "${rootfs}/kind/images/"
}

node_image() {
  tar -C "${rootfs}" -cf - . | podman import -q \
    --change 'ENV container=docker' \
    --change 'STOPSIGNAL SIGRTMIN+3' \
    --change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' \
    - "${ref}" >/dev/null
}

step "$(basename "${debian}" .tar)" debian_rootfs
step binaries node_binaries
# The node's root file system is assembled afresh each time from the
# cached parts, and removed once imported.
rootfs="${dir}/rootfs"
images="${dir}/images"
rm -rf "${rootfs}" "${images}"
mkdir -p "${rootfs}" "${images}"
trap 'rm -rf "${rootfs}" "${images}"' EXIT
tar -C "${rootfs}" -xf "${debian}"
log "kind's files"
kind_files
log "images"
node_images
log "import"
node_image
log "${ref}: $(podman image inspect --format '{{.Size}}' "${ref}") bytes"
echo "${ref}"
