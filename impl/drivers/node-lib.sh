# Sourced by the node drivers' build.sh (bash, in the driver's folder): node
# and npm (Debian nodejs, npm), then the npm packages pinned in
# package-lock.json (npm ci) when node_modules is missing or older than
# package-lock.json.
. ../../../scripts/pkg.sh

# build_node NAME: installs the driver in impl/drivers/NAME; returns
# PKG_SKIPPED when node or npm is missing and cannot be installed here.
build_node() {
  want nodejs has node
  want npm has npm
  install_wanted "the $1 driver" || return
  if [ -d node_modules ] && [ ! package-lock.json -nt node_modules ]; then
    return 0
  fi
  echo "installing the npm packages of impl/drivers/$1 ..." >&2
  npm ci --silent --no-audit --no-fund
  touch node_modules
}
